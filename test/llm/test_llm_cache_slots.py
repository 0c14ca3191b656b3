"""Cache slots (llm.tree_cache): robots with different prompt tails sharing one model each keep their
prompt cached, so a robot's next step computes only its new tokens; the scores are the same as with one
slot, and the slots stay bounded."""

from __future__ import annotations

from typing import Any

import pytest
from tiny_llm import KITCHEN_TEXT

from llm_planner_ros.llm.base import ModelLoadError, RankRequest
from llm_planner_ros.llm.factory import load_language_model
from llm_planner_ros.llm.hf import HFLanguageModel

PREAMBLE = "".join(f"{line}\n" for line in KITCHEN_TEXT[:6])
SKILLS = ["find a coke", "pick up the coke", "go to the table", "bring it to you", "put down the coke", "done"]
ROBOTS = {
    "robot1": "Scene: a coke and an apple on the far counter, a sponge on the table.\nHuman: Bring me the coke.\n",
    "robot2": "Scene: a sponge and a bag of chips on the close counter.\nHuman: Throw away the sponge.\n",
    "robot3": "Scene: nothing on the table, a water bottle in the trash can.\nHuman: Clean the table.\n",
}


def prompt(robot: str, steps: int) -> str:
    done = ", ".join(f"{i + 1}. {SKILLS[i]}" for i in range(steps))
    return f"{PREAMBLE}{ROBOTS[robot]}Robot: {done}{', ' if done else ''}{steps + 1}. "


def rank(lm: HFLanguageModel, text: str) -> Any:
    (answer,) = lm.score_ranked([RankRequest(text, SKILLS, [1.0] * len(SKILLS), len(SKILLS))])
    return answer


def interleaved(lm: HFLanguageModel, robots: list[str], steps: int) -> dict[tuple[str, int], Any]:
    """Robots taking turns, one step each, as planners sharing the model do."""
    return {(robot, step): rank(lm, prompt(robot, step)) for step in range(steps) for robot in robots}


def test_each_robot_continues_its_own_cached_prompt(tiny_model: Any, tiny_tokenizer: Any) -> None:
    one = interleaved(HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=1), ["robot1", "robot2"], 3)
    two = interleaved(HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=2), ["robot1", "robot2"], 3)
    for key, answer in two.items():
        assert answer.log_probs == pytest.approx(one[key].log_probs, abs=1e-4), key
    tail = len(tiny_tokenizer(ROBOTS["robot1"])["input_ids"])
    assert tail > 16, "the test needs tails longer than FORK_MIN_TOKENS"
    for step in (1, 2):
        for robot in ("robot1", "robot2"):
            # One slot: the other robot's call evicted this robot's tail, which is computed again.
            assert one[robot, step].computed_tokens - two[robot, step].computed_tokens >= tail - 2, (robot, step)


def test_slots_stay_bounded_and_the_oldest_prompt_makes_room(tiny_model: Any, tiny_tokenizer: Any) -> None:
    lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=2)
    reference = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=1)
    for robot in ("robot1", "robot2", "robot3", "robot1"):
        answer = rank(lm, prompt(robot, 0))
        assert answer.log_probs == pytest.approx(rank(reference, prompt(robot, 0)).log_probs, abs=1e-4)
        assert lm.cached_prompts <= 2
    # robot3 evicted robot1 (the oldest), so robot1's return recomputed its tail; robot3 is still cached
    again = rank(lm, prompt("robot3", 1))
    fresh = rank(HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=2), prompt("robot3", 1))
    assert again.computed_tokens < fresh.computed_tokens


def test_a_batch_of_robots_is_answered_as_each_alone(tiny_model: Any, tiny_tokenizer: Any) -> None:
    lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=3)
    requests = [RankRequest(prompt(robot, 1), SKILLS, [1.0] * len(SKILLS), 2) for robot in ROBOTS]
    together = lm.score_ranked(requests)
    reference = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny", cache_slots=1)
    for request, answer in zip(requests, together, strict=True):
        (alone,) = reference.score_ranked([request])
        assert answer.log_probs == pytest.approx(alone.log_probs, abs=1e-4)
    assert lm.cached_prompts == 3


def test_zero_slots_are_refused_before_loading() -> None:
    with pytest.raises(ModelLoadError, match="cache_slots must be at least 1"):
        load_language_model({"backend": "hf", "cache_slots": 0})
