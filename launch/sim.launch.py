"""The whole stack on the built-in simulated kitchen: `ros2 launch llm_planner_ros sim.launch.py`.

Nodes and parameter files come from llm_planner_ros.bringup.graphs.SIM_GRAPH, the list `llm-planner up`
starts too. Arguments (llm_planner_ros.bringup.graphs.LAUNCH_ARGUMENTS): params_file:=my.yaml (applied after
the packaged files), namespace:=robot1 (every node under /robot1), use_sim_time:=true.
"""

from llm_planner_ros.bringup.launch_glue import launch_description


def generate_launch_description():
    return launch_description("sim")
