"""The instruction check before planning: control characters refused with their position, line breaks read
as spaces, the objects an instruction names found (never categories, places, paraphrases, negated or
told-about objects), and the missing_objects policies; no request of the dev suite or of the SayCan
example bank is refused in its own scene."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from office_copy import copy_domain
from repo_paths import REPO_ROOT
from world_builders import MakeWorld

from llm_planner_ros.domain import Domain, World
from llm_planner_ros.domain.domain_folder import load_domain
from llm_planner_ros.domain.episodes import load_episodes
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.instruction_check import (
    Confirm,
    InstructionError,
    ObjectVocabulary,
    Verdict,
    check_instruction,
    load_other_objects,
    normalise,
)
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult

EPISODE_FILES = [
    REPO_ROOT / "domains" / "saycan_kitchen" / "dev.yaml",
    REPO_ROOT / "test" / "data" / "sample_episodes.yaml",
]
BANK = REPO_ROOT / "domains" / "saycan_kitchen" / "bank.jsonl"


@pytest.fixture(scope="module")
def vocabulary(kitchen: Domain) -> ObjectVocabulary:
    return ObjectVocabulary.of_kitchen(kitchen.config)


@pytest.fixture
def world(make_world: MakeWorld) -> World:
    return make_world("table", coke_1="far counter", apple_1="table", sponge_1="close counter")


def refuse_to_confirm(_instruction: str, _step: StepRecord) -> tuple[bool, str]:
    raise AssertionError("only the confirm policy asks")


def check(
    text: str,
    vocabulary: ObjectVocabulary,
    world: World | None,
    policy: str = "refuse",
    confirm: Confirm = refuse_to_confirm,
) -> Verdict:
    return check_instruction(text, vocabulary, 2000, policy, lambda: world, confirm)


# ----- text ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "described", "position"),
    [
        ("bring me\athe sponge", "U+0007 ('\\x07')", 9),
        ("\x1bbring me the sponge", "U+001B ('\\x1b')", 1),
        ("bring me the sponge\x7f", "U+007F ('\\x7f')", 20),
        ("bring me the\x85sponge", "U+0085 ('\\x85')", 13),
        ("throw away the\u202e egnops", "U+202E (RIGHT-TO-LEFT OVERRIDE)", 15),
        ("bring\u200b me the sponge", "U+200B (ZERO WIDTH SPACE)", 6),
    ],
)
def test_control_and_format_characters_are_refused_with_code_point_and_position(
    text: str, described: str, position: int
) -> None:
    with pytest.raises(InstructionError) as refused:
        normalise(text, 2000)
    kind = "format" if ord(text[position - 1]) > 0x9F else "control"
    expected = f"the instruction has the {kind} character {described} at position {position}: remove it"
    assert str(refused.value).startswith(expected)


def test_tabs_and_line_breaks_read_as_one_space() -> None:
    assert normalise("  bring me\r\nthe\tsponge \n please\n", 2000) == "bring me the sponge please"
    assert normalise("bring me  the sponge", 2000) == "bring me  the sponge"  # plain spaces are left alone


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (" \n\t ", "the instruction is empty: say what the robot should do"),
        ("x" * 2001, "the instruction has 2001 characters; the limit is 2000 (parameter max_instruction_chars)"),
    ],
)
def test_empty_and_over_long_instructions_keep_their_messages(text: str, message: str) -> None:
    with pytest.raises(InstructionError, match=f"^{re.escape(message)}$"):
        normalise(text, 2000)


# ----- names -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("bring me the banana", ("banana",)),
        ("How would you bring me a coke can?", ("coke",)),
        ("throw away both cokes and the bananas", ("coke", "banana")),
        ("bring me a Red Bull and a 7-up", ("redbull", "7up")),
        ("put the jalapeño chips' bag and the knives away", ("jalapeno chips", "knife")),
        ("I'd like a banana", ("banana",)),
        ("Bring me a drink", ()),  # a category
        ("put something to clean with on the table", ()),  # a category and a place
        ("Bring me the scrubber", ()),  # a paraphrase: the planner's to interpret
        ("I love lemon-lime soda, can I have one?", ()),  # a compound, not the lime soda
        ("anything but the coke, please", ()),
        ("no pepsi, bring me a coke", ("coke",)),
        ("bring me a drink that isn't a coke", ()),
        ("I spilled my coke, can you bring me something to clean it up?", ()),  # told about, not asked for
        ("I spilled my juice and need a sponge", ("sponge",)),
    ],
)
def test_only_exact_object_names_that_are_asked_for_count(
    vocabulary: ObjectVocabulary, text: str, named: tuple[str, ...]
) -> None:
    assert vocabulary.named(text) == named


def test_other_objects_may_not_share_a_word_with_the_kitchen(kitchen: Domain) -> None:
    assert "banana" in load_other_objects()
    with pytest.raises(ValueError, match="'lime' shares the word.* lime .*remove it from other_objects.yaml"):
        ObjectVocabulary.of_kitchen(kitchen.config, ["banana", "lime"])
    with pytest.raises(ValueError, match="'dining table' shares the word.* table"):
        ObjectVocabulary.of_kitchen(kitchen.config, ["dining table"])


# ----- policies --------------------------------------------------------------------------------------
def test_refuse_ends_the_goal_missing_naming_what_is_absent_and_what_is_seen(
    vocabulary: ObjectVocabulary, world: World
) -> None:
    verdict = check("bring me the banana", vocabulary, world)
    assert verdict.refusal is not None and verdict.refusal.reason == EndReason.MISSING
    assert verdict.refusal.message.startswith("not in the scene: banana (seen: apple, coke, sponge): ")
    present = check("bring me the sponge\n", vocabulary, world)
    assert present.refusal is None and present.text == "bring me the sponge" and present.named == ("sponge",)


def test_warn_plans_and_the_result_says_what_was_absent(vocabulary: ObjectVocabulary, world: World) -> None:
    verdict = check("bring me the banana and the coke", vocabulary, world, policy="warn")
    assert verdict.refusal is None and verdict.text == "bring me the banana and the coke"
    result = verdict.annotate(PlanResult(EndReason.DONE, "done after 4 executed skill(s)"))
    assert result.message == (
        "done after 4 executed skill(s); planned anyway, not in the scene: banana (seen: apple, coke, sponge)"
    )


@pytest.mark.parametrize("approved", [True, False])
def test_confirm_asks_about_a_substitute(vocabulary: ObjectVocabulary, world: World, approved: bool) -> None:
    asked: list[tuple[str, StepRecord]] = []

    def confirm(instruction: str, step: StepRecord) -> tuple[bool, str]:
        asked.append((instruction, step))
        return approved, "operator said so"

    verdict = check("bring\tme the banana", vocabulary, world, policy="confirm", confirm=confirm)
    ((instruction, step),) = asked
    assert instruction == "bring me the banana" and step.skill.text == ""
    assert step.message == "not in the scene: banana (seen: apple, coke, sponge): go ahead with a substitute?"
    if approved:
        assert verdict.refusal is None and verdict.warning is not None and "banana" in verdict.warning
    else:
        assert verdict.refusal == PlanResult(
            EndReason.REFUSED,
            "not in the scene: banana (seen: apple, coke, sponge); a substitute was not approved: operator said so",
        )


def test_the_scene_is_read_only_for_instructions_that_name_objects(vocabulary: ObjectVocabulary) -> None:
    def no_scene() -> World | None:
        raise AssertionError("the scene was read")

    named_nothing = check_instruction("bring me a drink", vocabulary, 2000, "refuse", no_scene, refuse_to_confirm)
    assert named_nothing == Verdict("bring me a drink")
    verdict = check("bring me the coke", vocabulary, None)
    assert verdict.refusal is not None and verdict.refusal.reason == EndReason.ERROR
    assert verdict.refusal.message.startswith("no world state to find coke in")


def test_an_unknown_policy_is_an_error_naming_the_choices(vocabulary: ObjectVocabulary, world: World) -> None:
    verdict = check("bring me the coke", vocabulary, world, policy="ask")
    assert verdict.refusal == PlanResult(
        EndReason.ERROR, "parameter missing_objects is 'ask'; set it to one of refuse | confirm | warn"
    )


# ----- no false refusals -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", EPISODE_FILES, ids=lambda path: path.name)
def test_no_episode_is_refused_in_its_own_scene(kitchen: Domain, vocabulary: ObjectVocabulary, path: Path) -> None:
    refused = [
        (episode.id, verdict.refusal.message)
        for episode in load_episodes(path, kitchen)
        if (verdict := check(episode.instruction, vocabulary, episode.world(kitchen))).refusal is not None
    ]
    assert refused == []


def test_no_request_of_the_saycan_example_bank_is_refused_in_its_scene(
    kitchen: Domain, vocabulary: ObjectVocabulary
) -> None:
    examples = [json.loads(line) for line in BANK.read_text(encoding="utf-8").splitlines()]
    refused = [
        (example["instruction"], verdict.refusal.message)
        for example in examples
        if (verdict := check(example["instruction"], vocabulary, kitchen.world(example["initial"]))).refusal
    ]
    assert len(examples) >= 1000 and refused == []


def test_the_result_says_whether_each_named_object_was_found_and_moved(
    vocabulary: ObjectVocabulary, world: World
) -> None:
    verdict = check("bring me the sponge and the apple", vocabulary, world)
    after = world.copy()
    after.apply(after.skill("find a sponge"))
    after.apply(after.skill("pick up the sponge"))
    result = verdict.annotate(PlanResult(EndReason.DONE, "done after 2 executed skill(s)"), after)
    where = {obj.label: obj.at for obj in world.objects}
    assert result.message == (
        f"done after 2 executed skill(s); sponge: {where['sponge']} -> the gripper (moved); "
        f"apple: {where['apple']} (found, not moved)"
    )


def test_a_named_object_absent_before_and_after_is_reported_not_found(
    vocabulary: ObjectVocabulary, world: World
) -> None:
    verdict = check("bring me the banana", vocabulary, world, policy="warn")
    result = verdict.annotate(PlanResult(EndReason.NO_CANDIDATE, "nothing to do"), world)
    assert result.message.endswith("; banana: not found"), result.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A Cyrillic а inside a Latin word: the robot fetched kettle chips for it and reported success.
        (
            "bring me the b\u0430n\u0430na",
            "the word 'b\u0430n\u0430na' mixes Latin letters with U+0430 (CYRILLIC SMALL",
        ),
        ("bring me the \u0441\u043e\u043a\u0435", "look like 'coke': type the name in Latin letters"),  # all Cyrillic
        ("BRING ME THE \u0421\u041e\u041a\u0415", "look like 'coke'"),  # Cyrillic capitals
    ],
)
def test_look_alike_letters_are_refused(vocabulary: ObjectVocabulary, world: World, text: str, expected: str) -> None:
    verdict = check(text, vocabulary, world)
    assert verdict.refusal is not None and verdict.refusal.reason == EndReason.ERROR
    assert expected in verdict.refusal.message, verdict.refusal.message


@pytest.mark.parametrize("text", ["принеси мне сок", "给我拿一罐可乐", "Bring me a café au lait"])
def test_other_alphabets_in_their_own_words_are_planned(vocabulary: ObjectVocabulary, world: World, text: str) -> None:
    assert check(text, vocabulary, world).refusal is None


def test_in_another_domain_the_packaged_other_objects_give_way_to_its_own_labels() -> None:
    """The packaged list of objects the kitchen lacks names a phone; in the office, which has one, "phone"
    is the office's label, not an absent object (the planner would refuse to start otherwise)."""
    from llm_planner_ros.domain.domain_folder import load_domain

    office = load_domain(REPO_ROOT / "domains" / "office")
    vocabulary = ObjectVocabulary.of_kitchen(office.config)
    assert vocabulary.named("Bring me my phone and a banana.") == ("phone", "banana")
    # A list the user gives is still checked.
    with pytest.raises(ValueError, match="other object 'phone' shares the word"):
        ObjectVocabulary.of_kitchen(office.config, ["phone"])


