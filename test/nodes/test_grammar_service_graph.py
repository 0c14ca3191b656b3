"""Graph test: grammar-constrained generation through /llm/generate, as a planner node calls it, and the
model's adapter as the service reports it (llm/model)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from ros_harness import RosGraph, wait_future
from tiny_llm import KITCHEN_TEXT

from llm_planner_interfaces.srv import GenerateText
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import NO_ADAPTER, LLMError
from llm_planner_ros.planning.grammars import plan_grammar
from llm_planner_ros.ros.llm_client import ServiceLanguageModel

pytestmark = [pytest.mark.graph]

PROMPT = "".join(f"{line}\n" for line in KITCHEN_TEXT[:3]) + "Human: bring me a 7up.\nRobot:"
SKILLS = [
    Skill("find a 7up", "find", ("7up",)),
    Skill("pick up the 7up", "pick", ("7up",)),
    Skill("go to the far counter", "goto", ("far counter",)),
    Skill("done", "terminate"),
]
STEP = r" (find a 7up|pick up the 7up|go to the far counter|done)"


@pytest.mark.timeout(300)
def test_the_service_constrains_generation_to_the_requests_grammar(ros_graph: RosGraph, tiny_model_dir: Path) -> None:
    node = ros_graph.start_node(
        "llm_service", params={"model": str(tiny_model_dir), "adapter": "none"}, name="llm_service"
    )
    ros_graph.service_client(GenerateText, "/llm/generate", timeout=60.0)
    model = ServiceLanguageModel(
        ros_graph.node, MutuallyExclusiveCallbackGroup(), timeout_s=120.0, server_wait_s=60.0, server_lost_s=30.0
    )
    # The service says which adapter its model runs (llm/model): a planner chooses its examples by it.
    assert model.adapter == NO_ADAPTER
    grammar = plan_grammar(SKILLS, ["7up"])

    result = model.generate(PROMPT, n=6, max_tokens=60, temperature=1.5, grammar=grammar)
    assert len(result.texts) == 6
    for text in result.texts:  # a whole plan line, or one the budget cut: never other text
        assert re.fullmatch(f"{STEP}(,{STEP})*\n", text) or re.fullmatch(
            f"({STEP},)*( [a-z0-9 ]*)?", text.removesuffix(",")
        ), text
    free = model.generate(PROMPT, n=6, max_tokens=20, temperature=1.5)
    assert any(not re.fullmatch(f"{STEP}(,{STEP})*\n", text) for text in free.texts)  # the grammar did it

    with pytest.raises(LLMError, match="not a valid Lark grammar"):
        model.generate(PROMPT, grammar="start: nowhere")
    answer = wait_future(
        ros_graph.service_client(GenerateText, "/llm/generate").call_async(
            GenerateText.Request(prompt=PROMPT, grammar='start: "a"', max_tokens=4)
        ),
        60.0,
    )
    assert answer.success and answer.texts == ["a"]
    assert node.returncode is None, ros_graph.logs()
