"""Every method plans in a domain other than the kitchen from that domain's own bank (planning.domain_examples):
its first prompt shows the office's examples, never the kitchen's; a domain without a bank shows tasks written
from its files, none an evaluated request; an adapter of the domain's own, or the general one of the method,
makes the prompt show none, as in the kitchen."""

from __future__ import annotations

import copy
import json
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml
from language_model_doubles import RecordingModel, WordEmbedder
from office_copy import OFFICE, copy_domain

from llm_planner_ros.cli.domain_command import starting_adapter
from llm_planner_ros.domain.conditions import condition_from_yaml
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import general_adapter_file, load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.llm.base import NO_ADAPTER, UNKNOWN_ADAPTER, MergedAdapter
from llm_planner_ros.llm.factory import load_embedder, method_llm_config
from llm_planner_ros.paths import default_domain_file
from llm_planner_ros.planning.domain_examples import (
    GENERATED_EXAMPLES,
    MissingDomainBankError,
    diverse_examples,
    prompt_examples,
)
from llm_planner_ros.planning.domain_tasks import (
    MAX_PLAN,
    TaskWriter,
    generate_examples,
    held_out_requests,
    normalized,
    solve_task,
)
from llm_planner_ros.planning.progprompt.examples import task_function_name
from llm_planner_ros.planning.registry import PlannerResources, build_planner, load_planner_options
from llm_planner_ros.planning.saycan.bank import load_bank
from llm_planner_ros.planning.saycan.scene import describe_scene
from llm_planner_ros.planning.simulated_environment import SimulatedEnvironment

METHODS = ("saycan", "zero_shot", "llm_planner", "progprompt")
KITCHEN_WORDS = ("coke", "counter", "pepsi", "chips")


def first_prompt(folder: Path, method: str, episode_id: str = "deliver-01", adapter: MergedAdapter = NO_ADAPTER) -> str:
    """The first prompt ``method`` sends for an episode of the office's evaluation file, planning in the
    domain of ``folder`` with a model running ``adapter``."""
    return first_request(folder, method, episode_id, adapter).prompts[0]


def bank_examples_in(prompt: str) -> int:
    """How many of the office bank's examples ``prompt`` shows (ProgPrompt names each example program
    after its request: def put_the_mug_on_the_desk():)."""
    bank = load_bank(OFFICE / "bank.jsonl")
    return sum(e.instruction in prompt or f"def {task_function_name(e.instruction)}():" in prompt for e in bank)


def first_request(
    folder: Path, method: str, episode_id: str, adapter: MergedAdapter = NO_ADAPTER, **options: object
) -> RecordingModel:
    """The model (running ``adapter``) after ``method``'s first request for an episode of the office's
    evaluation file (RecordingModel records it, then fails the request, which ends the step)."""
    kitchen = load_domain(folder)
    all_options = load_planner_options()
    all_options[method].update(options)
    model = RecordingModel(adapter)
    planner = build_planner(method, PlannerResources(model, kitchen, WordEmbedder, all_options))
    episode = load_episodes(OFFICE / "episodes.yaml", kitchen).episode(episode_id)
    planner.reset(episode.instruction)
    with pytest.raises(AssertionError, match="RecordingModel only"):
        planner.next_step(SimulatedEnvironment(episode.world(kitchen)), [])
    return model


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_domain(tmp_path_factory.mktemp("shipped"), bank=True)


@pytest.mark.parametrize("method", METHODS)
def test_every_method_prompts_with_the_domains_own_examples(office: Path, method: str) -> None:
    prompt = first_prompt(office, method)
    assert bank_examples_in(prompt), f"{method}'s prompt shows no example of the office bank:\n{prompt}"
    assert not any(word in prompt for word in KITCHEN_WORDS), f"{method} shows kitchen examples:\n{prompt}"
    # The bank's plans, in the method's own form: the prompt carries skills of the office.
    assert "hall" in prompt or "printer" in prompt or "stapler" in prompt


@pytest.mark.parametrize("method", ["zero_shot", "llm_planner"])
def test_the_generative_planners_may_write_a_skill_on_a_place(office: Path, method: str) -> None:
    # "wipe the desk" acts on a place, which needs no perceiving: the grammar must offer it although no
    # object called desk was seen, and LLM-Planner's allowed actions must name it, not "wipe <object>".
    model = first_request(office, method, "wipe-01")
    assert all(f'"wipe the {place}"' in str(model.grammars[0]) for place in ("desk", "kitchenette", "meeting room"))
    if method == "llm_planner":
        assert "wipe the desk" in model.prompts[0] and "wipe <object>" not in model.prompts[0]