def test_a_synonym_the_world_declares_names_its_label() -> None:
    """``synonyms`` of an object in the world file: "cup" asks for the mug, in the singular and the plural;
    without them it names nothing the check knows."""
    from dataclasses import replace

    from llm_planner_ros.domain.domain_folder import load_domain

    office = load_domain(REPO_ROOT / "domains" / "office").config
    assert ObjectVocabulary.of_kitchen(replace(office, synonyms={})).named("Bring me a cup.") == ()
    vocabulary = ObjectVocabulary.of_kitchen(replace(office, synonyms={"mug": ("cup", "coffee cup")}))
    assert vocabulary.named("Bring me a cup.") == ("mug",)
    assert vocabulary.named("Wash the coffee cups and the phone.") == ("mug", "phone")


def test_an_object_word_inside_a_places_name_asks_for_no_object(tmp_path: Path) -> None:
    # A workshop's "tool wall" is where the screws go, not a request for a tool (none is in the scene).
    folder = copy_domain(tmp_path, bank=False)
    world_file = folder / "world.yaml"
    world_file.write_text(
        world_file.read_text().replace(
            "  user:", "  paper tray:   {x: 3.0, y: -1.0, synonyms: [drink station]}\n  user:"
        )
    )
    office = load_domain(folder)
    vocabulary = ObjectVocabulary.of_kitchen(office.config)
    assert vocabulary.named("Put the stapler on the paper tray.") == ("stapler",)
    assert vocabulary.named("Leave the mug at the drink station, then bring me some paper.") == ("mug", "paper")
    scene = office.world(
        {"robot": {"at": "desk", "holding": None}, "objects": [{"id": "stapler_1", "label": "stapler", "at": "desk"}]}
    )
    verdict = check("Put the stapler on the paper tray.", vocabulary, scene)
    assert verdict.refusal is None and verdict.named == ("stapler",)
