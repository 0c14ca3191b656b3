"""LLM-Planner on the simulated kitchen: the prompt, logit biases, subgoal grounding and grounded re-planning,
with a scripted planning model."""

from __future__ import annotations

import pytest
from generative_doubles import PartiallyObservedKitchen
from language_model_doubles import ScriptedModel, WordEmbedder
from world_builders import MakeWorld

from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.llm.base import Embedder
from llm_planner_ros.planning.decision import StepRecord, StepStatus
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.planner import (
    GenerationOptions,
    LlmPlanner,
    LlmPlannerOptions,
    PlanGenerator,
    action_templates,
)
from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, PlanExample
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment
from llm_planner_ros.planning.skill_projection import SkillProjector

EXAMPLES = [
    PlanExample(
        "Take the apple over to the table.",
        ("find an apple", "pick up the apple", "go to the table", "put down the apple", "done"),
        ("apple", "tea"),
    ),
    PlanExample(
        "Could you get me the coke?",
        ("find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"),
        ("coke", "sponge"),
    ),
    PlanExample("Check the close counter.", ("go to the close counter", "done")),
]
FETCH_COKE = "find a coke, pick up the coke, bring it to you, put down the coke, done"


def llm_planner(
    model: ScriptedModel,
    embedder: Embedder | None = None,
    examples: int = 2,
    logit_bias: float = 0.1,
    **options: object,
) -> LlmPlanner:
    embedder = embedder or WordEmbedder()
    retriever = KnnRetriever(EXAMPLES, lambda e: e.task, embedder)
    generator = PlanGenerator(model, retriever, LlmPlannerPrompt(), GenerationOptions(examples, 96, logit_bias))
    return LlmPlanner(generator, SkillProjector(embedder), LlmPlannerOptions(**options))  # type: ignore[arg-type]


def test_action_templates_name_objects_by_placeholder_and_places_in_full() -> None:
    world = load_domain_files().world(
        {"robot": {"at": "table", "holding": None}, "objects": [], "drawer": {"open": False}}
    )
    templates = action_templates(world.admissible_skills())
    assert templates[:3] == ["find <object>", "pick up <object>", "put down <object>"]
    assert {
        "go to the table",
        "go to the trash can",
        "bring it to you",
        "done",
        "open the drawer",
        "put <object> in the drawer",
        "go to the drawers",
    } <= set(templates)
    assert len(templates) == len(set(templates)) == 13


def test_action_templates_give_a_skill_on_a_place_in_full() -> None:
    skills = [Skill("pick up the mug", "pick", ("mug",)), Skill("wipe the desk", "wipe", ("desk",))]
    assert action_templates(skills, places=("desk",)) == ["pick up <object>", "wipe the desk"]
    assert action_templates(skills) == ["pick up <object>", "wipe <object>"]  # the desk is not a place here