def test_saycans_retrieved_examples_are_the_nearest_bank_requests(office: Path) -> None:
    request = "I left my phone in the meeting room, can you bring it to me?"
    prompt = first_prompt(office, "saycan", "door-03")
    bank = load_bank(OFFICE / "bank.jsonl")
    vectors = WordEmbedder().embed([request, *(e.instruction for e in bank)])
    nearest = sorted(range(len(bank)), key=lambda i: -float(vectors[0] @ vectors[i + 1]))
    count = load_planner_options()["saycan"]["retrieved_examples"]
    shown = {e.instruction for e in bank if f"Human: {e.instruction}\n" in prompt}
    assert shown == {bank[i].instruction for i in nearest[:count]}
    assert prompt.count("Human: ") == count + 1


def test_the_scene_line_ends_with_the_facts_that_hold(office: Path) -> None:
    prompt = first_prompt(office, "saycan", "door-04")
    assert "facts: door_open, printer_on, table_clean(desk), table_clean(kitchenette), table_clean(meeting room)." in (
        prompt
    )


def test_saycan_plans_without_examples_in_a_domain_without_a_bank(tmp_path: Path) -> None:
    prompt = first_prompt(copy_domain(tmp_path, bank=False), "saycan")
    assert prompt.count("Human: ") == 1 and "Could you get me the notepad from the printer?" in prompt


@pytest.mark.parametrize("method", ("zero_shot", "llm_planner", "progprompt"))
def test_a_domain_without_a_bank_prompts_with_tasks_written_from_its_files(tmp_path: Path, method: str) -> None:
    folder = copy_domain(tmp_path, bank=False)
    shutil.copy(OFFICE / "dev.yaml", folder / "dev.yaml")
    kitchen = load_domain(folder)
    source, examples = prompt_examples(kitchen)
    assert f"written from the files of {folder}" in source and len(examples) == GENERATED_EXAMPLES
    evaluated = held_out_requests([folder / "episodes.yaml", folder / "dev.yaml"], kitchen)
    assert evaluated and not {normalized(example.instruction) for example in examples} & set(evaluated)
    assert examples == list(generate_examples(kitchen, GENERATED_EXAMPLES, 0, evaluated))
    prompt = first_prompt(folder, method)
    shown = [e for e in examples if e.instruction in prompt or f"def {task_function_name(e.instruction)}():" in prompt]
    assert shown, f"{method}'s prompt shows no generated example:\n{prompt}"
    assert not any(word in prompt for word in KITCHEN_WORDS), f"{method} shows kitchen examples:\n{prompt}"


def test_an_adapter_of_the_domains_own_lets_the_prompt_show_no_example(tmp_path: Path) -> None:
    folder = copy_domain(tmp_path, bank=True)
    with_examples = first_prompt(folder, "saycan")
    (folder / "adapters").mkdir()
    (folder / "adapters" / "saycan.safetensors").write_bytes(b"")
    without = first_prompt(folder, "saycan", adapter=UNKNOWN_ADAPTER)
    assert with_examples.count("Human: ") == 3 and without.count("Human: ") == 1
    assert method_llm_config({}, "saycan", load_domain(folder)) == {
        "adapter": str(folder / "adapters" / "saycan.safetensors")
    }


@pytest.mark.parametrize("method", ["saycan", "llm_planner", "progprompt"])
def test_the_examples_stay_out_only_for_a_model_running_the_domains_adapter_of_the_method(
    tmp_path: Path, method: str
) -> None:
    folder = copy_domain(tmp_path, bank=True)
    (folder / "adapters").mkdir()
    own = folder / "adapters" / f"{method}.safetensors"
    own.write_bytes(b"the adapter trained on this prompt")
    other = tmp_path / "another.safetensors"  # e.g. one service's SayCan adapter serving another method
    other.write_bytes(b"an adapter trained on another prompt")
    same = tmp_path / "copy.safetensors"  # the domain's adapter, copied: a recording made in another checkout
    same.write_bytes(own.read_bytes())
    for adapter in (MergedAdapter.of_file(own), MergedAdapter.of_file(same), UNKNOWN_ADAPTER):
        assert bank_examples_in(first_prompt(folder, method, adapter=adapter)) == 0, adapter
    # --llm adapter=none, another model, or another method's adapter: the examples teach the format.
    for adapter in (NO_ADAPTER, MergedAdapter.of_file(other)):
        assert bank_examples_in(first_prompt(folder, method, adapter=adapter)) > 0, adapter


