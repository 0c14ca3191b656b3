"""Builds the kitchen's bodies in a PyBullet world: floor, furniture, the drawer cabinet, the objects.

Furniture is static (mass 0). The drawer is a multibody: the cabinet is its base and the drawer a
link on a prismatic joint that slides towards the robot by ``drawer_travel``. Objects are dynamic
bodies with the project's generated meshes and label textures, set out on their place's furniture.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pybullet as pb

import llm_planner_ros.physics_sim.assets as assets
from llm_planner_ros.domain.config import HELD
from llm_planner_ros.domain.layout import NO_FURNITURE, DomainLayout, Furniture, ObjectModel
from llm_planner_ros.domain.scene import ObjectInstance, Scene

WOOD = (0.62, 0.47, 0.32, 1.0)
GREY = (0.55, 0.57, 0.6, 1.0)
BIN_GREEN = (0.2, 0.45, 0.3, 1.0)
FLOOR = (0.82, 0.8, 0.76, 1.0)
WALL = 0.02  # thickness of panels (bin walls, drawer sides, cabinet top)
DRAWER_HEIGHT = 0.2  # the drawer takes the cabinet's top 20 cm
DRAWER_HOLD_N = 8.0  # friction-like force that keeps the drawer where it was left
HANDLE_AHEAD = 0.06  # the handle bar stands this far in front of the drawer's front panel


@dataclass
class BuiltKitchen:
    """Body ids of what was built: floor, furniture by place, the drawer multibody, objects by id."""

    floor: int
    furniture: dict[str, int] = field(default_factory=dict)
    drawer_body: int | None = None
    drawer_place: str | None = None
    objects: dict[str, int] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)


def quaternion_yaw(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


class KitchenBuilder:
    """Creates bodies in one PyBullet client; keeps each label's mesh and texture (made once)."""

    def __init__(self, client: int, layout: DomainLayout, asset_folder: Path) -> None:
        self._client = client
        self._layout = layout
        self._folder = asset_folder
        self._textures: dict[str, int] = {}
        self._meshes: dict[str, Path] = {}

    def build(self, scene: Scene, drawer_location: str | None, contents_at: str | None) -> BuiltKitchen:
        """Everything but the robot. The drawer cabinet exists only when the scene has the drawer."""
        c = self._client
        floor_shape = pb.createCollisionShape(pb.GEOM_PLANE, physicsClientId=c)
        # The visible floor covers the kitchen and 2 m around it, in 1 m tiles: the renderer's time grows
        # with the screen area of each triangle, and a few huge ones reaching behind the camera are slow.
        floor_visual = self._floor_tiles()
        built = BuiltKitchen(pb.createMultiBody(0, floor_shape, floor_visual, physicsClientId=c))
        for place, piece in self._layout.furniture.items():
            if piece.kind == NO_FURNITURE:
                continue  # objects set out there lie on the floor, where the truth names no place
            if piece.kind == "drawers":
                if scene.has_drawer:
                    built.drawer_body = self._drawers(piece, bool(scene.drawer_open))
                    built.drawer_place = place
                    built.furniture[place] = built.drawer_body
                continue
            built.furniture[place] = self._furniture(piece)
        by_place: dict[str, list[ObjectInstance]] = {}
        for obj in scene.objects:
            by_place.setdefault(obj.at, []).append(obj)
        for at, objects in by_place.items():
            if at == HELD:
                continue  # the simulation puts it in the gripper once the robot exists
            place = drawer_location if at == contents_at else at
            piece = self._layout.furniture[str(place)]
            for index, (obj, spot) in enumerate(
                zip(objects, self._layout.slots(str(place), len(objects)), strict=True)
            ):
                position = self._spot(piece, spot, obj, index, inside_drawer=at == contents_at, built=built)
                if obj.lying_deg is None:
                    built.objects[obj.id] = self.object_body(obj.label, position, piece.yaw + math.pi / 2)
                else:
                    built.objects[obj.id] = self._lying_body(obj.label, position, math.radians(obj.lying_deg))
                built.labels[obj.id] = obj.label
        for obj in scene.objects:
            if obj.at == HELD:
                built.objects[obj.id] = self.object_body(obj.label, (0.0, 0.0, -1.0), 0.0)
                built.labels[obj.id] = obj.label
        # In the scene's order, as the symbolic world lists them.
        built.objects = {obj.id: built.objects[obj.id] for obj in scene.objects}
        return built

    def _floor_tiles(self) -> int:
        xs = [p.center[0] for p in self._layout.furniture.values()]
        ys = [p.center[1] for p in self._layout.furniture.values()]
        low = (math.floor(min(xs)) - 2, math.floor(min(ys)) - 2)
        high = (math.ceil(max(xs)) + 2, math.ceil(max(ys)) + 2)
        mesh = assets.write_floor(low, high, self._folder)
        return pb.createVisualShape(pb.GEOM_MESH, fileName=str(mesh), rgbaColor=FLOOR, physicsClientId=self._client)

    def _lying_body(self, label: str, upright_centre: Sequence[float], yaw: float) -> int:
        """``label``'s model on its side where it would stand upright with its centre at ``upright_centre``:
        its axis horizontal, turned ``yaw`` from the map's x axis."""
        model = self._layout.models[label]
        x, y, z = upright_centre
        bottom = z - model.height / 2
        position = (x, y, bottom + model.extents[1] / 2 + 0.002)
        body = self.object_body(label, position, 0.0)
        # Turned a quarter about x, the model's axis lies along y; the yaw then turns y onto the wanted axis.
        turn = pb.getQuaternionFromEuler((math.pi / 2, 0.0, yaw - math.pi / 2))
        pb.resetBasePositionAndOrientation(body, position, turn, physicsClientId=self._client)
        return body

    def object_body(self, label: str, position: Sequence[float], yaw: float) -> int:
        """A dynamic body of ``label``'s model at ``position`` (its centre), turned by ``yaw``."""
        c = self._client
        model = self._layout.models[label]
        if model.shape == "sphere":
            radius = model.extents[0] / 2
            collision = pb.createCollisionShape(pb.GEOM_SPHERE, radius=radius, physicsClientId=c)
            visual = pb.createVisualShape(
                pb.GEOM_SPHERE, radius=radius, rgbaColor=[v / 255 for v in model.color] + [1.0], physicsClientId=c
            )
        else:
            mesh = self._mesh(model)
            if model.shape == "cylinder":
                collision = pb.createCollisionShape(
                    pb.GEOM_CYLINDER, radius=model.extents[0] / 2, height=model.height, physicsClientId=c
                )
            else:
                collision = pb.createCollisionShape(
                    pb.GEOM_BOX, halfExtents=[e / 2 for e in model.extents], physicsClientId=c
                )
            visual = pb.createVisualShape(pb.GEOM_MESH, fileName=str(mesh), physicsClientId=c)
        body = pb.createMultiBody(model.mass, collision, visual, list(position), quaternion_yaw(yaw), physicsClientId=c)
        pb.changeDynamics(
            body, -1, lateralFriction=1.0, rollingFriction=0.001, spinningFriction=0.001, physicsClientId=c
        )
        if model.shape != "sphere":
            pb.changeVisualShape(body, -1, textureUniqueId=self._texture(model), physicsClientId=c)
        return body

    def obstacle(self, center: Sequence[float], size: Sequence[float]) -> int:
        """A static box standing on the floor (something in the robot's way)."""
        c = self._client
        half = [s / 2 for s in size]
        collision = pb.createCollisionShape(pb.GEOM_BOX, halfExtents=half, physicsClientId=c)
        visual = pb.createVisualShape(pb.GEOM_BOX, halfExtents=half, rgbaColor=GREY, physicsClientId=c)
        return pb.createMultiBody(0, collision, visual, [center[0], center[1], half[2]], physicsClientId=c)

    # ----- pieces ------------------------------------------------------------------------------------------
    def _spot(
        self,
        piece: Furniture,
        spot: tuple[float, float],
        obj: ObjectInstance,
        index: int,
        inside_drawer: bool,
        built: BuiltKitchen,
    ) -> tuple[float, float, float]:
        model = self._layout.models[obj.label]
        half = model.height / 2 + 0.002
        if piece.kind == "bin":
            x, y = piece.to_map(*spot)
            return (x, y, WALL + half + 0.15 * index)
        if inside_drawer:
            assert built.drawer_body is not None
            tray_x, tray_y = _drawer_spot(piece, index)
            x, y = piece.to_map(tray_x + self._drawer_offset(built), tray_y)
            return (x, y, piece.height - DRAWER_HEIGHT + 2 * WALL + half)
        x, y = piece.to_map(*spot)
        return (x, y, piece.height + half)

    def _drawer_offset(self, built: BuiltKitchen) -> float:
        assert built.drawer_body is not None
        return -pb.getJointState(built.drawer_body, 0, physicsClientId=self._client)[0]

    def _furniture(self, piece: Furniture) -> int:
        d, w, h = piece.depth, piece.width, piece.height
        if piece.kind == "counter":
            boxes = [((d / 2, w / 2, h / 2), (0, 0, h / 2))]
            color = GREY
        elif piece.kind == "table":
            leg = 0.03
            boxes = [((d / 2, w / 2, 0.02), (0, 0, h - 0.02))]
            for sx in (-1, 1):
                for sy in (-1, 1):
                    boxes.append(
                        ((leg, leg, (h - 0.04) / 2), (sx * (d / 2 - 0.05), sy * (w / 2 - 0.05), (h - 0.04) / 2))
                    )
            color = WOOD
        else:  # bin: a floor and four walls, open at the top
            boxes = [
                ((d / 2, w / 2, WALL / 2), (0, 0, WALL / 2)),
                ((WALL / 2, w / 2, h / 2), (d / 2 - WALL / 2, 0, h / 2)),
                ((WALL / 2, w / 2, h / 2), (-d / 2 + WALL / 2, 0, h / 2)),
                ((d / 2, WALL / 2, h / 2), (0, w / 2 - WALL / 2, h / 2)),
                ((d / 2, WALL / 2, h / 2), (0, -w / 2 + WALL / 2, h / 2)),
            ]
            color = BIN_GREEN
        collision, visual = self._compound(boxes, color)
        return pb.createMultiBody(
            0,
            collision,
            visual,
            [piece.center[0], piece.center[1], 0.0],
            quaternion_yaw(piece.yaw),
            physicsClientId=self._client,
        )

    def _drawers(self, piece: Furniture, is_open: bool) -> int:
        """The cabinet (base) and its top drawer (link 0, prismatic towards the robot, -x locally)."""
        c = self._client
        d, w, h = piece.depth, piece.width, piece.height
        low = h - DRAWER_HEIGHT
        cabinet = [
            ((d / 2, w / 2, low / 2), (0, 0, low / 2)),  # the lower body
            ((d / 2, w / 2, WALL / 2), (0, 0, h - WALL / 2)),  # the top plate
            ((WALL / 2, w / 2, DRAWER_HEIGHT / 2), (d / 2 - WALL / 2, 0, low + DRAWER_HEIGHT / 2)),  # back
            ((d / 2, WALL / 2, DRAWER_HEIGHT / 2), (0, w / 2 - WALL / 2, low + DRAWER_HEIGHT / 2)),
            ((d / 2, WALL / 2, DRAWER_HEIGHT / 2), (0, -w / 2 + WALL / 2, low + DRAWER_HEIGHT / 2)),
        ]
        inner_w = w / 2 - 2 * WALL
        tray_d, side_h = _tray_depth(piece), _side_height()
        drawer = [
            ((tray_d, inner_w, WALL / 2), (0, 0, WALL / 2 + 0.002)),  # bottom
            ((WALL / 2, inner_w, side_h), (-tray_d, 0, side_h)),  # front panel
            ((WALL / 2, inner_w, side_h), (tray_d, 0, side_h)),  # back
            ((tray_d, WALL / 2, side_h), (0, inner_w, side_h)),
            ((tray_d, WALL / 2, side_h), (0, -inner_w, side_h)),
            ((0.012, 0.09, 0.012), (-tray_d - HANDLE_AHEAD, 0, side_h)),  # the handle bar
            ((0.03, 0.01, 0.01), (-tray_d - 0.03, 0.08, side_h)),  # its posts
            ((0.03, 0.01, 0.01), (-tray_d - 0.03, -0.08, side_h)),
        ]
        base_collision, base_visual = self._compound(cabinet, WOOD)
        link_collision, link_visual = self._compound(drawer, (0.75, 0.6, 0.45, 1.0))
        body = pb.createMultiBody(
            baseMass=0,
            baseCollisionShapeIndex=base_collision,
            baseVisualShapeIndex=base_visual,
            basePosition=[piece.center[0], piece.center[1], 0.0],
            baseOrientation=quaternion_yaw(piece.yaw),
            linkMasses=[2.0],
            linkCollisionShapeIndices=[link_collision],
            linkVisualShapeIndices=[link_visual],
            linkPositions=[[0, 0, low + WALL]],
            linkOrientations=[[0, 0, 0, 1]],
            linkInertialFramePositions=[[0, 0, 0]],
            linkInertialFrameOrientations=[[0, 0, 0, 1]],
            linkParentIndices=[0],
            linkJointTypes=[pb.JOINT_PRISMATIC],
            linkJointAxis=[[-1, 0, 0]],
            physicsClientId=c,
        )
        pb.changeDynamics(
            body,
            0,
            jointLowerLimit=0.0,
            jointUpperLimit=self._layout.drawer_travel,
            lateralFriction=1.0,
            physicsClientId=c,
        )
        pb.resetJointState(body, 0, self._layout.drawer_travel if is_open else 0.0, physicsClientId=c)
        pb.setJointMotorControl2(
            body, 0, pb.VELOCITY_CONTROL, targetVelocity=0.0, force=DRAWER_HOLD_N, physicsClientId=c
        )
        return body

    def _compound(
        self, boxes: list[tuple[tuple[float, ...], tuple[float, ...]]], color: Sequence[float]
    ) -> tuple[int, int]:
        c = self._client
        halves = [list(half) for half, _ in boxes]
        offsets = [list(offset) for _, offset in boxes]
        collision = pb.createCollisionShapeArray(
            [pb.GEOM_BOX] * len(boxes), halfExtents=halves, collisionFramePositions=offsets, physicsClientId=c
        )
        visual = pb.createVisualShapeArray(
            [pb.GEOM_BOX] * len(boxes),
            halfExtents=halves,
            visualFramePositions=offsets,
            rgbaColors=[list(color)] * len(boxes),
            physicsClientId=c,
        )
        return collision, visual

    def _mesh(self, model: ObjectModel) -> Path:
        if model.label not in self._meshes:
            self._meshes[model.label] = assets.write_mesh(model, self._folder)
        return self._meshes[model.label]

    def _texture(self, model: ObjectModel) -> int:
        if model.label not in self._textures:
            path = assets.write_texture(model, self._folder)
            self._textures[model.label] = pb.loadTexture(str(path), physicsClientId=self._client)
        return self._textures[model.label]


def drawer_handle(piece: Furniture) -> tuple[float, float, float]:
    """The centre of the drawer's handle bar with the drawer closed (map frame): what a robot's place map
    gives its drawer skills (config/robot_map.yaml)."""
    x, y = piece.to_map(-_tray_depth(piece) - HANDLE_AHEAD, 0.0)
    return (x, y, piece.height - DRAWER_HEIGHT + WALL + _side_height())


def _tray_depth(piece: Furniture) -> float:
    """Half the drawer tray's depth: its front panel's distance from the cabinet's centre."""
    return piece.depth / 2 - 2 * WALL


def _side_height() -> float:
    """Half the height of the tray's sides, where the handle bar sits above the drawer link's origin."""
    return (DRAWER_HEIGHT - 2 * WALL) / 2 - 0.005


def _drawer_spot(piece: Furniture, index: int) -> tuple[float, float]:
    """Local (x, y) of the index-th object in the closed drawer: along its width, 12 cm apart."""
    columns = max(1, int((piece.width - 0.15) / 0.12))
    row, column = divmod(index, columns)
    return (-piece.depth / 4 + row * 0.12, (column - (columns - 1) / 2) * 0.12)
