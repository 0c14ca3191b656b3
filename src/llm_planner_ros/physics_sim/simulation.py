"""``PhysicsKitchen``: the kitchen as a PyBullet world with a mobile manipulator, its motion primitives,
cameras and ground truth. ROS-free; ``physics_sim`` is a thin adapter around it.

    sim = PhysicsKitchen.from_files(episode_file="domains/saycan_kitchen/dev.yaml", episode_id="sp-01")
    motion = sim.run(sim.navigate(sim.standing_pose("far counter")))   # steps until it ends
    motion.outcome, motion.message                                       # Outcome.SUCCEEDED, "reached ..."
    sim.render("head").rgb                                               # (240, 320, 3) uint8
    sim.truth().world(sim.kitchen)                                       # domain World of the physics state

Grasping: closing the gripper drives the fingers with a bounded force until they stop. If both fingers
then touch the same object (or the drawer's handle), a fixed constraint attaches it to the hand; the
fingers closing on nothing, or on two different things, attach nothing. Opening removes the
constraint, so a released object falls, topples or rolls where physics takes it. The fingers ignore a
released object until they are clear of it: the constraint lets it sink a little into a finger's
mesh while held, and that contact otherwise kept a can hanging from the open finger, lifted it
with the retreating hand and dropped it off the table.
"""

from __future__ import annotations

import math
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pybullet as pb

from llm_planner_ros.domain.definition import Domain, load_domain_files
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.domain.layout import DomainLayout, Pose2D, load_layout
from llm_planner_ros.domain.scene import Scene
from llm_planner_ros.domain.skill import FACTS, SkillRule
from llm_planner_ros.domain.world import World
from llm_planner_ros.physics_sim.builder import BuiltKitchen, KitchenBuilder
from llm_planner_ros.physics_sim.camera import CameraSpec, Frame, render
from llm_planner_ros.physics_sim.motions import ArmMotion, BaseMotion, GripperMotion, Immediate, Motion, Outcome
from llm_planner_ros.physics_sim.navigation import NoPathError, OccupancyGrid, plan_path
from llm_planner_ros.physics_sim.robot import (
    BASE_SIZE,
    FINGER_JOINTS,
    GRASP_LINK,
    HAND_LINK,
    IK_RESTART_SEEDS,
    IK_SEED,
    TUCKED,
    MobileManipulator,
)
from llm_planner_ros.physics_sim.truth import AT_TOLERANCE_M, ObjectTruth, Truth, nearest_place, place_of_point, to_held

# 120 Hz keeps stacked and gripped objects steady and runs twice as fast as PyBullet's default 240 Hz.
DEFAULT_TIME_STEP = 1.0 / 120.0
JOINT_ACCELERATION = 4.0  # rad/s^2: the hand slows down at most about 3 m/s^2, a can stands
ROBOT_RADIUS = math.hypot(BASE_SIZE[0], BASE_SIZE[1]) / 2
COLLISION_CHECK_EVERY = 4  # steps between base collision checks while driving (2 cm at 0.5 m/s)
IK_POSITION_TOLERANCE = 0.01
IK_ANGLE_TOLERANCE = 0.1
IK_ROUNDS = 8
PENETRATION = -0.005  # closer than this counts as a collision when checking arm goals
DRAWER_HANDLE = "drawer handle"
# How long a skill that changes facts only takes (a door opened, a button pressed), in simulated seconds.
FACT_SKILL_S = 2.0
# The box a scene's ``blocked`` place gets, centred where the robot stands to work there (metres).
BLOCKING_BOX = (0.5, 0.5, 0.5)


