"""The stack on a real robot (or in Gazebo / Isaac): `ros2 launch llm_planner_ros robot.launch.py`.

Starts llm_planner_ros.bringup.graphs.ROBOT_GRAPH (the same nodes as `llm-planner up --robot`): planner,
LLM service, affordance server and the executors on their nav2 (NavigateToPose) and moveit (MoveGroup,
GripperCommand) backends, with config/robot_graph.yaml over each node's parameters. It expects Nav2, MoveIt 2's
move_group, a gripper action, a perception node on scene/objects and the robot-state record on
robot/state (docs/robot.md). Arguments (llm_planner_ros.bringup.graphs.LAUNCH_ARGUMENTS): params_file:=my.yaml
(applied after the packaged files), namespace:=robot1 (every node under /robot1), use_sim_time:=true.
"""

from llm_planner_ros.bringup.launch_glue import launch_description


def generate_launch_description():
    return launch_description("robot")
