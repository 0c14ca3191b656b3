"""Graph tests of llm_service: the real node process serving the embedded model over ROS."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_harness import RosGraph, wait_future

from llm_planner_interfaces.srv import GenerateText, ScoreCompletions
from llm_planner_ros.llm.factory import load_language_model

OBJECTS = [
    "coke",
    "apple",
    "tea",
    "sponge",
    "pepsi",
    "redbull",
    "7up",
    "lime soda",
    "rice chips",
    "energy bar",
    "kettle chips",
    "water bottle",
]
SKILLS = ["find a coke", "pick up the coke", "go to the table", "bring it to you", "done"]
LOAD_WAIT_S = 180.0

pytestmark = [pytest.mark.graph, pytest.mark.model]


def score_request(prompt: str, completions: list[str], per_token: bool = False) -> ScoreCompletions.Request:
    return ScoreCompletions.Request(prompt=prompt, completions=completions, per_token=per_token)


def deep_client(graph: RosGraph, srv_type: Any, name: str) -> Any:
    """A client whose own request queue holds a burst of requests (the default keeps 10)."""
    client = graph.node.create_client(
        srv_type, name, qos_profile=QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE)
    )
    assert client.wait_for_service(timeout_sec=30.0), f"{name} not up\n{graph.logs()}"
    return client


@pytest.mark.timeout(900)
def test_one_model_serves_concurrent_clients(ros_graph: RosGraph, gguf_cache: Path) -> None:
    node = ros_graph.start_node("llm_service", params={"cache_dir": str(gguf_cache)}, name="llm_service")
    # the node's default model: the embedded SmolLM2 with the SayCan adapter merged in (adapter: auto)
    smollm2_lm = load_language_model({"cache_dir": str(gguf_cache)})
    assert smollm2_lm.name.endswith("+saycan")
    scores = deep_client(ros_graph, ScoreCompletions, "/llm/score")
    generate = deep_client(ros_graph, GenerateText, "/llm/generate")

    prompts = [f"Human: How would you bring me a {name}?\nRobot: 1. " for name in OBJECTS]
    futures = [scores.call_async(score_request(p, SKILLS, per_token=True)) for p in prompts]
    answers = [wait_future(f, LOAD_WAIT_S, f"score answer {i}") for i, f in enumerate(futures)]

    for prompt, answer in zip(prompts, answers, strict=False):
        assert answer.success, answer.message
        expected = smollm2_lm.score(prompt, SKILLS)
        assert list(answer.token_counts) == list(expected.token_counts)
        assert list(answer.log_probs) == pytest.approx(expected.log_probs, abs=1e-4)
        assert len(answer.token_log_probs) == sum(answer.token_counts)
        assert sum(answer.token_log_probs) == pytest.approx(sum(answer.log_probs), abs=1e-4)
        assert answer.model == smollm2_lm.name

    refused = wait_future(scores.call_async(score_request(prompts[0], [])))
    assert not refused.success and "completions is empty" in refused.message
    refused = wait_future(scores.call_async(score_request("", SKILLS)))
    assert not refused.success and "prompt is empty" in refused.message

    greedy = GenerateText.Request(prompt=prompts[0].rstrip(), max_tokens=6, stop=[","])
    answer = wait_future(generate.call_async(greedy))
    assert answer.success, answer.message
    assert list(answer.texts) == list(smollm2_lm.generate(prompts[0].rstrip(), max_tokens=6, stop=[","]).texts)
    sampled = wait_future(
        generate.call_async(GenerateText.Request(prompt=prompts[1], num_samples=3, max_tokens=4, temperature=0.8))
    )
    assert sampled.success and len(sampled.texts) == len(sampled.mean_log_probs) == 3
    refused = wait_future(generate.call_async(GenerateText.Request(prompt=prompts[1], temperature=-1.0)))
    assert not refused.success and "temperature" in refused.message

    assert node.returncode is None, ros_graph.logs()


@pytest.mark.timeout(300)
def test_a_model_that_cannot_load_answers_every_request_with_the_reason(ros_graph: RosGraph, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model.gguf"
    node = ros_graph.start_node("llm_service", params={"model": str(missing)}, name="llm_service")
    scores = ros_graph.service_client(ScoreCompletions, "/llm/score", timeout=60.0)
    generate = ros_graph.service_client(GenerateText, "/llm/generate", timeout=60.0)

    answer = wait_future(scores.call_async(score_request("Human: hi\nRobot: ", ["done"])), LOAD_WAIT_S)
    assert not answer.success
    assert f"model file not found at {missing}" in answer.message
    answer = wait_future(generate.call_async(GenerateText.Request(prompt="Human: hi\nRobot:")), LOAD_WAIT_S)
    assert not answer.success and "model file not found" in answer.message
    assert node.returncode is None, ros_graph.logs()
    assert "did not load" in ros_graph.logs()