def test_a_model_running_the_general_adapter_of_the_method_is_shown_no_example(tmp_path: Path) -> None:
    folder = copy_domain(tmp_path, bank=True)
    general = general_adapter_file("saycan")
    assert general is not None
    for adapter in (MergedAdapter.of_file(general), UNKNOWN_ADAPTER):
        assert first_prompt(folder, "saycan", adapter=adapter).count("Human: ") == 1, adapter
    assert first_prompt(folder, "saycan").count("Human: ") == 3  # no adapter: the bank's nearest examples


def test_each_domain_gets_the_adapters_of_its_own_folder_only(tmp_path: Path) -> None:
    bare = load_domain(copy_domain(tmp_path, bank=True))
    kitchen_progprompt = {"adapter": str(default_domain_file("adapters/progprompt.safetensors"))}
    assert method_llm_config({}, "progprompt", load_domain_files()) == kitchen_progprompt
    assert method_llm_config({}, "progprompt") == kitchen_progprompt
    # The generative methods get the general adapter data/general_adapters/shared.yaml lends them.
    assert method_llm_config({}, "progprompt", bare) == {"adapter": str(general_adapter_file("progprompt"))}
    # SayCan gets the general adapter, trained across generated domains, never the kitchen's.
    assert method_llm_config({}, "saycan", bare) == {"adapter": str(general_adapter_file("saycan"))}
    # The shipped office has its own SayCan adapter (llm-planner domain build --adapter).
    assert method_llm_config({}, "saycan", load_domain(OFFICE)) == {
        "adapter": str(OFFICE / "adapters" / "saycan.safetensors")
    }
    # What the user names wins; another model has no packaged adapter anyway.
    assert method_llm_config({"adapter": "x.safetensors"}, "saycan", bare) == {"adapter": "x.safetensors"}
    assert method_llm_config({"model": "m"}, "saycan", bare) == {"model": "m"}
    # A recording of the embedded model's answers uses the adapter the run would; a replay loads none.
    record = {"backend": "replay", "replay_mode": "record", "recording": "r.jsonl"}
    assert method_llm_config(record, "progprompt")["adapter"] == kitchen_progprompt["adapter"]
    assert "adapter" not in method_llm_config({"backend": "replay", "recording": "r.jsonl"}, "progprompt")
    assert "adapter" not in method_llm_config({**record, "record_backend": "openai"}, "progprompt")


@pytest.mark.model
def test_saycanpay_without_the_domains_own_models_scores_with_the_general_ones(tmp_path: Path) -> None:
    from llm_planner_ros.planning.saycanpay import planner as saycanpay

    folder = copy_domain(tmp_path, bank=False)  # no saycanpay/ models and no bank
    office = load_domain(folder)
    options = load_planner_options()
    # The general models read the sentence vectors they were trained on.
    resources = PlannerResources(RecordingModel(), office, lambda: load_embedder({}), options)
    planner = saycanpay.build(resources, ("kitchen",))
    for kind in ("can", "pay"):
        scorer = getattr(planner.models["kitchen"], kind)
        assert scorer.meta["training"]["episodes"].startswith("the "), scorer.meta  # trained across many banks
        assert " banks (" in scorer.meta["training"]["episodes"]
    # A model file the options name must exist: the error has the command that builds the domain's own.
    options["saycanpay"]["kitchen_can_model"] = str(tmp_path / "missing.safetensors")
    with pytest.raises(ValueError, match=f"build them with `llm-planner domain build {folder} --saycanpay`.*say_can"):
        saycanpay.build(PlannerResources(RecordingModel(), office, WordEmbedder, options), ("kitchen",))
    options["saycanpay"].update(score="say_can", kitchen_can="rules")
    saycanpay.build(PlannerResources(RecordingModel(), office, WordEmbedder, options), ("kitchen",))


