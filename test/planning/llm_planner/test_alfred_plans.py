"""Both ALFRED plan formats normalize to one vocabulary, so equal plans compare equal and others do not."""

from __future__ import annotations

import json

import pytest
from repo_paths import REPO_ROOT

from llm_planner_ros.planning.llm_planner.alfred_plans import (
    ACTIONS,
    CLEAN,
    COOL,
    GOTO,
    HEAT,
    PICKUP,
    PUT,
    SLICE,
    TOGGLE,
    AlfredStep,
    normalize_object,
    normalize_steps,
    parse_knn_trajectory,
    parse_plan_text,
    render_plan,
)

# The repository's copy of the ALFRED-HLP data (benchmarks/alfred_hlp/PROVENANCE.md).
DATASET = REPO_ROOT / "benchmarks" / "alfred_hlp"


def step(action: str, *arguments: str) -> AlfredStep:
    return AlfredStep(action, arguments)


def test_refined_sequence_with_and_without_trailing_done_reads_the_same() -> None:
    with_done = "1. GotoLocation(countertop), 2. PickupObject(ladle), 3. PutObject(ladle,diningtable), 4. Done."
    without = "1. GotoLocation(countertop), 2. PickupObject(ladle), 3. PutObject(ladle,diningtable)"
    expected = [step(GOTO, "countertop"), step(PICKUP, "ladle"), step(PUT, "ladle", "diningtable")]
    assert parse_plan_text(with_done) == expected
    assert parse_plan_text(without) == expected


def test_knn_trajectory_uses_pddl_names_lower_case_and_drops_open_close() -> None:
    gold_traj = [
        ["('Navigation','Cabinet')"],
        ["('OpenObject','Cabinet')", "('PickupObject','SaltShaker')", "('CloseObject','Cabinet')"],
        ["('Navigation','DiningTable')"],
        ["('PutObject','SaltShaker', 'DiningTable')"],
    ]
    assert parse_knn_trajectory(gold_traj) == [
        step(GOTO, "cabinet"),
        step(PICKUP, "saltshaker"),
        step(GOTO, "diningtable"),
        step(PUT, "saltshaker", "diningtable"),
    ]


def test_appliance_round_trips_collapse_to_clean_heat_and_cool() -> None:
    gold_traj = [
        [
            "('PutObject','Fork', 'Sink')",
            "('ToggleObjectOn','Faucet')",
            "('ToggleObjectOff','Faucet')",
            "('PickupObject','Fork')",
        ],
        [
            "('OpenObject','Microwave')",
            "('PutObject','PotatoSliced', 'Microwave')",
            "('CloseObject','Microwave')",
            "('ToggleObjectOn','Microwave')",
            "('ToggleObjectOff','Microwave')",
            "('OpenObject','Microwave')",
            "('PickupObject','PotatoSliced')",
            "('CloseObject','Microwave')",
        ],
        [
            "('OpenObject','Fridge')",
            "('PutObject','Apple', 'Fridge')",
            "('CloseObject','Fridge')",
            "('OpenObject','Fridge')",
            "('PickupObject','Apple')",
            "('CloseObject','Fridge')",
        ],
    ]
    assert parse_knn_trajectory(gold_traj) == [step(CLEAN, "fork"), step(HEAT, "potato"), step(COOL, "apple")]


def test_a_put_that_is_not_a_round_trip_stays_a_put() -> None:
    # The object left in the fridge (no pick-up after), and a different object picked up from the sink.
    text = "PutObject Potato Fridge, PutObject Knife Sink, ToggleObjectOn Faucet, PickupObject Fork"
    assert parse_plan_text(text) == [
        step(PUT, "potato", "fridge"),
        step(PUT, "knife", "sinkbasin"),
        step(TOGGLE, "faucet"),
        step(PICKUP, "fork"),
    ]


def test_lamp_toggles_become_toggle_object() -> None:
    assert parse_plan_text("('Navigation','FloorLamp'), ('ToggleObjectOn','FloorLamp')") == [
        step(GOTO, "floorlamp"),
        step(TOGGLE, "floorlamp"),
    ]


