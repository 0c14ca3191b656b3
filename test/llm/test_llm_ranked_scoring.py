"""Ranked scoring (branch and bound on p x weight, llm.ranking / llm.ranked_scorer) on the tiny model:
the kept best are exactly those of scoring every candidate, with fewer tokens; several prompts in
one call equal one call each; SayCan's pruned step chooses as its exhaustive step."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from language_model_doubles import RecordingModel

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.llm import ranked_scorer
from llm_planner_ros.llm.base import InvalidRequestError, LanguageModel, RankRequest, ScoreResult
from llm_planner_ros.llm.hf import HFLanguageModel
from llm_planner_ros.llm.ranking import ranked_indices
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.registry import PlannerResources, build_planner
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

OBJECTS = ["coke", "apple", "sponge", "tea", "pepsi", "redbull", "7up", "lime soda", "rice chips", "water bottle"]
PLACES = ["close counter", "far counter", "table", "trash can"]
SKILLS = (
    [f"find a {o}" for o in OBJECTS]
    + [f"pick up the {o}" for o in OBJECTS]
    + [f"put down the {o}" for o in OBJECTS]
    + [f"go to the {p}" for p in PLACES]
    + ["bring it to you", "done"]
)
PROMPT = "Human: How would you bring me a coke?\nRobot: 1. "


def exhaustive_best(full: Sequence[float], weights: Sequence[float], keep: int) -> list[int]:
    return sorted(range(len(full)), key=lambda i: (-math.exp(full[i]) * weights[i], i))[:keep]


def test_the_kept_best_equal_scoring_every_candidate(tiny_lm: HFLanguageModel, monkeypatch: pytest.MonkeyPatch) -> None:
    # this trie is small enough to be computed whole: make the search prune, as on a large vocabulary
    monkeypatch.setattr(ranked_scorer, "WHOLE_BELOW_TOKENS", 0)
    full = tiny_lm.score(PROMPT, SKILLS).log_probs
    rng = random.Random(0)
    pruned_somewhere = False
    for _ in range(25):
        weights = [rng.choice([0.0, 0.0, 0.1, 0.5, 0.9, 1.0, rng.random()]) for _ in SKILLS]
        keep = rng.choice([1, 3, 5])
        (answer,) = tiny_lm.score_ranked([RankRequest(PROMPT, SKILLS, weights, keep)])
        assert ranked_indices(answer.log_probs, weights)[:keep] == exhaustive_best(full, weights, keep)
        for value, expected in zip(answer.log_probs, full, strict=True):
            assert value is None or value == pytest.approx(expected, abs=1e-4)
        pruned_somewhere |= answer.scored < sum(w > 0 for w in weights)
        assert answer.computed_tokens > 0
    assert pruned_somewhere, "no ranking pruned anything: the bound is never used"


def test_zero_weights_fill_the_table_in_index_order(tiny_lm: HFLanguageModel) -> None:
    weights = [0.0] * len(SKILLS)
    weights[7] = 0.5
    (answer,) = tiny_lm.score_ranked([RankRequest(PROMPT, SKILLS, weights, keep=3)])
    # one positive weight, then the first two zero-weight candidates (the exhaustive sort's order)
    assert [i for i, v in enumerate(answer.log_probs) if v is not None] == [0, 1, 7]
    assert ranked_indices(answer.log_probs, weights) == [7, 0, 1]


def test_unprunable_rankings_equal_plain_scores_and_batch_across_prompts(tiny_lm: HFLanguageModel) -> None:
    prompts = [PROMPT, "Human: How would you throw away the sponge?\nRobot: 1. find a sponge, 2. "]
    requests = [RankRequest(p, SKILLS, [1.0] * len(SKILLS), len(SKILLS)) for p in prompts]
    together = tiny_lm.score_ranked(requests)
    for prompt, answer in zip(prompts, together, strict=True):
        alone = tiny_lm.score(prompt, SKILLS, per_token=True)
        assert answer.log_probs == pytest.approx(alone.log_probs, abs=1e-4)
        assert [len(t or ()) for t in answer.token_log_probs] == list(alone.token_counts)
    # ranked requests of two prompts in one call: each request's best as when asked alone
    weights = [0.9 if "coke" in s or "sponge" in s else 0.2 for s in SKILLS]
    ranked = [RankRequest(p, SKILLS, weights, 2) for p in prompts]
    for request, answer in zip(ranked, tiny_lm.score_ranked(ranked), strict=True):
        (single,) = tiny_lm.score_ranked([request])
        assert ranked_indices(answer.log_probs, weights)[:2] == ranked_indices(single.log_probs, weights)[:2]


def test_bad_weights_are_refused(tiny_lm: HFLanguageModel) -> None:
    with pytest.raises(InvalidRequestError, match="one weight per completion"):
        tiny_lm.score_ranked([RankRequest(PROMPT, SKILLS, [1.0], 1)])
    with pytest.raises(InvalidRequestError, match="finite and >= 0"):
        tiny_lm.score_ranked([RankRequest(PROMPT, SKILLS[:2], [1.0, -0.5], 1)])
    with pytest.raises(InvalidRequestError, match="keep must be at least 1"):
        tiny_lm.score_ranked([RankRequest(PROMPT, SKILLS[:2], [1.0, 1.0], 0)])


class _ScoreOnly(RecordingModel):
    """A backend without its own ranking, scoring with ``inner``: the interface's default scores every
    candidate."""

    def __init__(self, inner: LanguageModel) -> None:
        super().__init__()
        self.inner = inner

    def _score(self, prompt: str, completions: Sequence[str], per_token: bool) -> ScoreResult:
        return self.inner.score(prompt, completions, per_token)


def test_backends_without_pruning_rank_by_scoring_everything(tiny_lm: HFLanguageModel) -> None:
    weights = [0.3] * len(SKILLS)
    (answer,) = _ScoreOnly(tiny_lm).score_ranked([RankRequest(PROMPT, SKILLS, weights, 1)])
    assert answer.scored == len(SKILLS)
    assert answer.log_probs == pytest.approx(tiny_lm.score(PROMPT, SKILLS).log_probs, abs=1e-6)


def test_saycan_pruned_steps_choose_as_exhaustive_steps(tiny_lm: HFLanguageModel, tiny_model, tiny_tokenizer) -> None:
    kitchen = load_domain_files()
    exhaustive_lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny-llama", context_window=4096)
    pruned_lm = HFLanguageModel(tiny_model, tiny_tokenizer, "tiny-llama", context_window=4096)
    # The prompt file's own examples: the tiny model runs no adapter, for which "none" would retrieve.
    options = {"saycan": {"prompt_file": "saycan_grounded_prompt.yaml", "scene_context": True, "examples": "file"}}

    def planner(model: LanguageModel, prune: bool):
        return build_planner(
            "saycan", PlannerResources(model, kitchen, lambda: None, {"saycan": {**options["saycan"], "prune": prune}})
        )

    pruned, exhaustive = planner(pruned_lm, True), planner(exhaustive_lm, False)
    for instruction in ("How would you bring me a coke?", "Throw away the sponge."):
        world = kitchen.world()
        pruned.reset(instruction)
        exhaustive.reset(instruction)
        for step in range(3):
            a = pruned.next_step(SimulatedEnvironment(world.copy()), [])
            b = exhaustive.next_step(SimulatedEnvironment(world.copy()), [])
            assert [c.skill.text for c in a.candidates] == [c.skill.text for c in b.candidates], (instruction, step)
            assert [c.combined for c in a.candidates] == pytest.approx([c.combined for c in b.candidates], rel=1e-3)
            assert a.skill is not None and a.skill == b.skill
            if a.skill.text == "done":
                break
            if world.can_apply(a.skill):
                world.apply(a.skill)
            record = StepRecord(step, a.skill, (), StepStatus.SUCCEEDED)
            pruned.observe(record)
            exhaustive.observe(record)