class PhysicsKitchen:
    """One PyBullet world (DIRECT, headless) of a kitchen scene; see the module docstring.

    Motions of the base, the arm and the gripper run concurrently, at most one of each kind; starting a
    motion of a kind that is running cancels the running one. ``step`` advances every running motion
    and the physics by one ``time_step``.
    """

    def __init__(
        self,
        kitchen: Domain,
        layout: DomainLayout,
        scene: Scene,
        episode: str = "",
        image_size: tuple[int, int] = (320, 240),
        navigation_speed: float = 0.5,
        joint_speed: float = 1.0,
        joint_acceleration: float = JOINT_ACCELERATION,
        time_step: float = DEFAULT_TIME_STEP,
    ) -> None:
        self.kitchen = kitchen
        self.layout = layout
        self.cameras = {
            "head": CameraSpec("head", image_size[0], image_size[1], 55.0, near=0.05, far=12.0),
            "wrist": CameraSpec("wrist", image_size[0], image_size[1], 70.0, near=0.02, far=3.0),
        }
        self.navigation_speed = navigation_speed
        self.joint_speed = joint_speed
        self.joint_acceleration = joint_acceleration
        self.time_step = time_step
        self.client = pb.connect(pb.DIRECT)
        self._assets = Path(tempfile.mkdtemp(prefix="physics_sim_"))
        self._builder = KitchenBuilder(self.client, layout, self._assets)
        self._motions: dict[str, Motion] = {}
        self._obstacles: list[int] = []
        self._grasp: tuple[int, str, int] | None = None  # (constraint, what, body)
        self._releasing: list[int] = []  # released bodies the fingers ignore until they are clear of them
        self._robot: MobileManipulator | None = None
        # Called after every step (a camera publisher, a bench's frame clock); they may render.
        self.step_listeners: list[Callable[[PhysicsKitchen], None]] = []
        self.load(scene, episode)

    @classmethod
    def from_files(
        cls,
        episode_file: str = "",
        episode_id: str = "",
        world_file: str | None = None,
        skills_file: str | None = None,
        layout_file: str | None = None,
        **options: object,
    ) -> PhysicsKitchen:
        """The kitchen of the world file with an episode's initial scene (or the world's default scene)."""
        kitchen = load_domain_files(world_file, skills_file)
        layout = load_layout(kitchen.config, layout_file)
        scene, episode = scene_of(kitchen, episode_file, episode_id)
        return cls(kitchen, layout, scene, episode, **options)  # type: ignore[arg-type]

    def close(self) -> None:
        if pb.isConnected(self.client):
            pb.disconnect(self.client)
        shutil.rmtree(self._assets, ignore_errors=True)

    # ----- the world ----------------------------------------------------------------------------------------
    def load(self, scene: Scene, episode: str = "") -> None:
        """Put the world in ``scene``'s initial state (time back to 0, motions dropped). The kitchen's
        bodies are rebuilt; the robot (slow to load) stays and is reset."""
        c = self.client
        if self._robot is None:
            pb.setGravity(0, 0, -9.81, physicsClientId=c)
            pb.setTimeStep(self.time_step, physicsClientId=c)
            pb.setPhysicsEngineParameter(numSolverIterations=30, physicsClientId=c)
        else:
            self._drop_grasp()
            # A collision filter outlives its body, and a rebuilt body may get the id of a released one.
            for body in self._releasing:
                self._set_finger_collisions(body, True)
            for body in (
                self.built.floor,
                *self.built.furniture.values(),
                *self.built.objects.values(),
                *self._obstacles,
            ):
                pb.removeBody(body, physicsClientId=c)
        drawer = self.kitchen.config.drawer
        self.built: BuiltKitchen = self._builder.build(
            scene, drawer.location if drawer else None, drawer.contents_at if drawer else None
        )
        standing = self.layout.furniture[scene.robot_at].standing
        if self._robot is None:
            self._robot = MobileManipulator(c, standing)
        else:
            self._robot.reset(standing)
        self.robot = self._robot
        self.episode = episode
        self.time = 0.0
        self.steps = 0
        self._motions = {}
        self._obstacles = []
        self._releasing = []
        self._places = self.kitchen.config.places(scene.has_drawer)
        self._visited = [scene.robot_at]
        self.facts = scene.facts
        self._body_names = {body: object_id for object_id, body in self.built.objects.items()}
        self._body_names.update({body: place for place, body in self.built.furniture.items()})
        self._body_names[self.built.floor] = "floor"
        self._body_names[self.robot.base] = "robot"
        self._body_names[self.robot.arm] = "robot"
        for place in scene.blocked:
            standing = self.layout.furniture[place].standing
            self.add_obstacle((standing.x, standing.y), BLOCKING_BOX)
        held = scene.holding
        if held is not None:
            self._put_in_hand(held.id)
        for _ in range(int(0.25 / self.time_step)):  # let objects settle on their supports
            pb.stepSimulation(physicsClientId=c)

    @property
    def obstacles(self) -> tuple[int, ...]:
        """The bodies of the boxes on the floor: a scene's ``blocked`` places' and those added since the load."""
        return tuple(self._obstacles)

    def add_obstacle(self, center: Sequence[float], size: Sequence[float]) -> int:
        """A static box on the floor (in the robot's way); navigation plans around it or fails."""
        body = self._builder.obstacle(center, size)
        self._obstacles.append(body)
        self._body_names[body] = f"obstacle {len(self._obstacles)}"
        return body

    def standing_pose(self, place: str) -> Pose2D:
        """Where the robot stands to work at ``place`` (facing its furniture)."""
        return self.layout.furniture[place].standing

    # ----- stepping -----------------------------------------------------------------------------------------
    def step(self, count: int = 1) -> None:
        for _ in range(count):
            for motion in list(self._motions.values()):
                motion.advance(self.time_step)
            pb.stepSimulation(physicsClientId=self.client)
            self.time += self.time_step
            self.steps += 1
            self._motions = {kind: m for kind, m in self._motions.items() if not m.done}
            if self._releasing:
                self._collide_with_fingers_once_clear()
            for listener in self.step_listeners:
                listener(self)

    def run(self, motion: Motion, timeout_s: float = 60.0) -> Motion:
        """Step until ``motion`` ends (cancelled after ``timeout_s`` simulated seconds)."""
        end = self.time + timeout_s
        while not motion.done and self.time < end:
            self.step()
        motion.cancel()
        return motion

    def busy(self) -> bool:
        return bool(self._motions)

    def _start(self, kind: str, motion: Motion) -> Motion:
        previous = self._motions.pop(kind, None)
        if previous is not None:
            previous.cancel()
        if not motion.done:
            self._motions[kind] = motion
        return motion

    # ----- navigation ---------------------------------------------------------------------------------------
    def navigate(self, goal: Pose2D) -> Motion:
        """Drive to ``goal``: a straight line when free, else an A* path on the occupancy grid; NO_PATH
        (without moving) when there is none, BLOCKED when something is hit on the way."""
        grid = self.occupancy()
        start = self.robot.pose
        try:
            waypoints = plan_path(grid, (start.x, start.y), (goal.x, goal.y))
        except NoPathError as error:
            return Immediate(Outcome.NO_PATH, str(error))
        motion = BaseMotion(
            self.robot, waypoints, goal.yaw, self.base_collision, self.navigation_speed, 1.2, COLLISION_CHECK_EVERY
        )
        self._visit_on_arrival(motion, goal)
        return self._start("base", motion)

    def _visit_on_arrival(self, motion: BaseMotion, goal: Pose2D) -> None:
        finish = motion.finish

        def finish_and_visit(outcome: Outcome, message: str) -> None:
            finish(outcome, message)
            place, distance = nearest_place(self.layout, self.robot.pose, self._places)
            if distance <= AT_TOLERANCE_M and place not in self._visited:
                self._visited.append(place)

        motion.finish = finish_and_visit  # type: ignore[method-assign]

    def occupancy(self) -> OccupancyGrid:
        """The floor's occupancy: every body except the robot and what it holds, up to the robot's height."""
        boxes = []
        for body in self._static_and_loose_bodies():
            for link in range(-1, pb.getNumJoints(body, physicsClientId=self.client)):
                low, high = pb.getAABB(body, link, physicsClientId=self.client)
                if low[2] < BASE_SIZE[2] + 0.05 and high[2] > 0.005:
                    boxes.append((low[0], low[1], high[0], high[1]))
        xs = [p.center[0] for p in self.layout.furniture.values()]
        ys = [p.center[1] for p in self.layout.furniture.values()]
        bounds = (min(xs) - 2.0, min(ys) - 2.0, max(xs) + 2.0, max(ys) + 2.0)
        return OccupancyGrid.of_boxes(boxes, ROBOT_RADIUS, bounds)

    def base_collision(self) -> str | None:
        """The name of what the robot's base or arm overlaps now, or None."""
        c = self.client
        candidates = set(self._static_and_loose_bodies())
        for part in (self.robot.base, self.robot.arm):
            # The broad phase first: only bodies whose bounding boxes overlap the part's are tested.
            low, high = _aabb(part, c)
            for body, _link in pb.getOverlappingObjects(low, high, physicsClientId=c) or ():
                if body in candidates and any(
                    p[8] < 0.0 for p in pb.getClosestPoints(part, body, 0.0, physicsClientId=c)
                ):
                    return self._body_names.get(body, f"body {body}")
        return None

    def _static_and_loose_bodies(self) -> list[int]:
        held = {self._grasp[2]} if self._grasp else set()
        bodies = [*self.built.furniture.values(), *self._obstacles]
        bodies += [b for b in self.built.objects.values() if b not in held]
        return bodies

    # ----- arm ----------------------------------------------------------------------------------------------
    def move_arm(
        self,
        position: Sequence[float],
        orientation: Sequence[float],
        link: int = GRASP_LINK,
        plan_only: bool = False,
        allowed: Sequence[int] = (),
    ) -> Motion:
        """Move ``link`` to a pose (map frame): NO_IK when out of reach, IN_COLLISION when the goal or the
        straight joint-space way to it hits the world (bodies in ``allowed`` may be touched), else the
        motion (already SUCCEEDED when ``plan_only``)."""
        start = self.robot.arm_positions()
        allowed = [*allowed, *self._riding_with_the_grasp()]
        state = pb.saveState(physicsClientId=self.client)
        try:
            solution = self._solve_arm(position, orientation, link, start, allowed)
            if isinstance(solution, Immediate):
                return solution
            path = joint_path(start, solution)
            points = [start, *path]
            for index, (a, b) in enumerate(zip(points, points[1:], strict=False)):
                for fraction in (0.25, 0.5, 0.75, 1.0):
                    self.robot.reset_arm([u + fraction * (v - u) for u, v in zip(a, b, strict=True)])
                    hit = self._arm_collision(allowed)
                    if hit is not None:
                        last = index == len(path) - 1 and fraction == 1.0
                        return Immediate(
                            Outcome.IN_COLLISION,
                            f"the arm would hit {hit} at {'the goal pose' if last else 'a point on the way'}",
                        )
        finally:
            pb.restoreState(state, physicsClientId=self.client)
            pb.removeState(state, physicsClientId=self.client)
        if plan_only:
            return Immediate(Outcome.SUCCEEDED, "planned (not executed)")
        return self._start("arm", ArmMotion(self.robot, path, self.joint_speed, self.joint_acceleration))

    def _solve_arm(
        self,
        position: Sequence[float],
        orientation: Sequence[float],
        link: int,
        start: Sequence[float],
        allowed: Sequence[int],
    ) -> list[float] | Immediate:
        """Joint angles putting ``link`` at the pose with the arm clear of the world, or the failed
        outcome (NO_IK: no seed reaches it; IN_COLLISION: every answer hits something). Leaves the arm
        teleported: the caller restores the state.

        PyBullet's IK starts from the current joints: starting from one seed first keeps nearby goals
        on one branch (elbow up, in front) whatever pose the arm is in now; re-solving from its own
        answer converges. Where that seed finds nothing clear (a hand level with the drawer's handle,
        facing it) the arm's own pose is tried, which keeps a pull's segments on the branch of its
        grasp, then fixed restarts, as MoveIt's IK restarts from random seeds."""
        closest = (math.inf, math.inf)
        hit = None
        for seed in (IK_SEED, start, *IK_RESTART_SEEDS):
            self.robot.reset_arm(seed)
            for _ in range(IK_ROUNDS):
                solution = self.robot.solve_ik(link, position, orientation)
                self.robot.reset_arm(solution)
                reached, turned = self.robot.link_pose(link)
                error = math.dist(reached, position)
                angle = _angle_between(turned, orientation)
                if error <= IK_POSITION_TOLERANCE / 4 and angle <= IK_ANGLE_TOLERANCE / 4:
                    break
            if error > IK_POSITION_TOLERANCE or angle > IK_ANGLE_TOLERANCE:
                closest = min(closest, (error, angle))
                continue
            hit = self._arm_collision(allowed)
            if hit is None:
                return solution
        if hit is not None:
            return Immediate(Outcome.IN_COLLISION, f"the arm would hit {hit} at the goal pose")
        return Immediate(
            Outcome.NO_IK,
            f"pose ({', '.join(f'{v:.2f}' for v in position)}) is out of reach: the closest the arm gets "
            f"is {closest[0] * 100:.1f} cm and {math.degrees(closest[1]):.0f} deg away",
        )

    def move_joints(self, positions: Sequence[float]) -> Motion:
        """Move the arm to joint angles (the seven Panda joints), e.g. ``robot.TUCKED``."""
        return self._start(
            "arm",
            ArmMotion(
                self.robot,
                joint_path(self.robot.arm_positions(), positions),
                self.joint_speed,
                self.joint_acceleration,
            ),
        )

    def _riding_with_the_grasp(self) -> list[int]:
        """What moves with what the hand holds: while it holds the drawer's handle, whatever lies in the
        drawer slides with the drawer, so a hand goal checked against where those objects are now (a push
        ending where a can stands before the push) would be a collision that never happens."""
        if self._grasp is None or self._grasp[2] != self.built.drawer_body:
            return []
        return self._bodies_in_drawer()

    def _bodies_in_drawer(self) -> list[int]:
        contents_at = self.kitchen.config.drawer.contents_at if self.kitchen.config.drawer else None
        return [self.built.objects[o.id] for o in self.truth().objects if o.at == contents_at]

    def _arm_collision(self, allowed: Sequence[int]) -> str | None:
        # The arm reaching low in front (to a drawer's handle) can fold into its own base.
        if self.robot.arm_hits_base(PENETRATION):
            return "the robot's base"
        skip = set(allowed) | ({self._grasp[2]} if self._grasp else set())
        for body in self._static_and_loose_bodies():
            if body in skip:
                continue
            points = pb.getClosestPoints(self.robot.arm, body, 0.0, physicsClientId=self.client)
            if any(p[8] < PENETRATION for p in points):
                return self._body_names.get(body, f"body {body}")
        return None

    # ----- gripper ------------------------------------------------------------------------------------------
    def gripper(self, close: bool) -> Motion:
        """Close (grasp whatever both fingers touch) or open (release what is held) the gripper."""
        if close:
            motion = GripperMotion(self.robot, 0.0, self._attach_if_grasped)
        else:
            self._release()
            motion = GripperMotion(self.robot, 0.08, lambda: (Outcome.SUCCEEDED, "opened"))
        return self._start("gripper", motion)

    def _attach_if_grasped(self) -> tuple[Outcome, str]:
        if self._grasp is not None:
            return Outcome.SUCCEEDED, f"still holding {self._grasp[1]}"
        touched = []
        for finger in FINGER_JOINTS:
            contacts = pb.getContactPoints(bodyA=self.robot.arm, linkIndexA=finger, physicsClientId=self.client)
            touched.append({(p[2], p[4]) for p in contacts if p[2] not in (self.robot.arm, self.robot.base)})
        common = touched[0] & touched[1]
        if not common:
            self.robot.command_fingers(0.0, force=5.0)
            return Outcome.SUCCEEDED, "closed on nothing"
        body, link = sorted(common)[0]
        name = DRAWER_HANDLE if body == self.built.drawer_body else self._body_names.get(body, f"body {body}")
        self._attach(body, link, name)
        return Outcome.SUCCEEDED, f"grasped {name}"

    def _attach(self, body: int, link: int, name: str) -> None:
        c = self.client
        hand_position, hand_orientation = pb.getLinkState(self.robot.arm, HAND_LINK, physicsClientId=c)[:2]
        if link == -1:
            target_position, target_orientation = pb.getBasePositionAndOrientation(body, physicsClientId=c)
        else:
            target_position, target_orientation = pb.getLinkState(body, link, physicsClientId=c)[:2]
        inverse = pb.invertTransform(hand_position, hand_orientation)
        relative_position, relative_orientation = pb.multiplyTransforms(*inverse, target_position, target_orientation)
        constraint = pb.createConstraint(
            self.robot.arm,
            HAND_LINK,
            body,
            link,
            pb.JOINT_FIXED,
            [0, 0, 0],
            relative_position,
            [0, 0, 0],
            relative_orientation,
            [0, 0, 0, 1],
            physicsClientId=c,
        )
        pb.changeConstraint(constraint, maxForce=300, physicsClientId=c)
        self._grasp = (constraint, name, body)
        # Hold the fingers where they stopped: the constraint carries the load.
        self.robot.command_fingers(self.robot.finger_opening() / 2, force=10.0)

    def _release(self) -> None:
        """Let go of what is held; the fingers ignore it until they are clear of it."""
        body = self._drop_grasp()
        if body is not None:
            self._set_finger_collisions(body, False)
            self._releasing.append(body)

    def _drop_grasp(self) -> int | None:
        """Remove the grasp constraint; returns the body that was held (None: nothing was)."""
        if self._grasp is None:
            return None
        constraint, _name, body = self._grasp
        pb.removeConstraint(constraint, physicsClientId=self.client)
        self._grasp = None
        return body

    def _collide_with_fingers_once_clear(self) -> None:
        for body in list(self._releasing):
            near = [
                pb.getClosestPoints(self.robot.arm, body, 0.002, linkIndexA=finger, physicsClientId=self.client)
                for finger in FINGER_JOINTS
            ]
            if not any(near):
                self._set_finger_collisions(body, True)
                self._releasing.remove(body)

    def _set_finger_collisions(self, body: int, enable: bool) -> None:
        for finger in FINGER_JOINTS:
            for link in range(-1, pb.getNumJoints(body, physicsClientId=self.client)):
                pb.setCollisionFilterPair(self.robot.arm, body, finger, link, int(enable), physicsClientId=self.client)

    def _put_in_hand(self, object_id: str) -> None:
        """Start an episode with the object held: placed between the open fingers and attached."""
        c = self.client
        position, orientation = self.robot.link_pose(GRASP_LINK)
        body = self.built.objects[object_id]
        pb.resetBasePositionAndOrientation(body, position, orientation, physicsClientId=c)
        self._attach(body, -1, object_id)

    # ----- sensing ------------------------------------------------------------------------------------------
    def render(self, camera: str) -> Frame:
        """A frame of the ``head`` or ``wrist`` camera."""
        spec = self.cameras[camera]
        if camera == "head":
            eye, target = self.robot.head_camera_pose()
            return render(self.client, spec, eye, target)
        eye, target, up = self.robot.wrist_camera_pose()
        return render(self.client, spec, eye, target, up)

    def body_name(self, body: int) -> str | None:
        """The object id, place or ``robot``/``floor`` of a body id (segmentation images hold body ids)."""
        return self._body_names.get(body)

    def holding(self) -> str | None:
        """Id of the object attached to the gripper (not the drawer handle), or None."""
        if self._grasp is None or self._grasp[1] == DRAWER_HANDLE:
            return None
        return self._grasp[1]

    def drawer_extension(self) -> float | None:
        if self.built.drawer_body is None:
            return None
        return float(pb.getJointState(self.built.drawer_body, 0, physicsClientId=self.client)[0])

    def set_drawer_extension(self, extension: float) -> None:
        """Slide the drawer to ``extension`` (0 closed, ``layout.drawer_travel`` fully open) with what lies
        in it; ValueError when the scene has no drawer or the extension is outside its travel."""
        body, c = self.built.drawer_body, self.client
        if body is None:
            raise ValueError("the scene has no drawer: load one whose drawer state is open or closed")
        if not 0.0 <= extension <= self.layout.drawer_travel:
            raise ValueError(
                f"drawer extension {extension:.3f} m outside its travel 0 to {self.layout.drawer_travel} m"
            )
        before = pb.getLinkState(body, 0, physicsClientId=c)[0]
        inside = self._bodies_in_drawer()
        pb.resetJointState(body, 0, extension, physicsClientId=c)
        after = pb.getLinkState(body, 0, physicsClientId=c)[0]
        for item in inside:
            position, orientation = pb.getBasePositionAndOrientation(item, physicsClientId=c)
            moved = [p + a - b for p, a, b in zip(position, after, before, strict=True)]
            pb.resetBasePositionAndOrientation(item, moved, orientation, physicsClientId=c)

    def truth(self) -> Truth:
        """Where everything is now, named as the kitchen domain names it (llm_planner_ros.physics_sim.truth)."""
        c = self.client
        holding = self.holding()
        extension = self.drawer_extension()
        drawer_open = None if extension is None else extension > self.layout.drawer_travel / 2
        drawer_config = self.kitchen.config.drawer
        drawer = (self.built.drawer_place, extension) if self.built.drawer_place and extension is not None else None
        objects = []
        for object_id, body in self.built.objects.items():
            position, orientation = pb.getBasePositionAndOrientation(body, physicsClientId=c)
            z_axis = pb.getMatrixFromQuaternion(orientation)[8]
            touching = sorted(
                {self._body_names.get(p[2], f"body {p[2]}") for p in pb.getContactPoints(bodyA=body, physicsClientId=c)}
            )
            at = place_of_point(
                self.layout, position, self._places, drawer, drawer_config.contents_at if drawer_config else None
            )
            objects.append(
                ObjectTruth(
                    object_id,
                    self.built.labels[object_id],
                    tuple(position),
                    tuple(orientation),
                    at,
                    abs(z_axis) > 0.9,
                    tuple(touching),
                )
            )
        place, _ = nearest_place(self.layout, self.robot.pose, self._places)
        return Truth(
            time=self.time,
            episode=self.episode,
            robot=self.robot.pose,
            robot_at=place,
            holding=holding,
            grasped=self._grasp[1] if self._grasp else None,
            drawer_open=drawer_open,
            drawer_extension=extension,
            visited=tuple(self._visited),
            objects=tuple(to_held(objects, holding)),
            facts=self.facts,
        )

    def apply_facts(self, text: str) -> str:
        """Carry out a skill that changes declared facts only (the office's "open the door"), checked against
        the world the physics state is read as: facts have no bodies (docs/physics_sim.md), and the caller
        lets ``FACT_SKILL_S`` pass first. SkillError (unknown skill, unmet precondition) changes nothing;
        ValueError when the skill moves something (its motions do that)."""
        world = self.truth().world(self.kitchen)
        rule = self.check_facts_skill(text, world)
        world.apply(rule.skill)
        self.facts = world.facts
        changed = ", ".join(str(effect) for effect in rule.effects)
        return f"{text!r} done: {changed}"

    def check_facts_skill(self, text: str, world: World | None = None) -> SkillRule:
        """The rule of a skill that changes declared facts only, checked against ``world`` (None: the world
        the physics state is read as now); SkillError or ValueError as ``apply_facts`` says."""
        rule = (world or self.truth().world(self.kitchen)).check(text)
        if rule.motion != FACTS:
            raise ValueError(f"{text!r} moves the robot or an object ({rule.motion}): run its motions instead")
        if rule.changes_objects:
            changed = ", ".join(str(effect) for effect in rule.effects)
            raise ValueError(
                f"{text!r} makes, uses up or puts down an object without a motion ({changed}), which the physics "
                "simulation has no bodies for: run the domain with --sim symbolic, or on a robot bind the skill to "
                "an action (docs/domains.md)"
            )
        return rule

    def tuck(self) -> Motion:
        return self.move_joints(TUCKED)


