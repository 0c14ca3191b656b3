"""The benchmarks behind ``llm-planner bench <name>``, by name.

Each benchmark is a module of ``llm_planner_ros.evaluation`` exposing ``add_arguments(parser)`` and
``run(args) -> int`` and is registered in ``BENCHMARKS`` (name -> its module path and what it measures,
the line ``bench --help`` shows) so the CLI imports only the one that runs (``cli.tools.add_command_group``).
"""

from llm_planner_ros.cli.tools import Command

BENCHMARKS: dict[str, Command] = {
    "scoring": Command(
        "llm_planner_ros.evaluation.scoring_bench", "SayCan's scoring: prefix-shared K/V cache against naive, per step"
    ),
    "generation": Command(
        "llm_planner_ros.evaluation.generation_bench",
        "the generative planners' constrained generation against free generation, per token",
    ),
    "affordance": Command(
        "llm_planner_ros.evaluation.affordance_bench",
        "EvaluateAffordance round trips: one batched goal against one per skill",
    ),
    "alfred-hlp": Command(
        "llm_planner_ros.evaluation.alfred_hlp", "LLM-Planner's high-level-plan accuracy on ALFRED (static)"
    ),
    "kitchen": Command(
        "llm_planner_ros.evaluation.kitchen_command",
        "plan success, Exec, GCR, held back and false refusals of a method on a domain's episodes",
    ),
    "soak": Command("llm_planner_ros.evaluation.soak_bench", "every node's memory over a long run of goals"),
    "serving": Command(
        "llm_planner_ros.evaluation.serving_bench", "several robots planning at once against one model service"
    ),
    "device-batching": Command(
        "llm_planner_ros.evaluation.device_batching_bench", "one batched forward for several robots against one each"
    ),
    "physics": Command("llm_planner_ros.evaluation.physics_bench", "the physics simulation's speed against real time"),
    "perception": Command(
        "llm_planner_ros.evaluation.perception_bench", "perception's detection, labels, localisation and latency"
    ),
    "babyai": Command("llm_planner_ros.evaluation.babyai_bench", "SayCanPay and the others on BabyAI pickup tasks"),
    "babyai-minigrid": Command(
        "llm_planner_ros.evaluation.babyai_minigrid_bench", "BabyAI plans run in minigrid itself against the text world"
    ),
    "value-functions": Command(
        "llm_planner_ros.evaluation.value_function_bench", "learned value functions against the analytic affordance"
    ),
    "value-reasons": Command(
        "llm_planner_ros.evaluation.value_reasons_bench", "SayCan with analytic against learned affordances, in physics"
    ),
    "saycan-temperature": Command(
        "llm_planner_ros.evaluation.saycan_temperature_bench",
        "how often the affordance changes SayCan's choice, per temperature",
    ),
    "domain-load": Command(
        "llm_planner_ros.evaluation.domain_load_bench", "how long a domain of N skills takes to validate and load"
    ),
    "console": Command(
        "llm_planner_ros.evaluation.console_latency_bench", "how long a plan step takes to reach the console's page"
    ),
    "mcp": Command(
        "llm_planner_ros.evaluation.mcp_bench", "what llm-planner mcp adds to a round trip over the planner's action"
    ),
    "eai-scorer": Command(
        "llm_planner_ros.evaluation.eai_scorer_check",
        "the Embodied Agent Interface's VirtualHome scorer on known plans",
    ),
    "virtualhome": Command(
        "llm_planner_ros.evaluation.virtualhome_bench", "a method on VirtualHome action sequencing, scored by eai-eval"
    ),
}