def test_prompt_has_the_papers_parts_in_order(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter", sponge_1="close counter"))
    model = ScriptedModel([[FETCH_COKE]])
    planner = llm_planner(model, examples=2)
    planner.reset("Could you get me the coke, please?")
    planner.next_step(env, [])
    prompt = model.calls[0].prompt
    assert prompt.startswith(
        "Create a high-level plan for completing a household task using the allowed actions and visible objects.\n"
        "Allowed actions are find <object>, pick up <object>, put down <object>, go to the close counter,"
    )
    # Two retrieved examples, the nearest ("... get me the coke?") last, next to the test task.
    assert prompt.index("Take the apple over to the table.") < prompt.index("Could you get me the coke?\n")
    assert "Check the close counter." not in prompt
    assert prompt.count("Task description:") == 3
    assert prompt.endswith(
        "Task description: Could you get me the coke?\nVisible objects are coke, sponge\n"
        f"Next plan: {FETCH_COKE}\n\n"
        "Task description: Could you get me the coke, please?\nVisible objects are coke, sponge\nNext plan:"
    )
    kwargs = model.calls[0].kwargs
    assert kwargs["temperature"] == 0.0 and kwargs["n"] == 1 and kwargs["stop"] == ("\n",)


def test_logit_bias_covers_allowed_actions_and_perceived_objects(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter", redbull_1="table"))
    model = ScriptedModel([[FETCH_COKE]])
    planner = llm_planner(model, logit_bias=0.1)
    planner.reset("Could you get me the coke?")
    planner.next_step(env, [])
    bias = model.calls[0].kwargs["logit_bias"]
    assert {"find", "pick", "up", "down", "counter", "trash", "done", "coke", "redbull"} <= set(bias)
    assert "<object>" not in bias and set(bias.values()) == {0.1}
    unbiased = ScriptedModel([[FETCH_COKE]])
    planner = llm_planner(unbiased, logit_bias=0.0)
    planner.reset("Could you get me the coke?")
    planner.next_step(env, [])
    assert unbiased.calls[0].kwargs["logit_bias"] is None


def test_a_static_plan_runs_to_done_with_one_llm_call(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([[FETCH_COKE]])
    result = run_plan(llm_planner(model), "bring me the coke", env, max_steps=10)
    assert result.reason == EndReason.DONE
    assert result.skills == ["find a coke", "pick up the coke", "bring it to you", "put down the coke", "done"]
    assert len(model.calls) == 1


def test_replanning_after_a_failed_subgoal_uses_completed_subgoals_and_newly_seen_objects(
    make_world: MakeWorld,
) -> None:
    # The robot starts at the close counter (it sees the sponge). The first plan looks for the coke on
    # the table: going there succeeds (now it has seen the apple too), picking up fails (no coke there).
    world = make_world("close counter", coke_1="far counter", sponge_1="close counter", apple_1="table")
    env = PartiallyObservedKitchen(world)
    model = ScriptedModel(
        [
            ["go to the table, pick up the coke, bring it to you, put down the coke, done"],
            ["go to the far counter, pick up the coke, bring it to you, put down the coke, done"],
        ]
    )
    planner = llm_planner(model)
    result = run_plan(planner, "bring me the coke", env, max_steps=10)

    assert [(s.skill.text, s.status) for s in result.steps[:2]] == [
        ("go to the table", StepStatus.SUCCEEDED),
        ("pick up the coke", StepStatus.FAILED),
    ]
    assert len(model.calls) == 2
    first, replan = model.calls[0].prompt, model.calls[1].prompt
    assert first.endswith("Task description: bring me the coke\nVisible objects are sponge\nNext plan:")
    assert replan.endswith(
        "Task description: bring me the coke\nCompleted plans: go to the table\n"
        "Visible objects are sponge, apple\nNext plan:"
    )
    assert "apple" in model.calls[1].kwargs["logit_bias"] and "apple" not in model.calls[0].kwargs["logit_bias"]
    assert result.reason == EndReason.DONE
    assert result.skills == [
        "go to the table",
        "go to the far counter",
        "pick up the coke",
        "bring it to you",
        "put down the coke",
        "done",
    ]
    assert [o.label for o in env.world.placed_at("user")] == ["coke"]


def test_a_tolerant_planner_retries_a_failed_subgoal_before_replanning(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    planner = llm_planner(ScriptedModel([["pick up the coke, done"], ["find a coke, done"]]), max_failures=2)
    planner.reset("bring me the coke")
    decision = planner.next_step(env, [])
    planner.observe(StepRecord(0, decision.skill, decision.candidates, StepStatus.FAILED, "no coke"))  # type: ignore[arg-type]
    assert planner.next_step(env, []).skill.text == "pick up the coke"  # type: ignore[union-attr]
    planner.observe(StepRecord(1, decision.skill, decision.candidates, StepStatus.FAILED, "no coke"))  # type: ignore[arg-type]
    assert planner.next_step(env, []).skill.text == "find a coke"  # type: ignore[union-attr]


@pytest.mark.parametrize("avoid", [True, False])
def test_a_replan_in_the_state_where_a_skill_failed_may_not_start_with_it(make_world: MakeWorld, avoid: bool) -> None:
    # The coke is far away: "pick up the coke" fails, the state stays as it was, and the re-plan's
    # prompt is the failed plan's own. Only the grammar keeps greedy decoding from writing it again.
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["pick up the coke, done"], [FETCH_COKE]])
    planner = llm_planner(model, avoid_failed_first=avoid)
    planner.reset("bring me the coke")
    decision = planner.next_step(env, [])
    planner.observe(StepRecord(0, decision.skill, decision.candidates, StepStatus.FAILED, "out of reach"))  # type: ignore[arg-type]
    planner.next_step(env, [])
    first, replan = model.grammars
    assert model.calls[0].prompt == model.calls[1].prompt
    assert first is not None and replan is not None and '"pick up the coke"' in first
    if not avoid:
        assert replan == first
        return
    first_rule = next(line for line in replan.splitlines() if line.startswith("first:"))
    assert '"pick up the coke"' not in first_rule and '"find a coke"' in first_rule
    assert '"pick up the coke"' in next(line for line in replan.splitlines() if line.startswith("step:"))


def test_steps_that_change_nothing_trigger_a_replan_after_stall_steps(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    stuck = "go to the close counter, go to the close counter, go to the close counter, done"
    model = ScriptedModel([[stuck], [FETCH_COKE]])
    result = run_plan(llm_planner(model, stall_steps=2), "bring me the coke", env, max_steps=10)
    # Two successful no-op steps, then a new plan (with both no-ops among the completed subgoals).
    assert [s.skill.text for s in result.steps[:3]] == [
        "go to the close counter",
        "go to the close counter",
        "find a coke",
    ]
    assert "Completed plans: go to the close counter, go to the close counter" in model.calls[1].prompt
    assert result.reason == EndReason.DONE


def test_a_plan_that_ends_without_done_is_continued(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["find a coke, pick up the coke"], ["bring it to you, put down the coke, done"]])
    result = run_plan(llm_planner(model), "bring me the coke", env, max_steps=10)
    assert result.reason == EndReason.DONE and len(model.calls) == 2
    assert "Completed plans: find a coke, pick up the coke\n" in model.calls[1].prompt


def test_the_planner_gives_up_after_max_replans(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    model = ScriptedModel([["pick up the coke"]] * 3)
    result = run_plan(llm_planner(model, max_replans=2), "bring me the coke", env, max_steps=10)
    assert result.reason == EndReason.NO_CANDIDATE
    assert "gave up after 2 re-plan(s)" in result.message and "failed" in result.message
    assert len(model.calls) == 3 and [s.status for s in result.steps] == [StepStatus.FAILED] * 3


def test_an_empty_plan_proposes_nothing(make_world: MakeWorld) -> None:
    env = SimulatedEnvironment(make_world("close counter", coke_1="far counter"))
    result = run_plan(llm_planner(ScriptedModel([[" ."]])), "bring me the coke", env, max_steps=10)
    assert result.reason == EndReason.NO_CANDIDATE and "generated no plan" in result.message


@pytest.mark.model
def test_subgoals_map_to_the_nearest_skill_or_trigger_a_replan(make_world: MakeWorld, minilm: Embedder) -> None:
    env = SimulatedEnvironment(make_world("far counter", coke_1="far counter"))
    model = ScriptedModel([["grab the coke can, sing a song about the weather"], ["done"]])
    planner = llm_planner(model, minilm, min_similarity=0.5)
    planner.reset("hold the coke")
    decision = planner.next_step(env, [])
    assert decision.skill is not None and decision.skill.text == "pick up the coke"
    assert "nearest skill 'pick up the coke'" in decision.note and decision.candidates[0].combined >= 0.5
    planner.observe(StepRecord(0, decision.skill, decision.candidates, StepStatus.SUCCEEDED))
    # "sing a song about the weather" is like no skill: re-plan instead of dispatching something.
    assert planner.next_step(env, []).skill.text == "done"  # type: ignore[union-attr]
    assert len(model.calls) == 2 and "Completed plans: pick up the coke" in model.calls[1].prompt


def test_newly_perceived_objects_replan_only_when_enabled(make_world: MakeWorld) -> None:
    plan = ["go to the table, go to the far counter, done"]
    for enabled, calls in ((False, 1), (True, 2)):
        env = PartiallyObservedKitchen(make_world("close counter", coke_1="close counter", apple_1="table"))
        model = ScriptedModel([plan, ["go to the far counter, done"]])
        result = run_plan(llm_planner(model, replan_on_new_objects=enabled), "look around", env, max_steps=10)
        assert result.reason == EndReason.DONE and len(model.calls) == calls
    assert "Completed plans: go to the table\nVisible objects are coke, apple\nNext plan:" in model.calls[1].prompt
