"""Re-planning when the scene changes mid-plan (planning.scene_change, in the shared plan loop): objects taken
away, moved or added between two steps, in-process on the symbolic kitchen, with scripted models."""

from __future__ import annotations

import pytest
from changing_scenes import ChangingKitchen, rearranged
from language_model_doubles import ProgramModel, ScriptedModel, StepPreferenceModel, WordEmbedder
from repo_paths import REPO_ROOT
from scripted_planner import ScriptedPlanner
from world_builders import MakeWorld

from llm_planner_ros.domain.world import World
from llm_planner_ros.paths import config_file
from llm_planner_ros.planning.decision import StepStatus
from llm_planner_ros.planning.knn_retriever import KnnRetriever
from llm_planner_ros.planning.llm_planner.planner import GenerationOptions, LlmPlanner, PlanGenerator
from llm_planner_ros.planning.llm_planner.prompt import LlmPlannerPrompt, PlanExample
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult, run_plan
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.planner import ProgPromptPlanner
from llm_planner_ros.planning.saycan.planner import SayCanOptions, SayCanPlanner
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.planning.scene_change import ScenePlanCheck, compare
from llm_planner_ros.planning.skill_projection import SkillProjector

FETCH_COKE = "find a coke, pick up the coke, bring it to you, put down the coke, done"


def llm_planner(model: ScriptedModel) -> LlmPlanner:
    examples = [PlanExample("Could you get me the coke?", tuple(FETCH_COKE.split(", ")), ("coke", "sponge"))]
    embedder = WordEmbedder()
    retriever = KnnRetriever(examples, lambda e: e.task, embedder)
    return LlmPlanner(
        PlanGenerator(model, retriever, LlmPlannerPrompt(), GenerationOptions(1)), SkillProjector(embedder)
    )


def trace(result: PlanResult) -> list[tuple[str, StepStatus]]:
    return [(step.skill.text, step.status) for step in result.steps]


@pytest.fixture
def world(make_world: MakeWorld) -> World:
    return make_world("close counter", coke_1="far counter", sponge_1="table")


def test_the_robots_own_moves_are_no_change_and_someone_elses_are(world: World) -> None:
    after = world.copy()
    for text in ("find a coke", "pick up the coke", "go to the table", "put down the coke"):
        after.apply(text)
    assert not compare(world, after, acted_on={"coke"})
    held = world.copy()
    held.apply("find a coke")
    held.apply("pick up the coke")
    assert not compare(world, held) and not compare(held, after)  # into or out of the gripper
    moved = rearranged(coke_1="table", apple_1="sink")(world)
    change = compare(world, rearranged(remove=("sponge_1",))(moved))
    assert (
        change.describe()
        == "sponge_1 (sponge) gone; apple_1 (apple) appeared at sink; coke_1 (coke) moved far counter -> table"
    )
    assert not compare(world, rearranged(remove=("coke_1",), coke_7="far counter")(world))  # a new id, same object


def test_a_new_object_matters_only_when_the_instruction_or_plan_names_it(world: World) -> None:
    check = ScenePlanCheck("bring me two cokes")
    check.check(world, ["go to the table", "done"])
    assert check.check(rearranged(apple_1="table")(world), ["go to the table", "done"]) is None
    why = check.check(rearranged(apple_1="table", coke_2="sink")(world), ["go to the table", "done"])
    assert why is not None and "a coke appeared (coke_2 at sink)" in why.reason
    assert check.check(world, ["pick up the apple"]) is not None  # the apple is gone, and the plan needs one


def test_llm_planner_replans_when_the_object_of_its_plan_is_taken_and_another_appears(world: World) -> None:
    # After "find a coke" brought the robot to the far counter, someone takes that coke and leaves one on
    # the table: the old plan's "pick up the coke" cannot run there any more.
    env = ChangingKitchen(world, {0: rearranged(remove=("coke_1",), coke_2="table")})
    model = ScriptedModel([[FETCH_COKE], ["find a coke, pick up the coke, bring it to you, put down the coke, done"]])
    result = run_plan(llm_planner(model), "bring me a coke", env, max_steps=10)

    assert result.reason == EndReason.DONE, result.message
    assert trace(result) == [(skill, StepStatus.SUCCEEDED) for skill in ["find a coke", *FETCH_COKE.split(", ")]]
    assert result.steps[0].message == ""
    assert result.steps[1].message.startswith(
        "re-planned: scene changed (coke_1 (coke) gone; coke_2 (coke) appeared at table): "
        "the plan can no longer go on: cannot 'pick up the coke'"
    )
    assert len(result.replans) == 1 and "re-plan(s) on scene changes" in result.message
    assert len(model.calls) == 2 and "Completed plans: find a coke\n" in model.calls[1].prompt
    assert [o.id for o in env.world.placed_at("user")] == ["coke_2"]


