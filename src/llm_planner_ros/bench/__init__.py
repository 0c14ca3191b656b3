"""Benchmarks behind ``llm-planner bench <name>``.

Each benchmark is a module here exposing ``add_arguments(parser)`` and ``run(args) -> int`` and is
registered in ``BENCHMARKS`` (name -> module path) so the CLI imports only the one that runs.
"""

BENCHMARKS: dict[str, str] = {
    "scoring": "llm_planner_ros.bench.scoring",
    "affordance": "llm_planner_ros.bench.affordance",
    "alfred-hlp": "llm_planner_ros.bench.alfred_hlp",
    "kitchen": "llm_planner_ros.bench.kitchen",
}