def joint_path(start: Sequence[float], goal: Sequence[float]) -> list[list[float]]:
    """Waypoints from ``start`` to ``goal``. Leaving the tucked pose the arm first turns at the shoulder
    while still folded, then unfolds; going to it, it first folds at its present heading, then turns:
    the straight joint-space line would sweep a half-unfolded arm across whatever stands in front."""
    if _folded(start) and not _folded(goal):
        return [[goal[0], *start[1:]], list(goal)]
    if _folded(goal) and not _folded(start):
        return [[start[0], *goal[1:]], list(goal)]
    return [list(goal)]


def _folded(joints: Sequence[float]) -> bool:
    return all(abs(a - b) < 0.15 for a, b in zip(joints[1:], TUCKED[1:], strict=True))


def scene_of(kitchen: Domain, episode_file: str, episode_id: str) -> tuple[Scene, str]:
    """The initial scene of an episode (or the world's default scene when no file); ValueError says why not."""
    if not episode_file:
        if episode_id:
            raise ValueError(f"episode_id {episode_id!r} given without episode_file")
        return kitchen.world().scene(), ""
    episode = load_episodes(episode_file, kitchen).select(episode_id)
    return episode.initial, episode.id


def _aabb(body: int, client: int) -> tuple[list[float], list[float]]:
    """The bounding box of all links of a body."""
    boxes = [
        pb.getAABB(body, link, physicsClientId=client)
        for link in range(-1, pb.getNumJoints(body, physicsClientId=client))
    ]
    return [min(b[0][i] for b in boxes) for i in range(3)], [max(b[1][i] for b in boxes) for i in range(3)]


def _angle_between(a: Sequence[float], b: Sequence[float]) -> float:
    dot = abs(sum(x * y for x, y in zip(a, b, strict=True)))
    return 2 * math.acos(min(1.0, dot))