def test_llm_planner_replans_when_an_object_is_moved_away_but_not_for_an_unrelated_object(
    world: World, make_world: MakeWorld
) -> None:
    env = ChangingKitchen(world, {0: rearranged(coke_1="table", apple_1="far counter")})
    model = ScriptedModel([[FETCH_COKE], ["find a coke, pick up the coke, bring it to you, put down the coke, done"]])
    result = run_plan(llm_planner(model), "bring me a coke", env, max_steps=10)
    assert result.reason == EndReason.DONE and not any(s.status == StepStatus.FAILED for s in result.steps)
    assert result.replans == [
        "scene changed (apple_1 (apple) appeared at far counter; coke_1 (coke) moved far counter -> table): "
        "the plan can no longer go on: cannot 'pick up the coke': no coke within reach at the far counter; "
        "there is one at: table (precondition object_within_reach)"
    ]

    fresh = make_world("close counter", coke_1="far counter", sponge_1="table")
    unrelated = ChangingKitchen(fresh, {1: rearranged(apple_1="table")})
    model = ScriptedModel([[FETCH_COKE]])
    result = run_plan(llm_planner(model), "bring me a coke", unrelated, max_steps=10)
    assert result.reason == EndReason.DONE and result.replans == [] and len(model.calls) == 1
    assert [step.message for step in result.steps] == [""] * 4 + ["plan complete"]


def test_saycan_rescores_every_step_from_the_changed_world_without_a_replan(world: World) -> None:
    prompt = SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml"))
    model = StepPreferenceModel(
        [
            ["pick up the coke", "find a coke"],
            ["pick up the coke", "find a coke"],
            ["pick up the coke"],
            ["bring it to you"],
            ["put down the coke"],
            ["done"],
        ]
    )
    env = ChangingKitchen(world, {0: rearranged(remove=("coke_1",), coke_2="table")})
    result = run_plan(SayCanPlanner(model, prompt, SayCanOptions(top_k=60)), "bring me a coke", env, max_steps=10)

    assert result.reason == EndReason.DONE, result.message
    assert result.skills == [
        "find a coke",
        "find a coke",
        "pick up the coke",
        "bring it to you",
        "put down the coke",
        "done",
    ]
    assert not any(step.status == StepStatus.FAILED for step in result.steps)
    # The step after the change was scored against the new world: the coke the model wanted is gone.
    scores = {c.skill.text: c for c in result.steps[1].candidates}
    assert scores["pick up the coke"].affordance == 0.0 and scores["find a coke"].affordance > 0.0
    assert result.steps[1].message.startswith("scene changed (coke_1 (coke) gone; coke_2 (coke) appeared at table)")
    assert result.replans == [] and [o.id for o in env.world.placed_at("user")] == ["coke_2"]


def test_progprompt_writes_a_new_program_for_the_changed_scene(world: World) -> None:
    program = "\n    find('coke')\n    pick_up('coke')\n    bring_it_to_you()\n    put_down('coke')\n"
    model = ProgramModel(program)
    examples = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")
    env = ChangingKitchen(world, {0: rearranged(remove=("coke_1",), coke_2="table")})
    result = run_plan(ProgPromptPlanner(model, examples), "bring me a coke", env, max_steps=10)

    assert result.reason == EndReason.DONE, result.message
    assert result.skills == [
        "find a coke",
        "find a coke",
        "pick up the coke",
        "bring it to you",
        "put down the coke",
        "done",
    ]
    assert len(model.generate_prompts) == 2 and len(result.replans) == 1
    assert result.steps[1].message.startswith("re-planned: scene changed (coke_1 (coke) gone")


def test_a_step_by_step_method_only_notes_the_change(world: World) -> None:
    env = ChangingKitchen(world, {0: rearranged(coke_2="table")})
    result = run_plan(ScriptedPlanner(["find a coke", "done"]), "bring me a coke", env, max_steps=5)
    assert result.success and result.replans == []
    assert result.steps[1].message == (
        "scene changed (coke_2 (coke) appeared at table): a coke appeared (coke_2 at table), "
        "which the instruction or plan names; plan complete"
    )
