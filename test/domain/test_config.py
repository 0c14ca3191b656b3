"""World and skill configuration files: the shipped ones load, broken ones say what to fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from repo_paths import TEST_DATA

from llm_planner_ros.domain import load_domain_files
from llm_planner_ros.domain.config import ConfigError, load_domain_config
from llm_planner_ros.paths import default_domain_file


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_shipped_configuration_loads() -> None:
    kitchen = load_domain_files()
    assert kitchen.config.world == "saycan_kitchen"
    assert set(kitchen.config.locations) == {"close counter", "far counter", "table", "trash can", "user"}
    assert kitchen.config.drawer is not None and kitchen.config.drawer.location == "drawers"
    assert kitchen.world().robot_at == "close counter"


def test_skill_template_with_unknown_precondition(tmp_path: Path) -> None:
    skills = yaml.safe_load(default_domain_file("skills.yaml").read_text())
    skills["skills"][1]["preconditions"] = ["gripper_empty", "object_levitating"]
    path = _write(tmp_path, "skills.yaml", skills)
    with pytest.raises(ConfigError, match=r"skills\[1\].preconditions\[1\]: unknown precondition 'object_levitating'"):
        load_domain_files(skills_file=path)


def test_duplicate_skill_texts_are_rejected_at_the_repeating_entry(tmp_path: Path) -> None:
    skills = yaml.safe_load(default_domain_file("skills.yaml").read_text())
    skills["skills"].append(skills["skills"][0])
    repeat = len(skills["skills"]) - 1
    path = _write(tmp_path, "skills.yaml", skills)
    with pytest.raises(ConfigError) as refused:
        load_domain_files(skills_file=path)
    message = str(refused.value)
    assert f"field skills[{repeat}]: makes the skill 'find a 7up', which skills[0] makes too" in message, message
    # At the repeated entry's own line, not at the `skills:` key.
    line = int(message.split("line ")[1].split(",")[0])
    assert path.read_text().splitlines()[line - 1].lstrip().startswith("- "), (line, message)


def test_world_file_errors_name_fields(tmp_path: Path) -> None:
    world = yaml.safe_load(default_domain_file("world.yaml").read_text())
    world["locations"]["table"] = {"x": 1.0}
    world["objects"]["apple"] = {"article": "the"}
    with pytest.raises(ConfigError) as raised:
        load_domain_config(_write(tmp_path, "world.yaml", world))
    assert {p.field for p in raised.value.problems} == {"locations.table.y", "objects.apple.article"}


def test_every_problem_of_a_skills_file_names_its_line(tmp_path: Path) -> None:
    # A family, a place and an executor the kitchen lacks, written first under `skills:` (after the
    # shipped file's comments and declarations): the template's lines are the five after it.
    shipped = default_domain_file("skills.yaml").read_text()
    top = shipped.splitlines().index("skills:") + 1
    path = tmp_path / "skills.yaml"
    path.write_text(
        shipped.replace(
            "skills:\n",
            "skills:\n  - family: wipe\n    text: wipe the {location}\n    for_each: location\n"
            "    locations: [table, desk]\n    executor: wiper\n",
            1,
        )
    )
    with pytest.raises(ConfigError) as raised:
        load_domain_files(skills_file=path)
    lines = {p.field: p.line for p in raised.value.problems}
    assert lines == {
        "skills[0].family": top + 1,
        "skills[0].executor": top + 5,
        "skills[0].locations[1]": top + 4,
    }, raised.value
    assert f"{path}: 3 problems" in str(raised.value)
    assert f"line {top + 1}, field skills[0].family: unknown family 'wipe'" in str(raised.value)


def test_a_missing_key_names_the_line_of_its_entry(tmp_path: Path) -> None:
    world = (
        default_domain_file("world.yaml")
        .read_text()
        .replace("  table:         {x: 2.5, y: 3.5}\n", "  table: {x: 2.5}\n")
    )
    path = tmp_path / "world.yaml"
    path.write_text(world)
    with pytest.raises(ConfigError) as raised:
        load_domain_config(path)
    (problem,) = raised.value.problems
    assert problem.field == "locations.table.y"
    assert problem.line == world.splitlines().index("  table: {x: 2.5}") + 1


def test_synonyms_load_and_every_clash_is_named_with_its_field(tmp_path: Path) -> None:
    world = yaml.safe_load(default_domain_file("world.yaml").read_text())
    world["objects"]["sponge"]["synonyms"] = ["dish sponge", "scrubber"]
    world["locations"]["table"]["synonyms"] = ["dining table"]
    config = load_domain_config(_write(tmp_path, "good.yaml", world))
    assert config.synonyms == {"table": ("dining table",), "sponge": ("dish sponge", "scrubber")}
    world["objects"]["coke"]["synonyms"] = ["scrubber", "pepsi"]
    world["objects"]["7up"]["synonyms"] = ["seven up", ""]
    world["objects"]["apple"]["synonyms"] = "fruit"
    with pytest.raises(ConfigError) as raised:
        load_domain_config(_write(tmp_path, "bad.yaml", world))
    message = str(raised.value)
    # the file's first claim to a word stands; the later one is named
    assert "objects.sponge.synonyms[1]: 'scrubber' is also a synonym of 'coke'" in message, message
    assert "objects.coke.synonyms[1]: 'pepsi' is itself an object label or location" in message, message
    assert "objects.7up.synonyms[1]: must be a non-empty string" in message, message
    assert "objects.apple.synonyms: must be a non-empty list" in message, message


def _skills_with(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """The shipped skills file with ``old`` written as ``new`` once, and the line of the change."""
    shipped = default_domain_file("skills.yaml").read_text()
    assert old in shipped
    path = tmp_path / "skills.yaml"
    path.write_text(shipped.replace(old, new, 1))
    return path, shipped[: shipped.index(old)].count("\n") + 1


# What a template string that is more than plain placeholders of a for_each: object template is told.
_NOT_A_PLACEHOLDER = (
    "is not a placeholder of this template; write one of {object}, {article} as it is "
    "(no attributes, indexes or format specs)"
)
_STRAY_BRACE = "has a brace outside a placeholder; write placeholders as {name}: {object}, {article}"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("pick up the {object.__init__}", f"{{object.__init__}} {_NOT_A_PLACEHOLDER}"),
        ("pick up the {object:>2000}", f"{{object:>2000}} {_NOT_A_PLACEHOLDER}"),
        ("pick up the {object.__init__.__globals__}", f"{{object.__init__.__globals__}} {_NOT_A_PLACEHOLDER}"),
        ("pick up the {object!r}", f"{{object!r}} {_NOT_A_PLACEHOLDER}"),
        ("pick up the {0}", f"{{0}} {_NOT_A_PLACEHOLDER}"),
        ("pick up the {object", f"'pick up the {{object' {_STRAY_BRACE}"),
        ("pick up the {{object}}", f"'pick up the {{{{object}}}}' {_STRAY_BRACE}"),
    ],
    ids=["attribute", "format spec", "globals", "conversion", "index", "unclosed", "escaped braces"],
)
def test_a_skill_text_with_more_than_plain_placeholders_is_refused_with_its_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    """Python's format syntax would name memory addresses, pad names to megabytes or crash the loader."""
    path, line = _skills_with(tmp_path, 'text: "pick up the {object}"', f'text: "{text}"')
    with pytest.raises(ConfigError) as raised:
        load_domain_files(skills_file=path)
    assert str(raised.value) == f"{path}: 1 problem\n  line {line}, field skills[1].text: {problem}"