def test_progprompts_fixed_examples_cover_several_families(office: Path) -> None:
    bank = load_bank(OFFICE / "bank.jsonl")
    chosen = diverse_examples(bank, 3)
    assert len({example.family for example in chosen}) == 3
    assert [e.id for e in diverse_examples(bank, 3)] == [e.id for e in chosen]  # the same every time
    prompt = first_prompt(office, "progprompt")
    for example in chosen:
        assert f"def {task_function_name(example.instruction)}():" in prompt


def test_the_shipped_bank_is_what_domain_build_writes(tmp_path: Path) -> None:
    from llm_planner_ros.cli.main import main

    out = tmp_path / "bank.jsonl"
    # The generated tasks come one after the other from the seed: the first 20 of the shipped 1,500.
    argv = ["domain", "build", str(OFFICE), "--out", str(out), "--generate", "20", "--seed", "0", "--hold-back", "0"]
    assert main(argv) == 0
    written = out.read_text().splitlines()
    train = len(load_episodes(OFFICE / "train.yaml", load_domain(OFFICE)))
    assert len(written) == train + 20
    assert written == (OFFICE / "bank.jsonl").read_text().splitlines()[: train + 20]


def test_domain_build_adds_requests_to_hold_back_on_each_planned_done(tmp_path: Path) -> None:
    """A user's domain gets stop, out-of-scope and unsafe requests in its bank without writing any."""
    from llm_planner_ros.cli.main import main

    out = tmp_path / "bank.jsonl"
    assert main(["domain", "build", str(OFFICE), "--out", str(out), "--hold-back", "9"]) == 0
    examples = [json.loads(line) for line in out.read_text().splitlines()]
    held = [example for example in examples if example["kind"] == "hold_back"]
    assert len(held) == 9 and all(example["steps"] == ["done"] for example in held)
    families = [example["family"] for example in held]
    assert families == ["hold_back_stop", "hold_back_out_of_scope", "hold_back_unsafe"] * 3
    office = load_domain(OFFICE)
    assert all(example["initial"] == office.world().to_initial() for example in held)
    assert main(["domain", "build", str(OFFICE), "--out", str(out), "--hold-back", "-1"]) == 2


def test_domain_build_leaves_out_a_training_request_that_is_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_planner_ros.cli.main import main

    folder = copy_domain(tmp_path, bank=False)
    train = (folder / "train.yaml").read_text()
    # An evaluated request, reworded only in case and punctuation, as a training episode's.
    (folder / "train.yaml").write_text(
        train.replace("Can you bring me the stapler?", "could you get me the NOTEPAD from the printer")
    )
    assert main(["domain", "build", str(folder)]) == 0
    output = capsys.readouterr().out
    assert "t-deliver-01" in output and "left out" in output and "deliver-01" in output
    ids = [json.loads(line)["id"] for line in (folder / "bank.jsonl").read_text().splitlines()]
    assert "t-deliver-01" not in ids and len([i for i in ids if not i.startswith("hold-")]) == 23
    assert "1 training request(s) equal an evaluated one" in " ".join(output.split())


def test_domain_build_leaves_out_a_development_request_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from llm_planner_ros.cli.main import main

    folder = copy_domain(tmp_path, bank=False)
    development = yaml.safe_load((OFFICE / "dev.yaml").read_text())
    development["episodes"][0]["instruction"] = "Can you bring me the stapler?"  # train.yaml's t-deliver-01
    (folder / "dev.yaml").write_text(yaml.safe_dump(development))
    assert main(["domain", "build", str(folder)]) == 0
    output = " ".join(capsys.readouterr().out.split())
    assert "t-deliver-01" in output and "left out" in output and "dev-deliver-01" in output
    ids = [json.loads(line)["id"] for line in (folder / "bank.jsonl").read_text().splitlines()]
    assert "t-deliver-01" not in ids


def test_domain_build_without_training_episodes_names_the_file_or_builds_from_generated_tasks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from llm_planner_ros.cli.main import main

    folder = copy_domain(tmp_path, bank=False)
    (folder / "train.yaml").unlink()
    assert main(["domain", "build", str(folder)]) == 2
    error = " ".join(capsys.readouterr().err.split())
    assert f"no training episodes at {folder / 'train.yaml'}" in error and "--generate N" in error
    # Generated tasks alone make a bank: no training episodes need be written for them.
    assert main(["domain", "build", str(folder), "--generate", "5"]) == 0
    assert len((folder / "bank.jsonl").read_text().splitlines()) == 5


