"""ProgPrompt end to end without ROS: the planner writes a program once, interprets it step by step in a
simulated kitchen, recovers through its asserts, skips infeasible steps, and refuses rejected programs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from language_model_doubles import ProgramModel
from repo_paths import REPO_ROOT
from world_builders import MakeWorld

from llm_planner_ros.domain import Domain, World
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.planning.decision import StepStatus
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult, run_plan
from llm_planner_ros.planning.progprompt.examples import ExamplesFileError, load_examples
from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

EXAMPLES = load_examples(REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml")

RECOVERING = """
    # 1: grab the coke
    pick_up('coke')
    assert('coke' in 'hand')
        else: find('coke')
        else: pick_up('coke')
    # 2: bring it to the user
    bring_it_to_you()
    put_down('coke')
"""


class FailFirstAttempt(FailureInjector):
    """Fails the first attempt of one skill text, as a slipping grasp would."""

    def __init__(self, text: str) -> None:
        super().__init__({}, enabled=True)
        self.text = text

    def attempt_fails(self, skill: Skill) -> bool:
        failing = skill.text == self.text
        self.text = "" if failing else self.text
        return failing


Planned = tuple[PlanResult, ProgPromptPlanner, ProgramModel, SimulatedEnvironment]


def plan(
    completion: str,
    world: World,
    assert_check: str = "rules",
    failures: FailureInjector | None = None,
    answer: Callable[[str], bool] = lambda _prompt: True,
    grammar: bool = True,
) -> Planned:
    model = ProgramModel(completion, answer)
    planner = ProgPromptPlanner(model, EXAMPLES, ProgPromptOptions(assert_check=assert_check, grammar=grammar))
    env = SimulatedEnvironment(world, failures=failures)
    return run_plan(planner, "bring me a coke", env, max_steps=20), planner, model, env


def steps(result: PlanResult) -> list[tuple[str, StepStatus]]:
    return [(step.skill.text, step.status) for step in result.steps]


@pytest.fixture
def world(make_world: MakeWorld) -> World:
    return make_world("table", coke_1="far counter", apple_1="table")


def test_an_infeasible_step_is_skipped_and_the_assert_recovers(world: World) -> None:
    result, planner, model, env = plan(RECOVERING, world)
    S = StepStatus.SUCCEEDED
    assert steps(result) == [
        ("pick up the coke", StepStatus.SKIPPED),
        ("find a coke", S),
        ("pick up the coke", S),
        ("bring it to you", S),
        ("put down the coke", S),
        ("done", S),
    ]
    assert result.reason == EndReason.DONE
    assert [(obj.id, obj.at) for obj in env.world.objects if obj.label == "coke"] == [("coke_1", "user")]
    skipped = result.steps[0]
    assert skipped.message == "line 3: pick_up('coke') is infeasible now (affordance 0.00 < 0.05)"
    assert skipped.candidates[0].affordance == 0.0 and skipped.candidates[0].llm == -0.25
    assert len(model.generate_prompts) == 1  # written once, then interpreted
    assert planner.program is not None and planner.program.name == "bring_me_a_coke"


def test_the_prompt_lists_the_scenes_objects_and_ends_with_the_task_header(world: World) -> None:
    _, _, model, _ = plan(RECOVERING, world)
    prompt = model.generate_prompts[0]
    assert "objects = ['apple', 'coke']" in prompt and prompt.endswith("def bring_me_a_coke():")


def test_a_failed_step_is_recovered_by_the_programs_assert(world: World) -> None:
    program = (
        "\n    find('coke')\n    pick_up('coke')\n    assert holding('coke') else: pick_up('coke')\n"
        "    bring_it_to_you()\n"
    )
    result, _, _, env = plan(program, world, failures=FailFirstAttempt("pick up the coke"))
    statuses = [status for _, status in steps(result)]
    assert statuses[:3] == [StepStatus.SUCCEEDED, StepStatus.FAILED, StepStatus.SUCCEEDED]
    assert result.success and env.world.holding is not None and env.world.robot_at == "user"


def test_a_rejected_program_dispatches_nothing_and_names_the_line(world: World) -> None:
    # Free generation (no grammar): the paper's method, where any bad line rejects the whole program.
    result, planner, _, env = plan("\n    find('coke')\n    import os\n    os.system('ls')\n", world, grammar=False)
    assert result.reason == EndReason.NO_CANDIDATE and result.steps == []
    assert result.message == (
        "the generated program was rejected: line 3: imports are not allowed: the skills are "
        "already imported; line 4: attribute access is not allowed: call the imported skills "
        "by name, e.g. find('coke')"
    )
    assert env.world.robot_at == "table" and planner.program is None
    assert planner.program_text.startswith("def bring_me_a_coke():\n    find('coke')\n    import os")


def test_an_empty_completion_is_rejected_with_a_reason(world: World) -> None:
    result, _, _, _ = plan("\nSure, here is a plan.", world)
    assert result.reason == EndReason.NO_CANDIDATE
    assert "line 1: not valid program syntax: expected an indented block" in result.message


def test_a_failed_assert_without_recovery_stops_the_plan(world: World) -> None:
    result, _, _, _ = plan("\n    go_to('trash can')\n    assert holding('coke')\n    bring_it_to_you()\n", world)
    assert steps(result) == [("go to the trash can", StepStatus.SUCCEEDED)]
    assert result.reason == EndReason.NO_CANDIDATE
    assert result.message == "the program stopped: line 3: assert holding(coke) failed, and has no recovery"


# 125 asserts before the first call: unbounded, each one a model call with `assert_check: llm`.
ASSERT_LOOP = """
    for _ in range(5):
        for _ in range(5):
            for _ in range(5):
                assert near('apple')
    find('coke')
