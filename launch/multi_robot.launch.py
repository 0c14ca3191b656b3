"""Several robots, one language model: `ros2 launch llm_planner_ros multi_robot.launch.py robots:=4`.

One llm_service at the root serves /llm/score and /llm/generate; under /robot1 ... /robotN runs
the sim graph (llm_planner_ros.bringup.graphs.SIM_GRAPH) without a model service of its own, each planner
with ``llm_namespace: /``. The service batches the robots' score requests (docs/llm.md, "Several
robots, one model"). Arguments: robots:=N (default 2); llm:=false starts no model service, for a
model service run elsewhere in the same ROS domain (a GPU host: `ros2 run llm_planner_ros
llm_service --ros-args -p device:=cuda`, or one whose backend is a vLLM server: `-p
backend:=openai -p base_url:=http://gpu:8000/v1 -p model:=...`); params_file:=my.yaml applies to
every robot's nodes and the model service, after the packaged files.
"""

from dataclasses import replace

from llm_planner_ros.bringup.graphs import SIM_GRAPH
from llm_planner_ros.bringup.launch_glue import launch_ros_nodes, launch_scratch
from llm_planner_ros.bringup.options import GraphOptions
from llm_planner_ros.bringup.starts import node_starts

MODEL_SERVICE = "llm_service"


def generate_launch_description():
    from launch.actions import DeclareLaunchArgument, OpaqueFunction

    from launch import LaunchDescription

    return LaunchDescription(
        [
            DeclareLaunchArgument("robots", default_value="2", description="robots, each in /robot<i>"),
            DeclareLaunchArgument("llm", default_value="true", description="start the shared llm_service"),
            DeclareLaunchArgument(
                "params_file", default_value="", description="parameters applied after the packaged files"
            ),
            OpaqueFunction(function=lambda context: _nodes(context.launch_configurations)),
        ]
    )


def _nodes(arguments):
    count = int(arguments.get("robots", "2"))
    if count < 1:
        raise ValueError(f"robots must be at least 1, got {count}")
    params_file = arguments.get("params_file", "")
    scratch = launch_scratch()
    model = tuple(spec for spec in SIM_GRAPH if spec.name == MODEL_SERVICE)
    robot = tuple(spec for spec in SIM_GRAPH if spec.name != MODEL_SERVICE)
    with_model = arguments.get("llm", "true").lower() == "true"
    # The user's file is checked against every node of the launch, each in its own namespace.
    placements = [*([("", model)] if with_model else []), *((f"/robot{i}", robot) for i in range(1, count + 1))]
    starts = []
    if with_model:
        starts += node_starts(model, GraphOptions.parse(params_file), scratch, SIM_GRAPH, placements)
    for index in range(1, count + 1):
        options = GraphOptions.parse(params_file, f"robot{index}")
        for start in node_starts(robot, options, scratch, SIM_GRAPH, placements):
            shared = {"llm_namespace": "/"} if start.name == "planner" else {}
            starts.append(replace(start, params={**start.params, **shared}))
    return launch_ros_nodes(starts)
