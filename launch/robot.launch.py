"""The stack on a real robot (MoveIt 2 and Nav2 executors, perceived scene):
`ros2 launch llm_planner_ros robot.launch.py`.

Nodes and parameter files come from llm_planner_ros.bringup.ROBOT_GRAPH. Arguments
(llm_planner_ros.bringup.LAUNCH_ARGUMENTS): params_file:=my.yaml (applied after the packaged files),
namespace:=robot1 (every node under /robot1), use_sim_time:=true.
"""

from llm_planner_ros.bringup import launch_description


def generate_launch_description():  # noqa: ANN201
    return launch_description("robot")