def test_a_condition_or_request_with_a_format_spec_is_refused_with_its_line(tmp_path: Path) -> None:
    path, line = _skills_with(
        tmp_path,
        "preconditions: [gripper_empty, object_within_reach]",
        'preconditions: [{holding: "{object.__class__}"}]',
    )
    with pytest.raises(ConfigError) as raised:
        load_domain_files(skills_file=path)
    # A condition may also name the robot's place, {here}.
    placeholders = _NOT_A_PLACEHOLDER.replace("{article}", "{article}, {here}")
    expected = f"line {line}, field skills[1].preconditions[0]: {{object.__class__}} {placeholders}"
    assert str(raised.value) == f"{path}: 1 problem\n  {expected}"


@pytest.mark.parametrize(
    ("old", "new", "field", "problem"),
    [
        (
            "  table:         {x: 2.5, y: 3.5}",
            '  "ta\\u202eble": {x: 2.5, y: 3.5}',
            "locations.ta\\u202eble",
            "'ta\\u202eble' has the format character U+202E (RIGHT-TO-LEFT OVERRIDE) at position 3: remove it",
        ),
        (
            "  table:         {x: 2.5, y: 3.5}",
            '  table: {x: 2.5, y: 3.5, synonyms: ["dining\\u200btable"]}',
            "locations.table.synonyms[0]",
            "'dining\\u200btable' has the format character U+200B (ZERO WIDTH SPACE) at position 7: remove it",
        ),
        (
            "  apple:",
            "  \u0430pple:",
            "objects.\u0430pple",
            "the word '\u0430pple' mixes Latin letters with U+0430 (CYRILLIC SMALL LETTER A) at position 1: it looks "
            "like one word and is another; type it in one alphabet",
        ),
    ],
    ids=["override in a location", "zero-width space in a synonym", "Cyrillic letter in a label"],
)
def test_a_name_that_hides_what_it_says_is_refused_with_its_line(
    tmp_path: Path, old: str, new: str, field: str, problem: str
) -> None:
    """The rule an instruction gets (planning.instruction_check): a name can hide or reorder characters too."""
    shipped = default_domain_file("world.yaml").read_text()
    assert old in shipped
    path = tmp_path / "world.yaml"
    path.write_text(shipped.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ConfigError) as raised:
        load_domain_config(path)
    line = shipped[: shipped.index(old)].count("\n") + 1
    assert f"line {line}, field {field}: {problem}" in str(raised.value), raised.value


def test_a_skill_text_or_request_that_hides_what_it_says_is_refused_with_its_line(tmp_path: Path) -> None:
    path, line = _skills_with(tmp_path, 'text: "pick up the {object}"', 'text: "pick up the {object}\\u202e"')
    with pytest.raises(ConfigError) as raised:
        load_domain_files(skills_file=path)
    assert f"line {line}, field skills[1].text: 'pick up the {{object}}\\u202e' has the format character U+202E" in str(
        raised.value
    ), raised.value


def test_an_object_may_take_the_article_some(tmp_path: Path) -> None:
    world = yaml.safe_load((TEST_DATA / "office_corner" / "world.yaml").read_text())
    world["objects"]["coffee"] = {"article": "some"}
    path = _write(tmp_path, "world.yaml", world)
    domain = load_domain_files(path, TEST_DATA / "office_corner" / "skills.yaml")
    texts = {rule.skill.text for rule in domain.library.rules}
    assert "find some coffee" in texts and "find a mug" in texts, sorted(texts)
    world["objects"]["coffee"] = {"article": "any"}
    with pytest.raises(ConfigError, match=r"objects\.coffee\.article: unknown article 'any'.*'a', 'an', 'some'"):
        load_domain_files(_write(tmp_path, "world.yaml", world), TEST_DATA / "office_corner" / "skills.yaml")
