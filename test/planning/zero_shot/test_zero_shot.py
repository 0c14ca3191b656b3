"""The zero-shot planner: semantic translation, its termination rules, dynamic example selection and the
autoregressive prompt, with a scripted planning model."""

from __future__ import annotations

import math

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder
from world_builders import MakeWorld

from llm_planner_ros.domain.skill import TERMINATE
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.skill_projection import SkillProjector
from llm_planner_ros.planning.zero_shot.planner import ZeroShotOptions, ZeroShotPlanner
from llm_planner_ros.planning.zero_shot.prompt import Demonstration

DEMONSTRATIONS = [
    Demonstration(
        "Fetch me a pepsi.", ("find a pepsi", "pick up the pepsi", "bring it to you", "put down the pepsi", "done")
    ),
    Demonstration(
        "Carry the sponge over to the table.",
        ("find a sponge", "pick up the sponge", "go to the table", "put down the sponge", "done"),
    ),
    Demonstration(
        "Get rid of the finished lime soda.",
        ("find a lime soda", "pick up the lime soda", "go to the trash can", "put down the lime soda", "done"),
    ),
]


def planner(model: ScriptedModel, embedder: Embedder, **options: float) -> ZeroShotPlanner:
    retriever = KnnRetriever(DEMONSTRATIONS, lambda d: d.task, embedder)
    return ZeroShotPlanner(model, retriever, SkillProjector(embedder), ZeroShotOptions(**options))  # type: ignore[arg-type]


@pytest.mark.model
@pytest.mark.parametrize(
    ("phrase", "skill"),
    [
        ("grab the coke can", "pick up the coke"),
        ("look for an apple", "find an apple"),
        ("walk over to the far counter", "go to the far counter"),
        ("set the sponge down", "put down the sponge"),
        ("head to the trash", "go to the trash can"),
        ("hand the item to you", "bring it to you"),
        ("search for the energy bar", "find an energy bar"),
    ],
)
def test_translation_picks_the_skill_a_paraphrase_means(
    make_world: MakeWorld, minilm: Embedder, phrase: str, skill: str
) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter", apple_1="table", sponge_1="table"))
    zero_shot = planner(ScriptedModel([[phrase] * 3]), minilm, samples=3, epsilon=0.0)
    zero_shot.reset("help me out")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == skill, decision.candidates[:3]
    assert phrase in decision.note


def test_the_mean_log_prob_term_can_overrule_similarity(make_world: MakeWorld) -> None:
    # Both samples are exact skill texts (similarity 1); beta x mean log-prob decides between them.
    env = SimulatedEnvironment(make_world("far counter", coke_1="far counter", pepsi_1="far counter"))
    samples = [("pick up the coke", -3.0), ("pick up the pepsi", -0.2)]
    zero_shot = planner(ScriptedModel([samples, samples]), WordEmbedder(), samples=2, beta=0.3)
    zero_shot.reset("a soda please")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == "pick up the pepsi"
    scores = {c.skill.text: c.combined for c in decision.candidates}
    assert scores["pick up the pepsi"] == pytest.approx(1.0 - 0.3 * 0.2, abs=1e-5)
    # A skill scores by its best sample: the coke skill through the pepsi sample (3 of 4 words shared),
    # which beats the coke sample itself (similarity 1, but log-prob -3).
    assert scores["pick up the coke"] == pytest.approx(0.75 - 0.3 * 0.2, abs=1e-5)
    assert {c.skill.text: c.llm for c in decision.candidates}["pick up the coke"] == -0.2
    # Without the log-prob term, the tie goes to the first admissible skill of the two: the coke.
    unweighted = planner(ScriptedModel([samples]), WordEmbedder(), samples=2, beta=0.0)
    unweighted.reset("a soda please")
    assert unweighted.next_step(env, []).skill.text == "pick up the coke"  # type: ignore[union-attr]


def test_done_ends_the_plan_with_done(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["find a coke"] * 2, ["done", "done."]])
    result = run_plan(planner(model, WordEmbedder(), samples=2), "find the coke", env, max_steps=5)
    assert result.reason == EndReason.DONE
    assert [s.skill.text for s in result.steps] == ["find a coke", "done"]
    assert result.steps[-1].skill.family == TERMINATE


