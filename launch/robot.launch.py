"""The stack on a real robot (MoveIt 2 and Nav2 executors, perceived scene):
`ros2 launch llm_planner_ros robot.launch.py`.

Nodes and parameter files come from llm_planner_ros.bringup.ROBOT_GRAPH.
"""

from llm_planner_ros.bringup import launch_description


def generate_launch_description():  # noqa: ANN201
    return launch_description("robot")
