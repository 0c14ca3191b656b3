"""The ``moveit`` backend: pick, put down and the drawer skills as MoveIt 2 MoveGroup goals and gripper commands.

Each skill is a motion sequence (llm_planner_ros.robot_motion.manipulation): every arm waypoint is one MoveGroup goal
on ``move_group_action`` (plan and execute; the pose is a position constraint, a sphere of
``position_tolerance`` around the target, plus an orientation constraint on ``ee_link``; the closing
stow step a joint-constraint goal to ``stow_joints``), every gripper step one control_msgs
GripperCommand goal on ``gripper_action``. Tall objects are grasped ``grasp_depth`` below their top
(the object's pose and ``size.z`` on ``/scene/objects``), the fingers turned to close across the base's
heading at the place (``turn_grasp``; llm_planner_ros.robot_motion.manipulation.grasp_yaw), and a put down opens them
along the heading, away from the objects free_spot sets beside it. The object to pick comes
from ``/scene/objects`` (its pose), the surface to put down on from the place map at the robot's
place: its point, or the free spot of its area nearest the point, clear of what perception reports
standing there (llm_planner_ros.robot_motion.free_spot; the drawer's interior likewise). The drawer skills
(llm_planner_ros.robot_motion.drawer) work the drawer of the robot's place in the place map: each pull or push
segment is a pose goal whose path constraints keep the hand's orientation and its position in a thin
box around the straight segment (MoveIt samples such paths with IK). Progress is
the share of steps done, the phase the step's name; a cancel is relayed to the running goal (the arm
stops where it is) and ends the skill CANCELED naming the step; a MoveIt error code or a grasp that
closed on nothing fails the skill naming the step and the reason; a pull or push that fails lets go of
the handle first, so the base is never left tied to the drawer. A skill that failed after moving the
arm then sends it to the named state ``stow_named_target`` (a MoveGroup goal whose constraints carry
only the name, as an SRDF group state), so the next skill does not start from where this one stopped;
the message keeps the original failure and adds how that went. A canceled skill is not stowed: a
cancel may be the e-stop, after which the arm must not move.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from control_msgs.action import GripperCommand
from moveit_msgs.action import MoveGroup
from moveit_msgs.msg import (
    BoundingVolume,
    Constraints,
    JointConstraint,
    MoveItErrorCodes,
    OrientationConstraint,
    PositionConstraint,
)
from rclpy.callback_groups import CallbackGroup
from rclpy.node import Node
from shape_msgs.msg import SolidPrimitive

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.skill import DRAWER, PICK, PLACE, Skill
from llm_planner_ros.robot_motion.drawer import PUT, DrawerSettings, drawer_action, drawer_skill_motion
from llm_planner_ros.robot_motion.error_codes import moveit_failure
from llm_planner_ros.robot_motion.free_spot import NoFreeSpot, free_spot
from llm_planner_ros.robot_motion.geometry import Pose, yaw_quaternion
from llm_planner_ros.robot_motion.manipulation import (
    ArmMove,
    ArmSettings,
    GripperMove,
    JointMove,
    LinearMove,
    Motion,
    grasp_failure,
    place_motion,
    release_yaw,
)
from llm_planner_ros.robot_motion.navigation import DRAWER_CONTENTS, MotionError
from llm_planner_ros.robot_motion.object_heights import ObjectHeightsError, load_object_heights
from llm_planner_ros.robot_motion.pick import plan_pick
from llm_planner_ros.robot_motion.place_map import Area, Place, PlaceMap
from llm_planner_ros.robot_motion.scene_objects import PerceivedObject
from llm_planner_ros.ros.node_startup import StartupError
from skill_executors.action_call import ActionCall, CallLimits
from skill_executors.backend import ProgressCallback, SkillBackend, SkillOutcome, Status
from skill_executors.robot_view import RobotView
from skill_executors.ros_poses import pose_stamped


def arm_settings(p: dict[str, Any]) -> ArmSettings:
    """The grasp geometry and gripper commands of the executor's parameters."""
    x, y, z, w = (float(c) for c in p["grasp_orientation"])
    names, stow = tuple(p["stow_joint_names"]), tuple(float(a) for a in p["stow_joints"])
    if stow and len(stow) != len(names):
        raise StartupError(
            f"stow_joints has {len(stow)} angles for {len(names)} stow_joint_names: give one angle per joint "
            "(or stow_joints: [] for no stow step)"
        )
    return ArmSettings(
        grasp_orientation=(x, y, z, w),
        grasp_offset=p["grasp_offset"],
        approach_distance=p["approach_distance"],
        lift_distance=p["lift_distance"],
        gripper_open=p["gripper_open"],
        gripper_closed=p["gripper_closed"],
        gripper_max_effort=p["gripper_max_effort"],
        grasp_depth=p["grasp_depth"],
        finger_reach=p["finger_reach"],
        surface_clearance=p["surface_clearance"],
        place_clearance=p["place_clearance"],
        turn_grasp=p["turn_grasp"],
        max_grasp_width=p["max_grasp_width"],
        tall_ratio=p["tall_grasp_ratio"],
        stow_joints=stow,
        stow_joint_names=names,
    )