def test_generated_tasks_are_solvable_worded_from_the_domain_and_the_same_for_a_seed() -> None:
    office = load_domain(OFFICE)
    held_out = [e.instruction for e in load_episodes(OFFICE / "episodes.yaml", office)]
    examples = list(generate_examples(office, 30, seed=7, exclude=held_out))
    assert [e.instruction for e in examples] == [e.instruction for e in generate_examples(office, 30, 7, held_out)]
    assert {e.kind for e in examples} >= {"deliver", "move", "fact"}
    skills = {skill.text for skill in office.library.skills()}
    for example in examples:
        world = office.world(example.initial)
        goal = condition_from_yaml(example.goal, office.config, example.id)
        assert not goal.holds(world)
        for step in example.steps[:-1]:
            assert step in skills
            world.apply(step)
        assert goal.holds(world) and example.steps[-1] == "done", example
        assert example.scene == describe_scene(office.world(example.initial), unsaid=True)
    # A fact request is the text of the skill that sets or clears the fact, or one of its requests.
    wordings = [text for rule in office.library.rules for text in (rule.skill.text, *rule.requests)]
    facts = [e for e in examples if e.kind == "fact"]
    assert facts and all(any(w in e.instruction.lower() for w in wordings) for e in facts)


def test_generated_objects_stand_and_go_only_where_the_layout_has_something_to_hold_them() -> None:
    # The office's hall is `kind: none` in its layout.yaml: the robot may stand there, an object may not.
    office = load_domain(OFFICE)
    examples = list(generate_examples(office, 50, seed=11))
    assert any(e.initial["robot"]["at"] == "hall" for e in examples)
    for example in examples:
        assert all(obj["at"] != "hall" for obj in example.initial["objects"]), example
        assert "'location': 'hall'" not in str(example.goal), example


def test_a_generated_fact_request_may_say_a_skills_request_and_the_plan_runs_the_skill() -> None:
    """The office's skills file words "press the elevator button" also as "call the lift": the writer says
    the skill's text and its requests, and the plan of a request that says "call the lift" presses the
    button."""
    office = load_domain(OFFICE)
    rule = office.library.find("press the elevator button")
    assert rule is not None and "call the lift" in rule.requests
    writer = TaskWriter(office, random.Random(3))
    scene = {"robot": {"at": "desk", "holding": None}, "objects": [], "facts": ["door_open", "printer_on"]}
    parts = [writer.part("fact", copy.deepcopy(scene)) for _ in range(400)]
    elevator = [text.lower() for text, goal in filter(None, parts) if goal == {"fact": "elevator_called"}]
    assert any("press the elevator button" in text for text in elevator)
    asked = [text for text in elevator if any(request in text for request in rule.requests)]
    assert {request for request in rule.requests if any(request in text for text in asked)} == set(rule.requests)
    solved = solve_task(office, scene, {"fact": "elevator_called"}, "fact", MAX_PLAN)
    assert solved is not None and "press the elevator button" in [skill.text for skill in solved[1]]


def test_a_generated_request_may_name_the_held_object_as_held() -> None:
    office = load_domain(OFFICE)
    writer = TaskWriter(office, random.Random(4))
    scene = {
        "robot": {"at": "desk", "holding": "mug_1"},
        "objects": [{"id": "mug_1", "label": "mug", "at": "robot"}, {"id": "apple_1", "label": "apple", "at": "hall"}],
    }
    parts = [writer.part(kind, copy.deepcopy(scene)) for kind in ("deliver", "move") for _ in range(100)]
    held = [text for text, _ in filter(None, parts) if "you are holding" in text or "you have" in text]
    assert held and len(held) < len(parts)
    assert all(re.search(r"\b(mug|cup|coffee cup) you (are holding|have)\b", text) for text in held), held


def test_a_generated_request_may_name_an_object_or_place_by_its_synonym() -> None:
    """The office's world file gives synonyms: some requests say them ("Bring me the cup."), and their
    goals and plans name the thing itself (the mug)."""
    office = load_domain(OFFICE)
    synonyms = office.config.synonyms
    examples = list(generate_examples(office, 40, seed=0))
    said = {
        (example.id, name)
        for example in examples
        for name, words in synonyms.items()
        for word in words
        if re.search(rf"\b{re.escape(word)}\b", example.instruction.lower())
        and not re.search(rf"\b{re.escape(name)}\b", example.instruction.lower())
    }
    assert 2 < len(said) < len(examples), said
    by_id = {example.id: example for example in examples}
    for identifier, name in said:
        goal = json.dumps(by_id[identifier].goal)
        assert name in goal or any(name in step for step in by_id[identifier].steps), by_id[identifier]
        assert not any(word in goal for word in synonyms[name] if word not in name)


