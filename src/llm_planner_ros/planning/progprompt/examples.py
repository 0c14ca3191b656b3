"""The example programs and state-feedback examples of ProgPrompt's prompts (a domain's examples/progprompt.yaml).

File format::

    programs:                     # example plan programs, shown in the program prompt in this order
      - instruction: throw away the apple     # becomes the function name throw_away_the_apple
        body: |                                # the function body, unindented; indented when rendered
          # 1: find the apple
          find('apple')
          ...
    state_feedback:               # examples of the assert-checking prompt (assert_check: llm)
      - facts: [the robot is at the table, an apple is at the table]
        question: Is the robot close to an apple?
        answer: yes
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from llm_planner_ros.domain.definition import Domain
from llm_planner_ros.domain.validation import Checker, Problem, ValidationError, join
from llm_planner_ros.planning.progprompt.errors import ProgramError
from llm_planner_ros.planning.progprompt.validator import ProgramLimits, parse_program
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary, call_texts, scene_vocabulary
from llm_planner_ros.planning.saycan.bank import PlanExample
from llm_planner_ros.yaml_text import load_yaml

INDENT = "    "


class ExamplesFileError(ValidationError):
    """domains/saycan_kitchen/examples/progprompt.yaml (or the configured file) does not match the format above."""


@dataclass(frozen=True)
class ExampleProgram:
    """One example plan: the instruction it solves and the body of its function."""

    instruction: str
    body: str

    def text(self, comment: bool = False) -> str:
        """The example as the prompt shows it: ``def <task>():`` (with ``comment``, the instruction as a
        comment under it) and the indented body."""
        return function_header(self.instruction, comment) + "\n" + indent(self.body)


@dataclass(frozen=True)
class FeedbackExample:
    """One solved assert check: state facts, the question about them, and the right answer."""

    facts: tuple[str, ...]
    question: str
    answer: bool


@dataclass(frozen=True)
class PromptExamples:
    """Everything an examples file holds; ``source`` names the file in errors."""

    programs: tuple[ExampleProgram, ...]
    feedback: tuple[FeedbackExample, ...]
    source: str = ""


def task_function_name(instruction: str) -> str:
    """The plan function's name for an instruction: "Bring me a coke!" -> ``bring_me_a_coke``."""
    words = re.findall(r"[a-z0-9]+", instruction.lower())
    name = "_".join(words)[:60].strip("_") or "task"
    return f"task_{name}" if name[0].isdigit() or keyword.iskeyword(name) else name


def function_header(instruction: str, comment: bool = False) -> str:
    """``def <task>():``; with ``comment`` the whole instruction follows on the body's first line as a
    comment, since the function's name keeps only its first 60 characters (a request that lists its goals,
    as VirtualHome's do, loses them there)."""
    header = f"def {task_function_name(instruction)}():"
    return f"{header}\n{INDENT}# {' '.join(instruction.split())}" if comment else header


def indent(body: str) -> str:
    return "\n".join(INDENT + line if line.strip() else "" for line in body.strip("\n").split("\n"))


def load_examples(path: str | Path) -> PromptExamples:
    """Read and check an examples file; ExamplesFileError lists every problem with its field."""
    source = str(path)
    try:
        data = load_yaml(Path(path).read_text(), str(path))
    except yaml.YAMLError as error:
        raise ExamplesFileError(source, [Problem("", f"not valid YAML: {error}")]) from error
    check = Checker()
    top = check.mapping(data, "", required=("programs",), optional=("state_feedback",))
    programs: list[ExampleProgram] = []
    feedback: list[FeedbackExample] = []
    if top is not None:
        for index, item in enumerate(check.list_of(top["programs"], "programs") or []):
            if (program := _example_program(item, check, join("programs", index))) is not None:
                programs.append(program)
        items = check.list_of(top.get("state_feedback", []), "state_feedback", allow_empty=True) or []
        for index, item in enumerate(items):
            if (example := _feedback_example(item, check, join("state_feedback", index))) is not None:
                feedback.append(example)
    check.raise_if_any(source, ExamplesFileError)
    return PromptExamples(tuple(programs), tuple(feedback), source)


def _example_program(item: object, check: Checker, where: str) -> ExampleProgram | None:
    entry = check.mapping(item, where, required=("instruction", "body"))
    if entry is None:
        return None
    instruction = check.string(entry["instruction"], join(where, "instruction"))
    body = check.string(entry["body"], join(where, "body"))
    return None if instruction is None or body is None else ExampleProgram(instruction, body)


def _feedback_example(item: object, check: Checker, where: str) -> FeedbackExample | None:
    entry = check.mapping(item, where, required=("facts", "question", "answer"))
    if entry is None:
        return None
    listed = check.list_of(entry["facts"], join(where, "facts")) or []
    facts = [check.string(fact, join(join(where, "facts"), i)) for i, fact in enumerate(listed)]
    question = check.string(entry["question"], join(where, "question"))
    answer = check.boolean(entry["answer"], join(where, "answer"))
    if not facts or any(fact is None for fact in facts) or question is None or answer is None:
        return None
    return FeedbackExample(tuple(str(fact) for fact in facts), question, answer)


def check_example_programs(examples: PromptExamples, kitchen: Domain, limits: ProgramLimits) -> None:
    """Every example program must pass the validator in the kitchen (all labels present, no drawer):
    ExamplesFileError names the program and each line that does not."""
    world = kitchen.world()
    vocabulary = Vocabulary.of_scene(world.admissible_skills(), world, kitchen.config.labels)
    problems = []
    for index, example in enumerate(examples.programs):
        try:
            parse_program(example.text(), vocabulary, limits)
        except ProgramError as error:
            problems.extend(Problem(join(join("programs", index), "body"), str(problem)) for problem in error.problems)
    if problems:
        raise ExamplesFileError(examples.source, problems)


def bank_programs(kitchen: Domain, bank: list[PlanExample], source: str) -> PromptExamples:
    """Example programs written from bank examples (oracle plans): each step as the call the vocabulary of
    the example's scene maps it to, one per line, ``done`` left out as in the packaged examples; no
    state-feedback examples. ``source`` names the bank in errors."""
    programs = []
    for example in bank:
        calls = call_texts(scene_vocabulary(kitchen, example))
        body = "\n".join(calls[step] for step in example.steps if step != "done")
        programs.append(ExampleProgram(example.instruction, body))
    return PromptExamples(tuple(programs), (), source)
