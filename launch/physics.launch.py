"""The whole stack on the PyBullet kitchen: `ros2 launch llm_planner_ros physics.launch.py`.

Nodes and parameter files come from llm_planner_ros.bringup.graphs.PHYSICS_PERCEPTION_GRAPH, the list `llm-planner
up --sim physics` starts too: physics_sim, the affordance server, the executors on their nav2 and
moveit backends, the LLM service, the planner, and perception, which publishes /scene/objects from
the simulator's head camera (its ground truth stays on sim/ground_truth). Arguments as sim.launch.py.
"""

from llm_planner_ros.bringup.launch_glue import launch_description


def generate_launch_description():
    return launch_description("physics")