def test_both_formats_of_the_same_plan_are_equal() -> None:
    refined = (
        "1. GotoLocation(countertop), 2. PickupObject(butterknife), 3. GotoLocation(apple), 4. SliceObject(apple), "
        "5. GotoLocation(sinkbasin), 6. PutObject(butterknife,sinkbasin), 7. GotoLocation(countertop), "
        "8. PickupObject(apple), 9. GotoLocation(fridge), 10. CoolObject(apple), 11. Done."
    )
    interaction = [
        ["('Navigation','CounterTop')"],
        ["('PickupObject','ButterKnife')"],
        ["('Navigation','Apple')"],
        ["('SliceObject','Apple')"],
        ["('Navigation','SinkBasin')"],
        ["('PutObject','ButterKnife', 'Sink')"],
        ["('Navigation','CounterTop')"],
        ["('PickupObject','AppleSliced')"],
        ["('Navigation','Fridge')"],
        [
            "('OpenObject','Fridge')",
            "('PutObject','AppleSliced', 'Fridge')",
            "('CloseObject','Fridge')",
            "('OpenObject','Fridge')",
            "('PickupObject','AppleSliced')",
            "('CloseObject','Fridge')",
        ],
    ]
    assert parse_plan_text(refined) == parse_knn_trajectory(interaction)
    assert [s.action for s in parse_plan_text(refined)][-1] == COOL


@pytest.mark.parametrize(
    "generated",
    [
        "GotoLocation countertop, PickupObject ladle, PutObject ladle diningtable",
        "Navigation CounterTop, PickupObject, Ladle, PutObject, Ladle, DiningTable, Done",
        "1. GotoLocation(counter top), 2. PickupObject(ladle), 3. PutObject(ladle, dining table)",
        "gotolocation countertop. pickupobject ladle. putobject ladle diningtable. done. GotoLocation sofa",
    ],
)
def test_generated_spellings_normalize_to_the_gold_plan(generated: str) -> None:
    gold = parse_plan_text("1. GotoLocation(countertop), 2. PickupObject(ladle), 3. PutObject(ladle,diningtable)")
    assert parse_plan_text(generated) == gold


def test_different_plans_stay_different() -> None:
    gold = parse_plan_text("1. GotoLocation(countertop), 2. PickupObject(ladle), 3. Done.")
    assert parse_plan_text("GotoLocation countertop, PickupObject spatula") != gold
    assert parse_plan_text("GotoLocation countertop") != gold
    assert parse_plan_text("GotoLocation countertop, PickupObject ladle, PickupObject ladle") != gold


def test_render_then_parse_is_the_identity() -> None:
    plan = [step(GOTO, "sinkbasin"), step(CLEAN, "mug"), step(PUT, "mug", "coffeemachine"), step(SLICE, "bread")]
    assert (
        render_plan(plan) == "GotoLocation sinkbasin, CleanObject mug, PutObject mug coffeemachine, SliceObject bread"
    )
    assert parse_plan_text(render_plan(plan)) == plan


def test_object_names() -> None:
    assert normalize_object("Dining Table") == "diningtable"
    assert normalize_object("TomatoSliced") == "tomato"
    assert normalize_object("Sink") == "sinkbasin"
    assert normalize_object("BathtubBasin") == "bathtubbasin"


def test_unknown_action_names_the_vocabulary() -> None:
    with pytest.raises(ValueError, match="unknown ALFRED action 'Teleport'.*GotoLocation"):
        normalize_steps([("Teleport", ["kitchen"])])


def test_every_plan_of_both_files_normalizes_into_the_canonical_vocabulary() -> None:
    knn = json.loads((DATASET / "llm_planner_knn_set.json").read_text())
    refined = json.loads((DATASET / "refined_valid_seen_commands.json").read_text())
    plans = [parse_knn_trajectory(e["gold_traj"]) for e in knn] + [
        parse_plan_text(e["action_sequence"]) for e in refined
    ]
    assert all(plan and all(s.action in ACTIONS for s in plan) for plan in plans)
    # Every heat / cool / clean training example keeps its defining step after collapsing.
    signature = {
        "pick_heat_then_place_in_recep": HEAT,
        "pick_cool_then_place_in_recep": COOL,
        "pick_clean_then_place_in_recep": CLEAN,
        "look_at_obj_in_light": TOGGLE,
    }
    for example, plan in zip(knn, plans, strict=False):
        task_type = example["task"].split("-")[0]
        if task_type in signature:
            assert signature[task_type] in [s.action for s in plan], example["task"]
