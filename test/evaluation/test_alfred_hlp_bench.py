"""``llm-planner bench alfred-hlp`` end to end on a two-task file, with a scripted model and embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder

from llm_planner_ros.cli.main import main
from llm_planner_ros.evaluation.alfred_hlp import load_tasks
from llm_planner_ros.evaluation.alfred_location_bound import StartPrior, with_guessed_starts
from llm_planner_ros.llm import factory
from llm_planner_ros.planning.llm_planner.alfred_plans import parse_plan_text, render_plan
from llm_planner_ros.planning.llm_planner.prompt import PlanExample

TASKS = [
    {
        "task_id": "trial_1",
        "task_type": "pick_cool_then_place_in_recep",
        "action_sequence": "1. GotoLocation(fridge), 2. PickupObject(apple), 3. CoolObject(apple), 4. Done.",
        "refined": "Chill the apple.",
        "original": ["cool an apple", "put an apple in the fridge"],
        "paraphras1_command": "Make the apple cold.",
        "paraphras2_command": "Cool down the apple.",
        "contextual_command": "We like cold apples.",
        "korean_command": "사과를 차갑게 하세요.",
    },
    {
        "task_id": "trial_2",
        "task_type": "pick_and_place_simple",
        "action_sequence": (
            "1. GotoLocation(sofa), 2. PickupObject(pillow), 3. GotoLocation(bed), 4. PutObject(pillow,bed)"
        ),
        "refined": "Put the pillow on the bed.",
        "original": ["move a pillow to the bed"],
        "paraphras1_command": "Place the pillow on the bed.",
        "paraphras2_command": "Set the pillow on the bed.",
        "contextual_command": "Pillows go on the bed here.",
        "korean_command": "베개를 침대에 놓으세요.",
    },
]
EXAMPLES = [
    {
        "task": "cool_x",
        "task_instr": "Cool down an egg.",
        "step_instr": [],
        "vis_objs": "{}",
        "gold_traj": [
            ["('Navigation','Fridge')"],
            ["('OpenObject','Fridge')", "('PickupObject','Egg')", "('CloseObject','Fridge')"],
        ],
    },
    {
        "task": "place_x",
        "task_instr": "Move the book to the desk.",
        "step_instr": [],
        "vis_objs": "{}",
        "gold_traj": [
            ["('Navigation','Sofa')"],
            ["('PickupObject','Book')"],
            ["('Navigation','Desk')"],
            ["('PutObject','Book', 'Desk')"],
        ],
    },
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    data, examples = tmp_path / "tasks.json", tmp_path / "knn.json"
    data.write_text(json.dumps(TASKS, ensure_ascii=False))
    examples.write_text(json.dumps(EXAMPLES))
    return data, examples


def test_accuracy_is_exact_match_of_normalized_plans(
    files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Right plan for task 1, written in the interaction vocabulary; task 2 misses its last step.
    model = ScriptedModel(
        [
            [
                " Navigation Fridge, OpenObject Fridge, PickupObject Apple, PutObject Apple Fridge,"
                " PickupObject Apple, Done"
            ],
            [" GotoLocation sofa, PickupObject pillow, GotoLocation bed"],
        ]
    )
    configs: list[dict[str, str]] = []
    monkeypatch.setattr(factory, "load_language_model", lambda config, report=None: configs.append(config) or model)
    monkeypatch.setattr(factory, "load_embedder", lambda config: WordEmbedder())
    data, examples = files
    out = tmp_path / "result.json"
    argv = [
        "bench",
        "alfred-hlp",
        "--data",
        str(data),
        "--examples",
        str(examples),
        "--variant",
        "paraphrase2",
        "--k",
        "1",
        "--json",
        str(out),
        "--llm",
        "backend=replay",
        "--llm",
        "recording=x.jsonl",
    ]
    assert main(argv) == 0

    report = json.loads(out.read_text())
    assert report["accuracy"] == 0.5 and report["tasks"] == 2 and report["llm_calls_per_task"] == 1.0
    assert [r["correct"] for r in report["results"]] == [True, False]
    assert report["results"][0]["predicted"] == "GotoLocation fridge, PickupObject apple, CoolObject apple"
    assert report["by_task_type"]["pick_and_place_simple"]["accuracy"] == 0.0
    assert configs == [{"backend": "replay", "recording": "x.jsonl"}]
    # The variant's instruction is planned, with the single nearest example in the normalized vocabulary.
    prompt = model.calls[0].prompt
    assert prompt.endswith(
        "Task description: Cool down an egg.\nNext plan: GotoLocation fridge, PickupObject egg\n\n"
        "Task description: Cool down the apple.\nNext plan:"
    )
    assert "Allowed actions are GotoLocation, PickupObject, PutObject, CleanObject, HeatObject, CoolObject" in prompt


@pytest.mark.parametrize(
    ("variant", "instruction"), [("original", "cool an apple"), ("korean", "사과를 차갑게 하세요.")]
)
def test_variants_read_their_field(files: tuple[Path, Path], variant: str, instruction: str) -> None:
    assert load_tasks(files[0], variant)[0].instruction == instruction


def test_a_file_of_another_format_is_refused_with_the_reason(
    files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data, examples = files
    assert main(["bench", "alfred-hlp", "--data", str(examples), "--examples", str(examples)]) == 2
    assert "lacks task_id, action_sequence, refined" in capsys.readouterr().err


def test_the_embedded_model_plans_alfred_with_the_alfred_adapter(
    files: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel([[" GotoLocation fridge"], [" GotoLocation sofa"]])
    configs: list[dict[str, str]] = []
    monkeypatch.setattr(factory, "load_language_model", lambda config, report=None: configs.append(config) or model)
    monkeypatch.setattr(factory, "load_embedder", lambda config: WordEmbedder())
    data, examples = files
    assert main(["bench", "alfred-hlp", "--data", str(data), "--examples", str(examples), "--k", "1"]) == 0
    assert configs == [{"backend": "hf", "adapter": "alfred_hlp"}]
    # An adapter named on the command line is kept.
    model.calls.clear()
    argv = ["bench", "alfred-hlp", "--data", str(data), "--examples", str(examples), "--llm", "adapter=none"]
    assert main(argv) == 0
    assert configs[-1] == {"backend": "hf", "adapter": "none"}


def test_start_bound_guesses_start_locations_from_the_training_set(files: tuple[Path, Path], tmp_path: Path) -> None:
    """No model: each gold plan with its start guessed from the examples (the book was fetched from the
    sofa, the egg from the fridge; a pillow or an apple never: the most frequent start, sofa by name)."""
    data, examples = files
    out = tmp_path / "bound.json"
    code = main(["bench", "alfred-hlp", "--data", str(data), "--examples", str(examples), "--start-bound",
                 "--json", str(out)])  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text())
    assert report["model"] == "start-location bound" and report["accuracy"] == 0.5
    first, second = report["results"]
    assert first["predicted"].startswith("GotoLocation sofa, PickupObject apple") and not first["correct"]
    assert second["correct"] and second["predicted"] == second["gold"]


def test_a_goto_to_the_object_itself_is_not_guessed() -> None:
    prior = StartPrior.of_examples([PlanExample("x", ("GotoLocation countertop", "PickupObject knife"))])
    plan = parse_plan_text("GotoLocation tomato, PickupObject tomato, GotoLocation drawer, PickupObject knife")
    guessed = with_guessed_starts(plan, prior)
    assert render_plan(guessed) == (
        "GotoLocation tomato, PickupObject tomato, GotoLocation countertop, PickupObject knife"
    )
    with pytest.raises(ValueError, match="no prior"):
        StartPrior.of_examples([PlanExample("y", ("PickupObject knife",))])
