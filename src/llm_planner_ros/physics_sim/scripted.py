"""Scripted skills on the physics simulation of any domain, built only from its motion primitives.

These are what the bench runs (and what an executor backend does over ROS), chosen by the motion a
skill's effects ask for (``SkillRule.motion``), whatever its family is called: go to a place, pick an
object top-down, put the held object down on the furniture of the robot's place (or drop it into the
bin), the drawer skills, and a skill that changes declared facts only (``PhysicsKitchen.apply_facts``).
Each returns a ``SkillRun``: success, a message naming the primitive that failed and why, and the number
of primitives used.

The drawer skills run the motion sequences the ``moveit`` executor backend sends
(``llm_planner_ros.robot_motion.drawer``,
from the robot map's drawer entry, the domain's ``robot_map.yaml``), each motion as physics_sim runs the
MoveGroup or GripperCommand goal it becomes: a pose of ``panda_hand`` in the map frame, a joint goal, or a
gripper command; a close that must grasp fails when the fingers hold nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pybullet as pb
import yaml

from llm_planner_ros.domain.skill import DRAWER, FIND, GOTO, PICK, PLACE, TERMINATE
from llm_planner_ros.domain.world import SkillError
from llm_planner_ros.paths import config_file
from llm_planner_ros.physics_sim.motions import Motion, Outcome
from llm_planner_ros.physics_sim.robot import GRIPPER_OPEN_ABOVE, LINK_INDEX
from llm_planner_ros.physics_sim.simulation import FACT_SKILL_S, PhysicsKitchen
from llm_planner_ros.robot_motion import manipulation
from llm_planner_ros.robot_motion.drawer import CLOSE, OPEN, DrawerSettings, drawer_motion
from llm_planner_ros.robot_motion.free_spot import NoFreeSpot, free_spot
from llm_planner_ros.robot_motion.geometry import Pose
from llm_planner_ros.robot_motion.place_map import Place, PlaceMap, load_place_map
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject

APPROACH_M = 0.12  # pre-grasp and retreat height above the grasp / place pose
# Lift this high before tucking: the tuck swings the arm sideways, and the held object must clear the
# tallest neighbour (a 20 cm bottle) on the way.
LIFT_M = 0.3
FINGER_DEPTH = 0.035  # how far below an object's top the fingertips close
PLACE_CLEARANCE = 0.015  # release this high above the surface
MOTION_TIMEOUT_S = 30.0
EE_LINK = LINK_INDEX["panda_hand"]  # the executors' ee_link (config/manipulator_executor.yaml)


@dataclass
class SkillRun:
    """The outcome of one scripted skill."""

    success: bool
    message: str
    primitives: int = 0


def top_down(yaw: float) -> tuple[float, float, float, float]:
    """The gripper pointing down, its fingers closing along the horizontal direction ``yaw + pi/2``."""
    return tuple(pb.getQuaternionFromEuler([math.pi, 0.0, yaw]))  # type: ignore[return-value]


def graph_arm_settings() -> manipulation.ArmSettings:
    """The manipulator executor's arm settings on the physics graph: config/physics_graph.yaml's lift distance
    and stow joints over the defaults."""
    params = yaml.safe_load(config_file("physics_graph.yaml").read_text())["manipulator_executor"]["ros__parameters"]
    return manipulation.ArmSettings(lift_distance=params["lift_distance"], stow_joints=tuple(params["stow_joints"]))


class ScriptedSkills:
    """Runs skills on one simulation, stepping it until each primitive ends."""

    def __init__(self, sim: PhysicsKitchen, places: PlaceMap | None = None) -> None:
        self.sim = sim
        self._places = places
        self.arm = graph_arm_settings()
        self.drawer_settings = DrawerSettings()

    def run_text(self, text: str) -> SkillRun:
        """Run a skill by its text ("find a coke", "pick up the coke", "bring it to you", "put down the coke",
        "done", "open the drawer", "open the door"): the symbolic world read from the physics state checks
        the skill's preconditions and names its target; the primitives do the rest."""
        world = self.sim.truth().world(self.sim.kitchen)
        try:
            rule = world.check(text)
        except SkillError as error:
            return SkillRun(False, str(error))
        skill, motion = rule.skill, rule.motion
        if motion == TERMINATE:
            return SkillRun(True, "done")
        if motion == FIND:
            place = world.nearest_place_of(str(skill.argument))
            return self.go_to(str(place))
        if motion == GOTO:
            return self.go_to(str(skill.argument))
        if motion == PICK:
            return self.pick(min(world.reachable(str(skill.argument)), key=lambda o: o.id).id)
        if motion == PLACE:
            return self.put_down()
        if motion == DRAWER:
            return self.drawer(OPEN if text.startswith(OPEN) else CLOSE if text.startswith(CLOSE) else None)
        self.sim.step(int(round(FACT_SKILL_S / self.sim.time_step)))
        try:
            return SkillRun(True, self.sim.apply_facts(text))
        except SkillError as error:
            return SkillRun(False, str(error))

    def go_to(self, place: str) -> SkillRun:
        run = SkillRun(True, "")
        for motion in (self.sim.tuck, lambda: self.sim.navigate(self.sim.standing_pose(place))):
            if not self._primitive(run, f"go to {place}", motion()):
                return run
        run.message = f"at the {place}"
        return run

    def pick(self, object_id: str) -> SkillRun:
        sim = self.sim
        run = SkillRun(True, "")
        body = sim.built.objects[object_id]
        position, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=sim.client)
        model = sim.layout.models[sim.built.labels[object_id]]
        grasp_z = position[2] + max(0.0, model.height / 2 - FINGER_DEPTH)
        yaw = self._grasp_yaw(model.shape, orientation)
        down = top_down(yaw)
        above = (position[0], position[1], grasp_z + APPROACH_M)
        steps = [
            lambda: sim.gripper(close=False),
            lambda: sim.move_arm(above, down),
            lambda: sim.move_arm((position[0], position[1], grasp_z), down, allowed=[body]),
            lambda: sim.gripper(close=True),
            lambda: sim.move_arm((position[0], position[1], grasp_z + LIFT_M), down, allowed=[body]),
            sim.tuck,
        ]
        for step in steps:
            if not self._primitive(run, f"pick {object_id}", step()):
                return run
            if step is steps[3] and sim.holding() != object_id:
                run.success, run.message = False, f"pick {object_id}: the gripper closed without it ({sim.holding()})"
                return run
        run.message = f"holding {object_id}"
        return run

    def put_down(self) -> SkillRun:
        sim = self.sim
        run = SkillRun(True, "")
        held = sim.holding()
        if held is None:
            return SkillRun(False, "put down: the gripper holds nothing")
        truth = sim.truth()
        piece = sim.layout.furniture[truth.robot_at]
        model = sim.layout.models[sim.built.labels[held]]
        hand, _ = sim.robot.link_pose(11)
        object_position, _ = pb.getBasePositionAndOrientation(sim.built.objects[held], physicsClientId=sim.client)
        grip_above_center = hand[2] - object_position[2]
        if piece.kind == "bin":
            x, y = piece.center
            center_z = piece.height + 0.08 + model.height / 2
        else:
            x, y = self._free_spot(truth.robot_at, held)
            center_z = piece.height + model.height / 2 + PLACE_CLEARANCE
        down = top_down(sim.robot.pose.yaw + math.pi / 2)
        target = (x, y, center_z + grip_above_center)
        steps = [
            lambda: sim.move_arm((x, y, target[2] + APPROACH_M), down),
            lambda: sim.move_arm(target, down),
            lambda: sim.gripper(close=False),
            lambda: sim.move_arm((x, y, target[2] + APPROACH_M), down),
            sim.tuck,
        ]
        for step in steps:
            if not self._primitive(run, f"put down {held}", step()):
                return run
        run.message = f"put {held} down at the {truth.robot_at}"
        return run

    def drawer(self, action: str | None) -> SkillRun:
        """Open (``OPEN``) or close (``CLOSE``) the drawer of the robot's place by its handle, or put the held
        object into it (``None``) at the free spot of its interior nearest the interior's point."""
        truth = self.sim.truth()
        place = self.places.place(truth.robot_at)
        if place is None or place.drawer is None:
            return SkillRun(False, f"the {truth.robot_at} has no drawer in the robot map {self.places.source}")
        if action is not None:
            return self.follow(
                f"{action} the drawer", drawer_motion(place.drawer, action == OPEN, self.arm, self.drawer_settings)
            )
        held = self.sim.holding()
        if held is None:
            return SkillRun(False, "put in the drawer: the gripper holds nothing")
        model = self.sim.layout.models[self.sim.built.labels[held]]
        try:
            spot = self._drawer_spot(place, math.hypot(model.extents[0], model.extents[1]) / 2.0)
        except NoFreeSpot as error:
            return SkillRun(False, f"put {held} in the drawer: {error}")
        return self.follow(f"put {held} in the drawer", manipulation.place_motion(spot, model.height, self.arm))

    @property
    def places(self) -> PlaceMap:
        if self._places is None:
            self._places = load_place_map(None, self.sim.kitchen.config)
        return self._places

    # ----- helpers ------------------------------------------------------------------------------------------
    def _drawer_spot(self, place: Place, held_radius: float) -> Pose:
        """The free spot of the drawer's interior, clear of what lies in the drawer (the executor remembers
        what it put there; here the simulation knows)."""
        assert place.drawer is not None
        contents_at = self.sim.kitchen.config.drawer.contents_at if self.sim.kitchen.config.drawer else ""
        interior = place.drawer.interior
        lying = []
        for obj in self.sim.truth().objects:
            if obj.at != contents_at:
                continue
            model = self.sim.layout.models[obj.label]
            x, y, _ = obj.position
            pose = Pose(interior.frame, x, y, interior.z + model.height / 2.0, interior.orientation)
            footprint = (model.extents[0], model.extents[1])
            lying.append(PerceivedObject(obj.id, obj.label, contents_at, pose, model.height, footprint))
        return free_spot(interior, place.drawer.interior_area, place.heading, held_radius, lying)

    def follow(self, skill: str, motions: list[manipulation.Motion]) -> SkillRun:
        """Run ``robot_motion`` motions as physics_sim runs the goals they become (module docstring)."""
        run = SkillRun(True, "")
        sim = self.sim
        for step in motions:
            if isinstance(step, manipulation.GripperMove):
                motion = sim.gripper(close=step.position <= GRIPPER_OPEN_ABOVE)
            elif isinstance(step, manipulation.JointMove):
                motion = sim.move_joints(list(step.positions))
            else:
                pose = step.pose
                motion = sim.move_arm((pose.x, pose.y, pose.z), pose.orientation, EE_LINK)
            if not self._primitive(run, f"{skill} ({step.phase})", motion):
                return run
            if isinstance(step, manipulation.GripperMove) and step.grasp and sim.truth().grasped is None:
                run.success, run.message = False, f"{skill} ({step.phase}): the gripper closed on nothing"
                return run
        run.message = f"{skill}: done"
        return run

    def _primitive(self, run: SkillRun, skill: str, motion: Motion) -> bool:
        self.sim.run(motion, MOTION_TIMEOUT_S)
        run.primitives += 1
        if motion.outcome is not Outcome.SUCCEEDED:
            run.success = False
            run.message = f"{skill}: {motion.outcome.value}: {motion.message}"
            return False
        return True

    def _grasp_yaw(self, shape: str, orientation: tuple[float, ...]) -> float:
        """Across a box's width; for round objects the robot's own heading (the wrist's easiest turn)."""
        preferred = self.sim.robot.pose.yaw + math.pi / 2
        if shape != "box":
            return preferred
        object_yaw = pb.getEulerFromQuaternion(orientation)[2]
        candidates = (object_yaw, object_yaw + math.pi)
        return min(candidates, key=lambda c: abs((c - preferred + math.pi) % (2 * math.pi) - math.pi))

    def _free_spot(self, place: str, held: str) -> tuple[float, float]:
        """The first slot of ``place`` at least 9 cm from every object lying there."""
        sim = self.sim
        piece = sim.layout.furniture[place]
        lying = [o.position for o in sim.truth().objects if o.at == place and o.id != held]
        for local in sim.layout.slots(place, 12):
            x, y = piece.to_map(*local)
            if all(math.hypot(x - p[0], y - p[1]) >= 0.09 for p in lying):
                return x, y
        return piece.to_map(*sim.layout.slots(place, 1)[0])