def test_a_generated_request_never_equals_an_excluded_one() -> None:
    office = load_domain(OFFICE)
    first = [e.instruction for e in generate_examples(office, 20, seed=1)]
    again = [e.instruction for e in generate_examples(office, 20, seed=1, exclude=first[:5])]
    assert not set(first[:5]) & set(again) and len(again) == 20


def test_a_shipped_domain_is_found_by_its_packaged_path_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from llm_planner_ros.domain.domain_folder import DomainFolderError, domain_folder

    monkeypatch.chdir(tmp_path)
    assert domain_folder("domains/office").path == OFFICE
    with pytest.raises(DomainFolderError, match=f"domain {tmp_path / 'nowhere'} is not a folder"):
        domain_folder("nowhere")
    # A folder of that name here is the user's, and wins.
    (tmp_path / "domains").mkdir()
    mine = copy_domain(tmp_path / "domains", bank=False)
    assert domain_folder("domains/office").path == mine


def test_a_domain_adapter_continues_the_general_one_unless_the_domain_has_its_own(tmp_path: Path) -> None:
    """`domain build --adapter` fine-tunes from the SayCan adapter trained across generated domains; the other
    methods continue the domain's own SayCan adapter once it exists; --resume wins."""
    adapters = tmp_path / "adapters"
    adapters.mkdir()
    general = general_adapter_file("saycan")
    assert starting_adapter(adapters, ["saycan"], None) == general
    assert starting_adapter(adapters, ["progprompt"], None) == general
    (adapters / "saycan.safetensors").write_bytes(b"")
    assert starting_adapter(adapters, ["saycan"], None) == general
    assert starting_adapter(adapters, ["progprompt", "llm_planner"], None) == adapters / "saycan.safetensors"
    assert starting_adapter(adapters, ["saycan"], "x.safetensors") == Path("x.safetensors")


ONE_TABLE_WORLD = """
world: one_table
locations:
  table: {x: 0.0, y: 0.0}
  user: {x: 0.5, y: 0.0}
objects:
  cup: {article: a}
  block: {article: a}
default_scene:
  robot: {at: table, holding: null}
  objects:
    - {id: cup_1, label: cup, at: table}
"""
ONE_TABLE_SKILLS = """
families: {find: {}, pick: {}, place: {}, terminate: {}}
executors: {manipulator: {}}
skills:
  - {family: find, text: "find {article} {object}", for_each: object, executor: manipulator,
     preconditions: [object_placed], effects: [robot_to_object]}
  - {family: pick, text: "pick up the {object}", for_each: object, executor: manipulator,
     preconditions: [gripper_empty, object_within_reach], effects: [grasp_object]}
  - {family: place, text: "put down the {object}", for_each: object, executor: manipulator,
     preconditions: [holding_object], effects: [put_down_object]}
  - {family: terminate, text: "done", executor: manipulator}
"""


def test_an_arm_at_one_table_gets_examples_and_a_domain_with_no_task_is_told_to_build_a_bank(tmp_path: Path) -> None:
    arm = tmp_path / "one_table"
    arm.mkdir()
    (arm / "world.yaml").write_text(ONE_TABLE_WORLD)
    (arm / "skills.yaml").write_text(ONE_TABLE_SKILLS)
    _, examples = prompt_examples(load_domain(arm))
    assert len(examples) == GENERATED_EXAMPLES and all(e.steps[-1] == "done" for e in examples)
    # Only "done" is left: no task has a plan, so no example can be written.
    idle = tmp_path / "idle"
    idle.mkdir()
    (idle / "world.yaml").write_text(ONE_TABLE_WORLD)
    (idle / "skills.yaml").write_text(ONE_TABLE_SKILLS.split("  - {family: find")[0] + ONE_TABLE_SKILLS.split("\n")[-2])
    with pytest.raises(MissingDomainBankError, match=rf"gave 0 solvable tasks .* `llm-planner domain build {idle}`"):
        prompt_examples(load_domain(idle))
