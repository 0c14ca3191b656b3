"""Parameters of the executors' robot backends (``nav2``, ``moveit``), kept apart from the backends so
that declaring them needs no Nav2 or MoveIt interface package. Defaults fit a Franka Panda on a Nav2
base (docs/robot.md lists what to change for another robot)."""

from __future__ import annotations

from llm_planner_ros.robot_motion.manipulation import PANDA_JOINTS, PANDA_STOW
from llm_planner_ros.ros.parameters import Parameter
from llm_planner_ros.ros.topics import SCENE_TOPIC

BASE_POSE_SOURCES = ("auto", "tf", "topic")

ROBOT_PARAMETERS = {
    "map_file": Parameter(
        "",
        "place map YAML: base pose and surface per place (empty: the domain folder's robot_map.yaml, else the map "
        "its layout implies)",
    ),
    "object_heights_file": Parameter(
        "",
        "known object heights by label (empty: the domain layout's object models): how the put down of an object the "
        "robot did not grasp itself (held from the start) lowers it",
    ),
    "scene_topic": Parameter(SCENE_TOPIC, "perceived objects (SceneObjectArray) with their poses"),
    "robot_state_topic": Parameter(
        "robot/state", "the robot-state record (JSON std_msgs/String, llm_planner_ros.domain.robot_state)"
    ),
    "base_pose": Parameter(
        "auto",
        "where the robot's place comes from: tf (map frame -> base_frame lookup, needs tf2_ros), topic "
        "(the robot-state record's 'at'), auto (tf when tf2_ros is importable, else topic)",
        choices=BASE_POSE_SOURCES,
    ),
    "base_frame": Parameter("base_link", "the base's TF frame (base_pose tf)"),
    "place_tolerance_m": Parameter(
        0.5, "a base within this distance of a place's base pose is at that place (base_pose tf)", minimum=0.0
    ),
    "server_lost_s": Parameter(3.0, "give up a goal this long after its server left the ROS graph", minimum=0.0),
    # Nav2 (backend nav2)
    "navigate_action": Parameter("navigate_to_pose", "Nav2's NavigateToPose action"),
    "behavior_tree": Parameter("", "behavior tree for NavigateToPose goals (empty: the navigator's default)"),
    "navigation_timeout_s": Parameter(300.0, "cancel and fail a navigation that takes longer", minimum=0.0),
    # MoveIt 2 (backend moveit)
    "move_group_action": Parameter("move_action", "MoveIt's MoveGroup action (plan and execute)"),
    "gripper_action": Parameter("panda_hand_controller/gripper_cmd", "control_msgs GripperCommand action"),
    "planning_group": Parameter("panda_arm", "MoveIt planning group of the arm"),
    "ee_link": Parameter("panda_hand", "end-effector link the pose goals constrain"),
    "grasp_orientation": Parameter(
        [1.0, 0.0, 0.0, 0.0], "end-effector orientation at grasp and release (x, y, z, w; default: pointing down)"
    ),
    "grasp_offset": Parameter(0.1034, "height of ee_link above the grasp point (m; panda_hand: 0.1034)"),
    "approach_distance": Parameter(0.12, "pre-grasp / above-surface height over the grasp pose (m)", minimum=0.0),
    "lift_distance": Parameter(0.15, "lift / retreat height over the grasp pose (m)", minimum=0.0),
    "grasp_depth": Parameter(
        0.03,
        "how far below an object's top the fingertips close (m; at the centre of objects shorter than twice "
        "this). The Panda's palm meets a top about 3.5 cm above the fingertips",
        minimum=0.0,
    ),
    "finger_reach": Parameter(
        0.011, "how far the fingers reach below the grasp point (m; the Panda's: 1.1 cm)", minimum=0.0
    ),
    "surface_clearance": Parameter(
        0.004,
        "the fingers close at least this far above the surface under the object (m): a flat object is grasped "
        "above its centre rather than with the fingers in the counter",
        minimum=0.0,
    ),
    "turn_grasp": Parameter(
        True,
        "turn the grasp about the vertical so the fingers close across the base's heading (the camera's "
        "least certain axis runs along them), or along it when the object is wider than max_grasp_width "
        "across; false: grasp_orientation as given",
    ),
    "max_grasp_width": Parameter(0.08, "the widest object the open fingers pass around (m)", minimum=0.0),
    "tall_grasp_ratio": Parameter(
        2.0,
        "an object this many times as tall as its footprint is wide is grasped along the heading (turn_grasp)",
        minimum=0.0,
    ),
    "place_clearance": Parameter(0.01, "put down releases the object this high above the surface (m)", minimum=0.0),
    "stow_joint_names": Parameter(list(PANDA_JOINTS), "the arm joints of the stow pose"),
    "stow_joints": Parameter(
        list(PANDA_STOW),
        "stow pose (rad, one per stow_joint_names): after every manipulation skill the arm goes there, out "
        "of the way of the next navigation; empty: the arm stays where the skill left it",
    ),
    "joint_tolerance": Parameter(0.01, "stow joint goal tolerance per joint (rad)", minimum=0.0),
    "stow_named_target": Parameter(
        "",
        "named state (SRDF group state) the arm is sent to after a manipulation skill failed mid-motion "
        "(never after a cancel, which may be the e-stop), so the next skill starts from it: a MoveGroup goal "
        "whose constraints carry only this name; empty: the arm stays where the skill stopped",
    ),
    # The drawer skills (llm_planner_ros/robot_motion/drawer.py; the drawer itself is in the place map)
    "handle_approach_distance": Parameter(
        0.1, "pre-grasp / retreat distance in front of a drawer's handle, along the drawer (m)", minimum=0.0
    ),
    "drawer_pull_steps": Parameter(
        3, "MoveGroup goals a drawer's pull or push is split into (straight segments)", minimum=1
    ),
    "drawer_path_tolerance": Parameter(
        0.02, "how far ee_link may leave the straight pull / push line (m; path constraint box)", minimum=0.001
    ),
    "handle_roll": Parameter(
        0.0, "turn of the hand about its approach axis at the handle (rad; 0: fingers close vertically)"
    ),
    "gripper_open": Parameter(0.04, "GripperCommand position that opens the gripper"),
    "gripper_closed": Parameter(0.0, "GripperCommand position of a fully closed gripper"),
    "gripper_max_effort": Parameter(20.0, "GripperCommand max_effort (N)", minimum=0.0),
    "position_tolerance": Parameter(0.01, "radius of the goal region of ee_link (m)", minimum=0.0),
    "orientation_tolerance": Parameter(0.05, "goal orientation tolerance per axis (rad)", minimum=0.0),
    "planning_time_s": Parameter(5.0, "MoveIt allowed_planning_time per motion", minimum=0.0),
    "planning_attempts": Parameter(3, "MoveIt num_planning_attempts per motion", minimum=1),
    "velocity_scaling": Parameter(0.3, "MoveIt max velocity and acceleration scaling", minimum=0.0, maximum=1.0),
    "motion_timeout_s": Parameter(60.0, "cancel and fail one arm or gripper motion that takes longer", minimum=0.0),
}