"""


def test_a_loop_of_asserts_halts_at_the_check_budget_before_any_call(world: World) -> None:
    result, _, model, _ = plan(ASSERT_LOOP, world, assert_check="llm")
    assert result.reason == EndReason.NO_CANDIDATE and result.steps == []
    assert result.message == (
        "the program stopped: line 5: more than 50 checks without a skill call (option "
        "max_checks_per_step of config/planners.yaml's progprompt section)"
    )
    assert len(model.score_prompts) == 50
    model = ProgramModel(ASSERT_LOOP)
    planner = ProgPromptPlanner(model, EXAMPLES, ProgPromptOptions(max_checks_per_step=125))
    result = run_plan(planner, "bring me a coke", SimulatedEnvironment(world), max_steps=3)
    assert steps(result) == [("find a coke", StepStatus.SUCCEEDED), ("done", StepStatus.SUCCEEDED)]
    with pytest.raises(ValueError, match="max_checks_per_step must be at least 1, got 0"):
        ProgPromptOptions(max_checks_per_step=0)


def test_done_in_the_program_ends_the_plan_there(world: World) -> None:
    result, _, _, _ = plan("\n    find('coke')\n    done()\n    pick_up('coke')\n", world)
    assert steps(result) == [("find a coke", StepStatus.SUCCEEDED), ("done", StepStatus.SUCCEEDED)]
    assert result.success


def test_llm_checked_asserts_ask_the_model_with_the_state_facts(world: World) -> None:
    # The model (wrongly) says the robot is not near the coke after finding it: the recovery runs anyway.
    program = (
        "\n    find('coke')\n    assert(near('coke')) else: find('apple')\n"
        "    assert not holding('coke') else: done()\n"
    )
    result, _, model, _ = plan(
        program, world, assert_check="llm", answer=lambda prompt: "close to" not in prompt.split("\n\n")[-1]
    )
    assert steps(result)[:2] == [("find a coke", StepStatus.SUCCEEDED), ("find an apple", StepStatus.SUCCEEDED)]
    # `not holding` asks the positive question; the model says yes, so the `not` fails and done() runs.
    assert steps(result)[-1] == ("done", StepStatus.SUCCEEDED) and len(result.steps) == 3
    asked = model.score_prompts[0].split("\n\n")
    assert asked[-1] == (
        "State: the robot is at the far counter. the robot's hand is empty. "
        "a coke is at the far counter.\nQuestion: Is the robot close to a coke?\nAnswer:"
    )
    assert asked[0].startswith("State: the robot is at the table") and asked[0].endswith("Answer: Yes")
    assert len(asked) == len(EXAMPLES.feedback) + 1
    assert model.score_prompts[1].endswith("Question: Is the robot holding a coke?\nAnswer:")


def test_reset_starts_a_new_program(world: World, make_world: MakeWorld) -> None:
    _, planner, model, _ = plan(RECOVERING, world)
    model.completion = "\n    find('apple')\n"
    result = run_plan(planner, "find an apple", SimulatedEnvironment(make_world("table", apple_1="far counter")), 5)
    assert steps(result) == [("find an apple", StepStatus.SUCCEEDED), ("done", StepStatus.SUCCEEDED)]
    assert len(model.generate_prompts) == 2 and model.generate_prompts[1].endswith("def find_an_apple():")


def test_the_registry_builds_progprompt_from_its_config_section(kitchen: Domain) -> None:
    options = load_planner_options()
    resources = PlannerResources(
        ProgramModel(""), kitchen, embedder_factory=lambda: pytest.fail("no embedder needed"), options=options
    )
    planner = build_planner("progprompt", resources)
    assert isinstance(planner, ProgPromptPlanner) and planner.name == "progprompt"
    # the shipped section spells out the defaults, but for the prompt of the embedded model's adapter
    assert planner.options == ProgPromptOptions(examples="none", scene_context=True)
    bad = PlannerResources(
        ProgramModel(""),
        kitchen,
        lambda: None,  # type: ignore[arg-type,return-value]
        {"progprompt": {"limits": {"max_loops": 2}}},
    )
    with pytest.raises(ValueError, match="unknown progprompt option\\(s\\) limits.max_loops"):
        build_planner("progprompt", bad)
    with pytest.raises(ValueError, match="unknown assert_check 'vision'"):
        ProgPromptOptions(assert_check="vision")
    with pytest.raises(ValueError, match="unknown examples 'retrieved'; choose one of file, none"):
        ProgPromptOptions(examples="retrieved")


def test_build_refuses_example_programs_the_validator_rejects(kitchen: Domain, tmp_path: Path) -> None:
    examples = tmp_path / "examples.yaml"
    examples.write_text("programs:\n  - instruction: bring a coke\n    body: |\n      find('coke')\n      import os\n")
    resources = PlannerResources(
        ProgramModel(""),
        kitchen,
        lambda: None,  # type: ignore[arg-type,return-value]
        {"progprompt": {"examples_file": str(examples)}},
    )
    with pytest.raises(ExamplesFileError, match="programs\\[0\\].body: line 3: imports are not allowed"):
        build_planner("progprompt", resources)


def test_with_the_grammar_the_lines_before_a_rejected_one_run_and_the_cut_is_recorded(world: World) -> None:
    # A grammar-constrained program the validator still rejects: cut by the token budget mid-line.
    result, planner, model, env = plan("\n    find('coke')\n    pick_up('coke')\n    bring_it_to_y", world)
    S = StepStatus.SUCCEEDED
    assert steps(result) == [("find a coke", S), ("pick up the coke", S), ("done", S)]
    assert planner.cut is not None and planner.cut.line == 4
    assert "not the name 'bring_it_to_y'" in planner.cut.message
    grammar = model.grammars[0]
    # The program grammar of this scene: its objects, not every object the robot knows.
    assert grammar is not None and "\"'coke'\"" in grammar and "\"'sponge'\"" not in grammar


def test_without_the_grammar_no_grammar_is_sent(world: World) -> None:
    _, _, model, _ = plan(RECOVERING, world, grammar=False)
    assert model.grammars == [None]
