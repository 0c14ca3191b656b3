"""ProgPrompt under a flickering detector: a scene that changes at every step makes it re-write its program
only ``max_replans`` times per instruction; the next change ends the plan with the reason, well before the
step budget (in-process, scripted model)."""

from __future__ import annotations

import pytest
from changing_scenes import ChangingKitchen, rearranged
from language_model_doubles import ProgramModel
from repo_paths import REPO_ROOT
from world_builders import MakeWorld

from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.plan_loop import EndReason, run_plan
from llm_planner_ros.planning.progprompt.examples import load_examples
from llm_planner_ros.planning.progprompt.planner import ProgPromptOptions, ProgPromptPlanner

PROGRAM = "\n    find('coke')\n    pick_up('coke')\n    bring_it_to_you()\n    put_down('coke')\n"
EXAMPLES = REPO_ROOT / "domains/saycan_kitchen/examples/progprompt.yaml"


@pytest.fixture
def world(make_world: MakeWorld) -> World:
    return make_world("close counter", coke_1="far counter", sponge_1="table")


def flickering(world: World, steps: int) -> ChangingKitchen:
    """A detector that reports a second coke on the table after every other skill, and loses it after
    the ones in between (a false positive that comes and goes)."""
    return ChangingKitchen(
        world, {k: rearranged(coke_2="table") if k % 2 == 0 else rearranged(remove=("coke_2",)) for k in range(steps)}
    )


@pytest.mark.parametrize("max_replans", [3, 0])
def test_a_flickering_scene_ends_the_plan_after_max_replans_rewrites(world: World, max_replans: int) -> None:
    model = ProgramModel(PROGRAM)
    planner = ProgPromptPlanner(model, load_examples(EXAMPLES), ProgPromptOptions(max_replans=max_replans))
    result = run_plan(planner, "bring me a coke", flickering(world, 30), max_steps=30)

    assert result.reason == EndReason.NO_CANDIDATE, result.message
    assert len(model.generate_prompts) == 1 + max_replans, "one program per instruction plus one per re-plan"
    assert len(result.steps) < 10, "ended long before the step budget"
    assert result.message.startswith(f"the scene changed again after {max_replans} program re-write(s)")
    assert "(option max_replans)" in result.message and "coke_2 (coke)" in result.message
    assert len(result.replans) == 1 + max_replans


def test_the_count_starts_again_with_each_instruction(world: World) -> None:
    planner = ProgPromptPlanner(ProgramModel(PROGRAM), load_examples(EXAMPLES), ProgPromptOptions(max_replans=1))
    first = run_plan(planner, "bring me a coke", flickering(world, 10), max_steps=10)
    assert first.reason == EndReason.NO_CANDIDATE and planner.replans == 2
    second = run_plan(planner, "bring me a coke", ChangingKitchen(world, {}), max_steps=10)
    assert second.success and planner.replans == 0, second.message


def test_max_replans_is_read_from_the_options_and_checked() -> None:
    assert ProgPromptOptions.from_mapping({"max_replans": 2}).max_replans == 2
    with pytest.raises(ValueError, match="max_replans must be at least 0"):
        ProgPromptOptions(max_replans=-1)