def drawer_settings(p: dict[str, Any]) -> DrawerSettings:
    """How the arm works a drawer's handle, from the executor's parameters."""
    return DrawerSettings(
        handle_approach_distance=p["handle_approach_distance"],
        pull_steps=p["drawer_pull_steps"],
        path_tolerance=p["drawer_path_tolerance"],
        handle_roll=p["handle_roll"],
    )


# A stored object counts as seen when perception reports one of its label this near where it was put.
SEEN_M = 0.1


class MoveItBackend(SkillBackend):
    """Runs pick / put down and the drawer skills with MoveIt's MoveGroup action and a GripperCommand action."""

    def __init__(
        self,
        node: Node,
        places: PlaceMap,
        view: RobotView,
        p: dict[str, Any],
        group: CallbackGroup,
        default_object_size: tuple[float, float, float],
        domain: Domain | None = None,
    ) -> None:
        self._library = domain.library if domain is not None else None
        limits = CallLimits(p["server_timeout_s"], p["motion_timeout_s"], server_lost_s=p["server_lost_s"])
        arm_fix = "start MoveIt's move_group or set the executor's move_group_action parameter"
        self._arm = ActionCall(node, MoveGroup, p["move_group_action"], group, limits, arm_fix)
        gripper_fix = "start the gripper controller or set the executor's gripper_action parameter"
        self._gripper = ActionCall(node, GripperCommand, p["gripper_action"], group, limits, gripper_fix)
        self._places = places
        self._view = view
        self._p = p
        self._settings = arm_settings(p)
        self._drawer_settings = drawer_settings(p)
        self._default_footprint = (default_object_size[0], default_object_size[1])
        self._default_height = default_object_size[2]
        try:
            self._heights = load_object_heights(
                p["object_heights_file"] or None, domain.config if domain is not None else None
            )
        except (ObjectHeightsError, OSError) as error:
            raise StartupError(f"cannot load the object-height catalogue: {error}") from error
        # What this backend put into the drawer: a head camera does not see into a drawer (perception
        # reports none of it), and the next put aimed at the same spot (drawer-06: the arm carrying a
        # tea hit the water bottle put there before). Kept until perception reports it or it is picked,
        # for the episode of the robot-state record (a simulator's reset starts another).
        self._stored: list[PerceivedObject] = []
        self._stored_episode = ""
        self._storing: PerceivedObject | None = None  # the put into the drawer being planned or run
        # The perceived height of the object the gripper closed on (None once it opens): the grasp was
        # placed for this height, so the put down lowers by it. Perception stops reporting an object once
        # it is held, and the kitchen's default height put a taller one into the surface (CONTROL_FAILED).
        self._grasped_height: float | None = None
        self._pick_height: float | None = None  # the height of the pick being planned or run
        self._state_timeout_s = p["server_timeout_s"]

    def execute(self, skill: Skill, report: ProgressCallback, should_cancel: Callable[[], bool]) -> SkillOutcome:
        missing = self._view.wait(self._state_timeout_s)
        if missing is not None:
            return SkillOutcome(Status.FAILED, f"{skill.text!r} not executed: {missing}")
        try:
            motions = self.motions(skill)
        except MotionError as error:
            return SkillOutcome(Status.FAILED, str(error))
        for index, motion in enumerate(motions):
            report(index / len(motions), motion.phase)
            ended = (
                self._grip(motion, should_cancel)
                if isinstance(motion, GripperMove)
                else self._arm_move(motion, should_cancel)
            )
            if isinstance(motion, GripperMove) and (motion.grasp or ended is None):
                # A close that held nothing, or any open, leaves the gripper empty.
                self._grasped_height = self._pick_height if motion.grasp and ended is None else None
            if ended is not None:
                message = f"{skill.text!r} stopped at {motion.phase!r}: {ended.message}"
                if isinstance(motion, LinearMove) and ended.status is Status.FAILED:
                    message += self._let_go(should_cancel)
                if ended.status is Status.FAILED and any(not isinstance(m, GripperMove) for m in motions[: index + 1]):
                    message += self._stow_named()
                return SkillOutcome(ended.status, message)
        report(1.0, "done")
        self._remember(skill)
        return SkillOutcome(Status.SUCCEEDED, f"{skill.text!r} done ({', '.join(m.phase for m in motions)})")

    def motions(self, skill: Skill) -> list[Motion]:
        """The motion sequence of a pick, put down or drawer skill in the current scene; MotionError says why
        there is none."""
        place, why = self._view.place()
        motion = self.motion_of(skill)
        if motion == PICK and skill.argument:
            try:
                plan = plan_pick(skill.argument, self._view.objects(), place, self._places, self._settings)
            except MotionError as error:
                raise MotionError(f"{skill.text!r}: {error}") from error
            self._pick_height = plan.target.height
            return plan.motions
        if motion == PLACE:
            entry = self._map_entry(skill, place, why)
            if entry is None or entry.surface is None:
                raise MotionError(
                    f"{skill.text!r}: the {place} has no surface in the place map {self._places.source}: "
                    "add surface: {x, y, z} to put objects down there"
                )
            spot = self._free_spot(skill, entry.surface, entry.surface_area, entry.heading)
            yaw = release_yaw(entry.heading, self._settings)
            return place_motion(spot, self._held_height(), self._settings, yaw)
        if motion == DRAWER:
            entry = self._map_entry(skill, place, why)
            if entry is None or entry.drawer is None:
                raise MotionError(
                    f"{skill.text!r}: the {place} has no drawer in the place map {self._places.source}: add "
                    "drawer: {handle: {x, y, z}, open_yaw, travel, interior: {x, y, z}} to work one there"
                )
            drawer, height = entry.drawer, self._held_height()
            spot = None
            if drawer_action(skill) == PUT:
                spot = self._free_spot(
                    skill, drawer.interior, drawer.interior_area, entry.heading, self._unseen_stored()
                )
                self._storing = self._stored_at(skill, spot, height)
            return drawer_skill_motion(skill, drawer, height, self._settings, self._drawer_settings, spot)
        raise MotionError(
            f"{skill.text!r}: the moveit backend runs pick up, put down and the drawer skills; {skill.family} "
            "skills are not supported"
        )

    def motion_of(self, skill: Skill) -> str:
        """What the arm does for ``skill``: the motion its effects ask for in the skill library
        (``SkillRule.motion``: "hand over the mug" puts down), else its family."""
        rule = self._library.find(skill.text) if self._library is not None else None
        return rule.motion if rule is not None else skill.family

    def _map_entry(self, skill: Skill, place: str | None, why: str) -> Place | None:
        """The place map's entry of the robot's place (None when the map lacks it); MotionError when where
        the robot is is unknown."""
        if place is None:
            raise MotionError(f"{skill.text!r}: where the robot is is unknown ({why})")
        return self._places.place(place)

    def _held(self) -> PerceivedObject | None:
        """The held object as perception reports it (None: nothing held, or not reported)."""
        robot = self._view.robot()
        held = robot.holding if robot is not None else None
        return next((obj for obj in self._view.objects() if obj.id == held), None)

    def _held_height(self) -> float:
        """The height the put down lowers the held object by: the one its grasp was made for while the
        robot still holds what it grasped, else the catalogue's height of the held label (an object held
        when the episode started: the default height put a 20 cm bottle into the user's table at
        'lower'), else what perception reports of it, else the default. An object it did not grasp is
        taken as held as its own grasp holds one, ``grasp_depth`` below the top: the palm stops an object
        handed over top-down about there."""
        robot = self._view.robot()
        if self._grasped_height is not None and robot is not None and robot.holding is not None:
            return self._grasped_height
        known = self._heights.height(robot.holding_label if robot is not None else None)
        if known is not None:
            return known
        held = self._held()
        return held.height if held is not None and held.height > 0.0 else self._default_height

    def _free_spot(
        self, skill: Skill, surface: Pose, area: Area, heading: float, unseen: Sequence[PerceivedObject] = ()
    ) -> Pose:
        """Where put down sets the held object: the free spot of the surface's area nearest its point,
        clear of what perception reports standing there and of ``unseen`` (llm_planner_ros.robot_motion.free_spot)."""
        try:
            return free_spot(surface, area, heading, self._held_radius(), [*self._view.objects(), *unseen])
        except NoFreeSpot as error:
            raise MotionError(f"{skill.text!r}: {error}") from error

    def _held_radius(self) -> float:
        """The held object's radius as perception reports it, else the kitchen's default object's."""
        held = self._held()
        return held.radius if held is not None and held.radius > 0.0 else math.hypot(*self._default_footprint) / 2.0

    def _stored_at(self, skill: Skill, spot: Pose, height: float) -> PerceivedObject:
        """The held object, ``height`` tall, as it will stand at ``spot`` in the drawer once put there."""
        held = self._held()
        footprint = held.footprint if held is not None and held.radius > 0.0 else self._default_footprint
        pose = Pose(spot.frame, spot.x, spot.y, spot.z + height / 2.0, spot.orientation)
        return PerceivedObject(
            f"stored {skill.argument}", skill.argument or "", DRAWER_CONTENTS, pose, height, footprint
        )

    def _unseen_stored(self) -> list[PerceivedObject]:
        """What this backend put into the drawer that perception does not report near where it was put."""
        seen = self._view.objects()
        return [
            stored
            for stored in self._current_stored()
            if not any(
                obj.label == stored.label
                and math.hypot(obj.pose.x - stored.pose.x, obj.pose.y - stored.pose.y) < SEEN_M
                for obj in seen
            )
        ]

    def _current_stored(self) -> list[PerceivedObject]:
        """The stored objects of the robot's current episode (forgotten when another starts)."""
        robot = self._view.robot()
        episode = robot.episode if robot is not None else ""
        if episode != self._stored_episode:
            self._stored, self._stored_episode = [], episode
        return self._stored

    def _remember(self, skill: Skill) -> None:
        """After a skill succeeded: a put into the drawer is kept; a pick of a label stored there, at the
        drawer's place, takes one of that label out."""
        motion = self.motion_of(skill)
        if motion == DRAWER and drawer_action(skill) == PUT and self._storing is not None:
            self._current_stored().append(self._storing)
        elif motion == PICK:
            place, _ = self._view.place()
            entry = self._places.place(place) if place is not None else None
            taken = next((s for s in self._current_stored() if s.label == skill.argument), None)
            if entry is not None and entry.drawer is not None and taken is not None:
                self._stored.remove(taken)
        self._storing = None

    def _let_go(self, should_cancel: Callable[[], bool]) -> str:
        """Open the gripper on the handle after a failed pull or push; what became of it, for the message."""
        release = GripperMove("let go", self._settings.gripper_open, self._settings.gripper_max_effort)
        ended = self._grip(release, should_cancel)
        if ended is None:
            return "; the gripper let go of the handle"
        return f"; letting go of the handle failed too ({ended.message}): the gripper may still hold it"

    def _stow_named(self) -> str:
        """Send the arm to ``stow_named_target`` after a failed skill moved it; what became of it, for the
        message ("" when off). The skill's own outcome stands either way; the goal is bounded by
        ``motion_timeout_s``."""
        target = self._p["stow_named_target"]
        if not target:
            return ""
        ended = self._run_arm_goal(self._goal(Constraints(name=target)), lambda: False)
        if ended is None:
            return f"; the arm went to {target!r}"
        return f"; going to {target!r} failed too ({ended.message}): the arm is where it stopped"

    def _arm_move(
        self, motion: ArmMove | JointMove | LinearMove, should_cancel: Callable[[], bool]
    ) -> SkillOutcome | None:
        if isinstance(motion, LinearMove):
            goal = self.linear_goal(motion)
        elif isinstance(motion, ArmMove):
            goal = self.pose_goal(motion.pose, motion.phase)
        else:
            goal = self.joint_goal(motion.names, motion.positions, motion.phase)
        return self._run_arm_goal(goal, should_cancel)

    def _run_arm_goal(self, goal: MoveGroup.Goal, should_cancel: Callable[[], bool]) -> SkillOutcome | None:
        """Run one MoveGroup goal: None when it succeeded, else how it ended."""
        outcome = self._arm.run(goal, should_cancel)
        if outcome.result is None:
            return SkillOutcome(Status.FAILED, outcome.message)
        code = int(outcome.result.error_code.val)
        if outcome.status is Status.SUCCEEDED and code == MoveItErrorCodes.SUCCESS:
            return None
        if outcome.status is Status.CANCELED:
            return SkillOutcome(Status.CANCELED, "canceled; the arm stopped where it was")
        return SkillOutcome(Status.FAILED, moveit_failure(code, getattr(outcome.result.error_code, "message", "")))

    def _grip(self, motion: GripperMove, should_cancel: Callable[[], bool]) -> SkillOutcome | None:
        goal = GripperCommand.Goal()
        goal.command.position, goal.command.max_effort = motion.position, motion.max_effort
        outcome = self._gripper.run(goal, should_cancel)
        if outcome.result is None:
            return SkillOutcome(Status.FAILED, outcome.message)
        if outcome.status is Status.CANCELED:
            return SkillOutcome(Status.CANCELED, "canceled; the gripper stopped where it was")
        result = outcome.result
        if motion.grasp:
            # Controllers without allow_stalling abort a close that stalls on the object: still a grasp.
            if outcome.status is Status.SUCCEEDED or result.stalled:
                failure = grasp_failure(float(result.position), bool(result.stalled), self._settings)
                return None if failure is None else SkillOutcome(Status.FAILED, failure)
        elif outcome.status is Status.SUCCEEDED:
            return None
        return SkillOutcome(
            Status.FAILED,
            f"{self._gripper.name} aborted the command (position {result.position:.3f}, "
            f"reached_goal {result.reached_goal}, stalled {result.stalled})",
        )

    def pose_goal(self, pose: Pose, phase: str) -> MoveGroup.Goal:
        """A MoveGroup goal (plan and execute) bringing ``ee_link`` to ``pose`` within the tolerances."""
        position = self._region(
            pose, SolidPrimitive(type=SolidPrimitive.SPHERE, dimensions=[self._p["position_tolerance"]])
        )
        return self._goal(
            Constraints(name=phase, position_constraints=[position], orientation_constraints=[self._keep(pose)])
        )

    def linear_goal(self, move: LinearMove) -> MoveGroup.Goal:
        """A pose goal to the segment's end whose path constraints hold ``ee_link`` within ``tolerance`` of
        the straight segment (a box along it) at the goal's orientation all the way."""
        start, end = move.start, move.pose
        length = math.dist((start.x, start.y, start.z), (end.x, end.y, end.z))
        middle = Pose(
            start.frame,
            (start.x + end.x) / 2.0,
            (start.y + end.y) / 2.0,
            (start.z + end.z) / 2.0,
            # The box's x axis along the segment (drawers slide horizontally).
            yaw_quaternion(math.atan2(end.y - start.y, end.x - start.x)),
        )
        box = SolidPrimitive(
            type=SolidPrimitive.BOX,
            dimensions=[length + 2.0 * move.tolerance, 2.0 * move.tolerance, 2.0 * move.tolerance],
        )
        goal = self.pose_goal(end, move.phase)
        goal.request.path_constraints = Constraints(
            name=f"{move.phase} path",
            position_constraints=[self._region(middle, box)],
            orientation_constraints=[self._keep(end)],
        )
        return goal

    def _region(self, pose: Pose, primitive: SolidPrimitive) -> PositionConstraint:
        """``ee_link`` inside ``primitive`` placed at ``pose``."""
        target = pose_stamped(pose)
        region = BoundingVolume(primitives=[primitive], primitive_poses=[target.pose])
        return PositionConstraint(
            header=target.header, link_name=self._p["ee_link"], constraint_region=region, weight=1.0
        )

    def _keep(self, pose: Pose) -> OrientationConstraint:
        """``ee_link`` at ``pose``'s orientation within ``orientation_tolerance`` per axis."""
        target = pose_stamped(pose)
        tolerance = self._p["orientation_tolerance"]
        return OrientationConstraint(
            header=target.header,
            orientation=target.pose.orientation,
            link_name=self._p["ee_link"],
            absolute_x_axis_tolerance=tolerance,
            absolute_y_axis_tolerance=tolerance,
            absolute_z_axis_tolerance=tolerance,
            weight=1.0,
        )

    def joint_goal(self, names: tuple[str, ...], positions: tuple[float, ...], phase: str) -> MoveGroup.Goal:
        """A MoveGroup goal (plan and execute) bringing the joints ``names`` to ``positions``."""
        tolerance = self._p["joint_tolerance"]
        joints = [
            JointConstraint(
                joint_name=name, position=angle, tolerance_above=tolerance, tolerance_below=tolerance, weight=1.0
            )
            for name, angle in zip(names, positions, strict=True)
        ]
        return self._goal(Constraints(name=phase, joint_constraints=joints))

    def _goal(self, constraints: Constraints) -> MoveGroup.Goal:
        p = self._p
        goal = MoveGroup.Goal()
        request = goal.request
        request.group_name = p["planning_group"]
        request.num_planning_attempts = p["planning_attempts"]
        request.allowed_planning_time = p["planning_time_s"]
        request.max_velocity_scaling_factor = request.max_acceleration_scaling_factor = p["velocity_scaling"]
        request.goal_constraints = [constraints]
        # Plan from the current state and execute; the scene is MoveIt's own (no diff).
        request.start_state.is_diff = True
        goal.planning_options.plan_only = False
        goal.planning_options.planning_scene_diff.is_diff = True
        goal.planning_options.planning_scene_diff.robot_state.is_diff = True
        return goal
