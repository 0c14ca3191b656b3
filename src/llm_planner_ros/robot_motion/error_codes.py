"""Nav2 and MoveIt 2 error codes as skill failure messages that say what went wrong and what to try.

Nav2 (Jazzy): ``NavigateToPose.Result.error_code`` is the navigator's own code (9000s) or the code of
the behavior-tree node that failed, passed up: the planner server's ComputePathToPose (200s) or the
controller server's FollowPath (100s); ``error_msg`` carries the server's text. MoveIt 2:
``moveit_msgs/MoveItErrorCodes`` (``val``, and in Jazzy a ``message``) in every MoveGroup and
ExecuteTrajectory result.
"""

from __future__ import annotations

# nav2_msgs/action/NavigateToPose (Jazzy): result error codes.
NAV2_NAVIGATE_TO_POSE = {
    0: ("NONE", "no error reported"),
    9000: ("UNKNOWN", "the navigator failed for an unknown reason; see the bt_navigator log"),
    9001: ("FAILED_TO_LOAD_BEHAVIOR_TREE", "the behavior tree did not load: check the behavior_tree parameter"),
    9002: ("TF_ERROR", "no transform between the goal frame and the robot: check localization and TF"),
}
# nav2_msgs/action/FollowPath (Jazzy), passed up by the FollowPath BT node.
NAV2_FOLLOW_PATH = {
    100: ("UNKNOWN", "the controller failed for an unknown reason"),
    101: ("INVALID_CONTROLLER", "the controller plugin named does not exist: check controller_server"),
    102: ("TF_ERROR", "the controller lost a transform: check localization and TF"),
    103: ("INVALID_PATH", "the controller was given an invalid path"),
    104: ("PATIENCE_EXCEEDED", "the robot waited too long for a blocked path to clear"),
    105: ("FAILED_TO_MAKE_PROGRESS", "the robot stopped making progress (blocked or stuck)"),
    106: ("NO_VALID_CONTROL", "the controller found no safe velocity command (obstacle too close)"),
    107: ("CONTROLLER_TIMED_OUT", "the controller did not finish in time"),
}
# nav2_msgs/action/ComputePathToPose (Jazzy), passed up by the ComputePathToPose BT node.
NAV2_COMPUTE_PATH = {
    200: ("UNKNOWN", "the planner failed for an unknown reason"),
    201: ("INVALID_PLANNER", "the planner plugin named does not exist: check planner_server"),
    202: ("TF_ERROR", "the planner lost a transform: check localization and TF"),
    203: ("START_OUTSIDE_MAP", "the robot is outside the map: relocalize"),
    204: ("GOAL_OUTSIDE_MAP", "the goal is outside the map: fix the place's base pose in the place map"),
    205: ("START_OCCUPIED", "the robot stands in an occupied cell: clear the costmap or move it free"),
    206: ("GOAL_OCCUPIED", "the goal pose is occupied: move the place's base pose into free space"),
    207: ("TIMEOUT", "the planner ran out of time"),
    208: ("NO_VALID_PATH", "no path to the goal: it is blocked or unreachable"),
}
NAV2_ERRORS = {**NAV2_NAVIGATE_TO_POSE, **NAV2_FOLLOW_PATH, **NAV2_COMPUTE_PATH}

# moveit_msgs/msg/MoveItErrorCodes.
MOVEIT_ERRORS = {
    1: ("SUCCESS", "succeeded"),
    0: ("UNDEFINED", "no error code was set"),
    99999: ("FAILURE", "MoveIt failed for an unspecified reason; see the move_group log"),
    -1: ("PLANNING_FAILED", "no collision-free motion plan was found: the pose may be unreachable or blocked"),
    -2: ("INVALID_MOTION_PLAN", "the plan was invalid"),
    -3: (
        "MOTION_PLAN_INVALIDATED_BY_ENVIRONMENT_CHANGE",
        "the scene changed during execution and made the plan unsafe",
    ),
    -4: ("CONTROL_FAILED", "the controllers failed to execute the trajectory"),
    -5: ("UNABLE_TO_AQUIRE_SENSOR_DATA", "no sensor data to plan with"),
    -6: ("TIMED_OUT", "planning or execution timed out"),
    -7: ("PREEMPTED", "the motion was preempted"),
    -10: ("START_STATE_IN_COLLISION", "the arm starts in collision: move it free first"),
    -11: ("START_STATE_VIOLATES_PATH_CONSTRAINTS", "the start state violates the path constraints"),
    -12: ("GOAL_IN_COLLISION", "the goal pose is in collision (object, surface or the robot itself)"),
    -13: ("GOAL_VIOLATES_PATH_CONSTRAINTS", "the goal violates the path constraints"),
    -14: ("GOAL_CONSTRAINTS_VIOLATED", "the arm did not reach the goal within tolerance"),
    -15: ("INVALID_GROUP_NAME", "the planning group does not exist: check the planning_group parameter"),
    -16: ("INVALID_GOAL_CONSTRAINTS", "the goal constraints are invalid"),
    -17: ("INVALID_ROBOT_STATE", "the robot state is invalid"),
    -18: ("INVALID_LINK_NAME", "the end-effector link does not exist: check the ee_link parameter"),
    -19: ("INVALID_OBJECT_NAME", "an object named in the request is unknown"),
    -21: ("FRAME_TRANSFORM_FAILURE", "no transform from the goal's frame to the planning frame: check TF"),
    -22: ("COLLISION_CHECKING_UNAVAILABLE", "collision checking is unavailable"),
    -23: ("ROBOT_STATE_STALE", "the robot state is stale: check the joint_states publisher"),
    -24: ("SENSOR_INFO_STALE", "sensor data is stale"),
    -25: ("COMMUNICATION_FAILURE", "communication with the robot failed"),
    -26: ("START_STATE_INVALID", "the start state is invalid"),
    -27: ("GOAL_STATE_INVALID", "the goal state is invalid"),
    -28: ("UNRECOGNIZED_GOAL_TYPE", "the goal type is not supported"),
    -29: ("CRASH", "the planner crashed"),
    -30: ("ABORT", "the motion was aborted"),
    -31: ("NO_IK_SOLUTION", "no inverse kinematics solution: the pose is out of the arm's reach"),
}


def nav2_failure(code: int, error_msg: str = "") -> str:
    """A failed NavigateToPose as a message: meaning, code name and number, and Nav2's own text."""
    name, meaning = NAV2_ERRORS.get(code, _nav2_range(code))
    detail = f": {error_msg}" if error_msg else ""
    return f"Nav2: {meaning} ({name}, error code {code}){detail}"


def _nav2_range(code: int) -> tuple[str, str]:
    ranges = {1: "controller (FollowPath)", 2: "planner (ComputePathToPose)"}
    server = ranges.get(code // 100, "a behavior-tree node")
    return "UNLISTED", f"navigation failed in {server}"


def moveit_failure(code: int, message: str = "") -> str:
    """A MoveItErrorCodes value as a message: meaning, code name and number, and MoveIt's own text
    (``MoveItErrorCodes.message``, set by Jazzy's move_group)."""
    name, meaning = MOVEIT_ERRORS.get(code, ("UNLISTED", "MoveIt failed with an unlisted error code"))
    detail = f": {message}" if message else ""
    return f"MoveIt: {meaning} ({name}, error code {code}){detail}"