def test_more_than_half_empty_samples_ends_the_plan(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    # " 3." and "--" are empty once non-English edges are stripped (section 3.3 of the paper).
    six_empty = ["", " ", " 3.", "--", "", "", "find a coke", "find a coke", "find a coke", "find a coke"]
    zero_shot = planner(ScriptedModel([six_empty]), WordEmbedder(), samples=10)
    zero_shot.reset("find the coke")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is None and "6 of 10 samples were empty" in decision.note
    result = run_plan(planner(ScriptedModel([six_empty]), WordEmbedder(), samples=10), "find the coke", env, 5)
    assert result.reason == EndReason.NO_CANDIDATE and result.steps == []


def test_exactly_half_empty_samples_still_translates(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    five_empty = ["", "", "", "", "", "find a coke", "find a coke", "find a coke", "find a coke", "find a coke"]
    zero_shot = planner(ScriptedModel([five_empty]), WordEmbedder(), samples=10)
    zero_shot.reset("find the coke")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == "find a coke"


def test_a_best_score_below_epsilon_ends_the_plan(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    # Shares no word with any skill: similarity 0, score 0.3 x -0.5 = -0.15.
    zero_shot = planner(ScriptedModel([["juggle flaming torches"]]), WordEmbedder(), samples=1, epsilon=0.0)
    zero_shot.reset("entertain me")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is None
    assert "-0.15 < epsilon 0.0" in decision.note and "juggle flaming torches" in decision.note
    # The same phrase passes a threshold below its score.
    lenient = planner(ScriptedModel([["juggle flaming torches"]]), WordEmbedder(), samples=1, epsilon=-1.0)
    lenient.reset("entertain me")
    assert lenient.next_step(env, []).skill is not None


@pytest.mark.model
def test_dynamic_example_selection_and_autoregressive_prompt(make_world: MakeWorld, minilm: Embedder) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["look for the coke"], ["grab coke"], ["grab coke"]])
    zero_shot = planner(model, minilm, samples=1)
    zero_shot.reset("Throw the old coke in the trash.")
    assert zero_shot.example == DEMONSTRATIONS[2]  # "Get rid of the finished lime soda."
    assert model.calls == []
    first = zero_shot.next_step(env, [])
    assert model.calls[0].prompt == (
        "Task: Get rid of the finished lime soda.\nStep 1: find a lime soda\nStep 2: pick up the lime soda\n"
        "Step 3: go to the trash can\nStep 4: put down the lime soda\nStep 5: done\n\n"
        "Task: Throw the old coke in the trash.\nStep 1:"
    )
    assert model.calls[0].kwargs["n"] == 1 and model.calls[0].kwargs["stop"] == ("\n",)
    assert first.skill is not None and first.skill.text == "find a coke"
    zero_shot.observe(StepRecord(0, first.skill, first.candidates, StepStatus.SUCCEEDED))
    # The translated skill, not the sampled phrase, continues the prompt.
    second = zero_shot.next_step(env, [])
    assert model.calls[1].prompt.endswith("Task: Throw the old coke in the trash.\nStep 1: find a coke\nStep 2:")
    assert second.skill is not None and second.skill.text == "pick up the coke"
    # A failed step is not appended: the next sample continues from the same prompt.
    zero_shot.observe(StepRecord(1, second.skill, second.candidates, StepStatus.FAILED, "slipped"))
    zero_shot.next_step(env, [])
    assert model.calls[2].prompt == model.calls[1].prompt


def test_skill_embeddings_are_computed_once(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    embedder = WordEmbedder()
    zero_shot = planner(
        ScriptedModel([["find a coke"], ["pick up the coke"], ["bring it to you"]]), embedder, samples=1
    )
    zero_shot.reset("bring me the coke")
    for _ in range(3):
        zero_shot.next_step(env, [])
    skill_texts = [skill.text for skill in env.admissible_skills()]
    assert embedder.embedded.count("find a coke") == 2  # once with the skills, once as the first sample
    assert embedder.embedded.count("go to the table") == 1
    assert sum(text in skill_texts for text in embedder.embedded) == len(skill_texts) + 3


def test_samples_without_log_probs_are_ranked_by_similarity(make_world: MakeWorld) -> None:
    # A backend that cannot report token log-probs returns NaN for them.
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    samples = [("find a coke", float("nan")), ("juggle torches", float("nan"))]
    zero_shot = planner(ScriptedModel([samples]), WordEmbedder(), samples=2)
    zero_shot.reset("find the coke")
    decision = zero_shot.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == "find a coke"
    assert decision.candidates[0].combined == pytest.approx(1.0, abs=1e-5)
    assert math.isnan(decision.candidates[0].llm)  # reported as unknown, not as probability 1


def test_a_skill_that_failed_in_this_state_is_not_proposed_again_until_the_state_changes(
    make_world: MakeWorld,
) -> None:
    # The coke is at the far counter and the robot at the close counter: picking it up cannot run.
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    script = [["pick up the coke"], ["pick up the coke"], ["go to the far counter"], ["pick up the coke"]]
    model = ScriptedModel(script)
    zero_shot = planner(model, WordEmbedder(), samples=1, max_failures=1)
    zero_shot.reset("Bring me the coke.")
    first = zero_shot.next_step(env, [])
    assert first.skill is not None and first.skill.text == "pick up the coke"
    assert not env.execute(first.skill).success
    zero_shot.observe(StepRecord(0, first.skill, first.candidates, StepStatus.FAILED, "out of reach"))
    # Same state: the failed skill has left the grammar and the candidates; the same sample now
    # translates to another skill.
    second = zero_shot.next_step(env, [])
    assert "pick up the coke" in (model.calls[0].kwargs["grammar"] or "")
    assert "pick up the coke" not in (model.calls[1].kwargs["grammar"] or "")
    assert second.skill is not None and second.skill.text != "pick up the coke"
    assert "pick up the coke" not in {c.skill.text for c in second.candidates}
    # Another state (the robot moved): the skill is proposed again, and now it runs.
    third = zero_shot.next_step(env, [])
    assert third.skill is not None and third.skill.text == "go to the far counter"
    assert env.execute(third.skill).success
    zero_shot.observe(StepRecord(1, third.skill, third.candidates, StepStatus.SUCCEEDED))
    fourth = zero_shot.next_step(env, [])
    assert fourth.skill is not None and fourth.skill.text == "pick up the coke"
    assert env.execute(fourth.skill).success


def test_without_max_failures_the_failed_skill_is_proposed_again(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["pick up the coke"], ["pick up the coke"]])
    zero_shot = planner(model, WordEmbedder(), samples=1)
    zero_shot.reset("Bring me the coke.")
    first = zero_shot.next_step(env, [])
    assert first.skill is not None
    zero_shot.observe(StepRecord(0, first.skill, first.candidates, StepStatus.FAILED, "out of reach"))
    second = zero_shot.next_step(env, [])
    assert second.skill is not None and second.skill.text == "pick up the coke"
    with pytest.raises(ValueError, match="max_failures must be 0"):
        ZeroShotOptions(max_failures=-1)
