"""llm_service under requests that used to crash it or hold it for minutes: a GenerateText with a
logit bias (LLM-Planner sends one with every plan), bias lists of different lengths, and requests over
each size limit. Every one is answered (served, or refused naming the reason) and the node keeps serving.

The node runs the replay backend on a recording written here: a request reaches the model only with
exactly the recorded arguments, so a bias whose words and values were paired wrongly finds no answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ros_harness import RosGraph, wait_until

from llm_planner_interfaces.srv import GenerateText, ScoreCompletions
from llm_planner_ros.processes import NodeProcess

pytestmark = pytest.mark.graph

PROMPT = "Human: How would you bring me a coke?\nRobot: 1."
ANSWER_WAIT_S = 30.0
# Exactly representable in float32 (the message's type), so the node's values equal the recorded ones.
BIAS = {"coke": 0.5, "find": 1.25, "pick": 2.0}
SKILLS = ["find a coke", "pick up the coke", "done"]


def generate_line(stop: list[str], bias: dict[str, float], text: str, max_tokens: int = 8) -> dict[str, Any]:
    request = {
        "method": "generate",
        "prompt": PROMPT,
        "n": 1,
        "max_tokens": max_tokens,
        "temperature": 0.0,
        "top_p": 1.0,
        "stop": stop,
        "logit_bias": bias,
    }
    return {"request": request, "response": {"texts": [text], "mean_log_probs": [-0.5]}, "model": "recorded"}


def write_recording(path: Path) -> Path:
    score = {
        "request": {"method": "score", "prompt": PROMPT + " ", "completions": SKILLS},
        "response": {"token_log_probs": [[-1.0, -0.5], [-2.0, -0.25], [-3.0]]},
        "model": "recorded",
    }
    lines = [generate_line([","], BIAS, " find a coke"), generate_line([","], {}, " pick up the coke"), score]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def start_service(graph: RosGraph, recording: Path, **limits: int) -> tuple[NodeProcess, Any, Any]:
    node = graph.start_node(
        "llm_service", name="llm_service", params={"backend": "replay", "recording": str(recording), **limits}
    )
    return (
        node,
        graph.service_client(ScoreCompletions, "/llm/score"),
        graph.service_client(GenerateText, "/llm/generate"),
    )


def call(graph: RosGraph, node: NodeProcess, client: Any, request: Any) -> Any:
    """The service's answer; fails at once, with the node's log, when the node died instead."""
    future = client.call_async(request)
    wait_until(lambda: future.done() or node.returncode is not None, ANSWER_WAIT_S, "the llm_service answer")
    assert node.returncode is None, f"llm_service died (exit {node.returncode}):\n{graph.logs()}"
    return future.result()


def biased(words: list[str], values: list[float]) -> GenerateText.Request:
    return GenerateText.Request(
        prompt=PROMPT, max_tokens=8, stop=[","], logit_bias_words=words, logit_bias_values=values
    )


def ordinary() -> GenerateText.Request:
    return GenerateText.Request(prompt=PROMPT, max_tokens=8, stop=[","])


@pytest.mark.timeout(120)
def test_a_logit_bias_is_served_and_mismatched_lists_are_refused(ros_graph: RosGraph, tmp_path: Path) -> None:
    node, _, generate = start_service(ros_graph, write_recording(tmp_path / "recording.jsonl"))

    answer = call(ros_graph, node, generate, biased(list(BIAS), list(BIAS.values())))
    assert answer.success, answer.message
    assert list(answer.texts) == [" find a coke"]

    for words, values in ((["coke", "find"], [0.5]), (["coke"], [0.5, 1.25]), ([], [1.0])):
        refused = call(ros_graph, node, generate, biased(words, values))
        assert not refused.success
        assert (
            f"logit_bias_words has {len(words)} words but logit_bias_values has {len(values)} values" in refused.message
        )

    answer = call(ros_graph, node, generate, ordinary())
    assert answer.success, answer.message
    assert list(answer.texts) == [" pick up the coke"]


LIMITS = {
    "max_prompt_chars": 60,
    "max_completions": 3,
    "max_completion_chars": 20,
    "max_samples": 2,
    "max_generate_tokens": 8,
    "max_sampled_tokens": 12,
    "max_stop_strings": 2,
    "max_bias_words": 3,
}


@pytest.mark.timeout(120)
def test_every_size_limit_is_refused_naming_its_parameter(ros_graph: RosGraph, tmp_path: Path) -> None:
    node, score, generate = start_service(ros_graph, write_recording(tmp_path / "recording.jsonl"), **LIMITS)
    over = [
        (
            "max_prompt_chars",
            61,
            "the prompt has 61 characters",
            score,
            ScoreCompletions.Request(prompt="x" * 61, completions=["done"]),
        ),
        ("max_prompt_chars", 70, "the prompt has 70 characters", generate, GenerateText.Request(prompt="y" * 70)),
        (
            "max_completions",
            4,
            "the request has 4 completions",
            score,
            ScoreCompletions.Request(prompt=PROMPT + " ", completions=[*SKILLS, "go to the table"]),
        ),
        (
            "max_completion_chars",
            21,
            "a completion has 21 characters",
            score,
            ScoreCompletions.Request(prompt=PROMPT + " ", completions=["done", "z" * 21]),
        ),
        ("max_samples", 3, "num_samples is 3", generate, GenerateText.Request(prompt=PROMPT, num_samples=3)),
        ("max_generate_tokens", 9, "max_tokens is 9", generate, GenerateText.Request(prompt=PROMPT, max_tokens=9)),
        # max_tokens 0 takes default_max_tokens (64): the limit applies to what would run.
        ("max_generate_tokens", 64, "max_tokens is 64", generate, GenerateText.Request(prompt=PROMPT)),
        (
            "max_sampled_tokens",
            14,
            "num_samples x max_tokens is 14",
            generate,
            GenerateText.Request(prompt=PROMPT, num_samples=2, max_tokens=7),
        ),
        (
            "max_stop_strings",
            3,
            "the request has 3 stop strings",
            generate,
            GenerateText.Request(prompt=PROMPT, max_tokens=8, stop=[",", ".", ";"]),
        ),
        (
            "max_bias_words",
            4,
            "the request has 4 logit_bias_words",
            generate,
            biased(["a", "b", "c", "d"], [1.0, 1.0, 1.0, 1.0]),
        ),
    ]
    assert {name for name, *_ in over} == set(LIMITS)
    for name, asked, what, client, request in over:
        refused = call(ros_graph, node, client, request)
        assert not refused.success, f"{name}: a request of {asked} was served"
        assert f"{what}, over the limit of {LIMITS[name]} ({name})" in refused.message, refused.message
        assert f"llm_service parameter {name}" in refused.message

    # Requests at the limits are served.
    answer = call(ros_graph, node, generate, biased(list(BIAS), list(BIAS.values())))
    assert answer.success, answer.message
    answer = call(ros_graph, node, score, ScoreCompletions.Request(prompt=PROMPT + " ", completions=SKILLS))
    assert answer.success, answer.message
    assert list(answer.log_probs) == [-1.5, -2.25, -3.0]
