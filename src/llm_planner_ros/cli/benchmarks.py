"""The benchmarks behind ``llm-planner bench <name>``, by name.

Each benchmark is a module of ``llm_planner_ros.evaluation`` exposing ``add_arguments(parser)`` and
``run(args) -> int`` and is registered in ``BENCHMARKS`` (name -> module path) so the CLI imports
only the one that runs.
"""

BENCHMARKS: dict[str, str] = {
    "scoring": "llm_planner_ros.evaluation.scoring_bench",
    "generation": "llm_planner_ros.evaluation.generation_bench",
    "affordance": "llm_planner_ros.evaluation.affordance_bench",
    "alfred-hlp": "llm_planner_ros.evaluation.alfred_hlp",
    "kitchen": "llm_planner_ros.evaluation.kitchen_command",
    "soak": "llm_planner_ros.evaluation.soak_bench",
    "serving": "llm_planner_ros.evaluation.serving_bench",
    "device-batching": "llm_planner_ros.evaluation.device_batching_bench",
    "physics": "llm_planner_ros.evaluation.physics_bench",
    "perception": "llm_planner_ros.evaluation.perception_bench",
    "babyai": "llm_planner_ros.evaluation.babyai_bench",
    "babyai-minigrid": "llm_planner_ros.evaluation.babyai_minigrid_bench",
    "value-functions": "llm_planner_ros.evaluation.value_function_bench",
    "value-reasons": "llm_planner_ros.evaluation.value_reasons_bench",
    "saycan-temperature": "llm_planner_ros.evaluation.saycan_temperature_bench",
    "domain-load": "llm_planner_ros.evaluation.domain_load_bench",
    "console": "llm_planner_ros.evaluation.console_latency_bench",
    "eai-scorer": "llm_planner_ros.evaluation.eai_scorer_check",
    "virtualhome": "llm_planner_ros.evaluation.virtualhome_bench",
}
