"""ROS names and QoS shared by the nodes and their clients.

Every name is relative, so it resolves in the node's namespace: with none it is the public name
(``scene/objects`` -> ``/scene/objects``), with ``--namespace robot1`` (``-r __ns:=/robot1``) it becomes
``/robot1/scene/objects``, which is how several robots share one ROS domain.
"""

from __future__ import annotations

from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

PLANNER_NODE = "planner"  # the planner node's name in every graph (its parameters: config/planner.yaml)
SCENE_TOPIC = "scene/objects"
ROBOT_STATE_TOPIC = "sim/robot_state"
APPLY_SKILL_ACTION = "sim/apply_skill"
LOAD_EPISODE_SERVICE = "sim/load_episode"
CLEAR_SCENE_SERVICE = "perception/clear_scene"
EXECUTE_INSTRUCTION_ACTION = "llm_planner/execute_instruction"
CONFIRM_SERVICE = "llm_planner/confirm"
GOALS_TOPIC = "llm_planner/goals"  # std_msgs/String: one JSON object per goal started or ended
SCORES_TOPIC = "llm_planner/scores"
MARKERS_TOPIC = "llm_planner/markers"
STOP_TOPIC = "llm_planner/stop"
# std_msgs/String: one JSON object per call an agent made through `llm-planner mcp` (who, action, detail),
# for the operator console's audit trail
AUDIT_TOPIC = "llm_planner/audit"
# The shared language model (llm_service): its services, the latched true once it answers, and the latched
# JSON {"name", "adapter"} of the model it loaded (planners decide their prompts' examples by its adapter).
LLM_SCORE_SERVICE = "llm/score"
LLM_GENERATE_SERVICE = "llm/generate"
LLM_READY_TOPIC = "llm/ready"
LLM_MODEL_TOPIC = "llm/model"
# How an executor's ExecuteSkill result begins when the executor stopped the skill because it is shutting
# down: the planner then ends the plan (the executor is going away) instead of dispatching to it again.
EXECUTOR_CLOSING = "executor shutting down: "

# Plan events (the goals' starts and ends, the steps) as the planner offers them: reliable, transient-local,
# and deep enough that none is lost in a burst. A reliable keep-last writer drops its oldest sample,
# acknowledged or not, once its history is full: with rclpy's depth of 10 a burst of 100 goals (about 200 goal
# events at once) lost 15 events before the recorder took them. EVENTS_DEPTH holds five such bursts.
# Transient-local: a recorder whose subscription the planner matches a moment after a goal started still gets
# that goal's first events (it asks for the history and keeps what was published after it began). A volatile
# reader (a live view) matches too and gets only what is published after it matched.
EVENTS_DEPTH = 1000
EVENTS_QOS = QoSProfile(
    depth=EVENTS_DEPTH, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
)

# Latched state: a subscriber that starts later still gets the current world.
STATE_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def affordance_action(family: str) -> str:
    """The EvaluateAffordance action of one skill family."""
    return f"affordance/{family}"


def executor_action(executor: str) -> str:
    """The ExecuteSkill action of one executor."""
    return f"executors/{executor}/execute_skill"


def full_name(node: Node, name: str) -> str:
    """``name`` as the graph sees it from ``node`` (namespace and remappings applied), for messages and logs."""
    return node.resolve_topic_name(name)
