r"""The SayCan dialog prompt (arXiv 2204.01691, Listing 1): few-shot examples from YAML, rendered per step.

    prompt = SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml"))
    prompt.render("How would you bring me a coke?", ["find a coke"])
    # "Robot: Hello, ...\nHuman: How would you bring me a coke?\nRobot: 1. find a coke, 2. "
    prompt.completion("pick up the coke")     # the text scored after that prompt

The rendered prompt ends with the next step's number and a space ("2. "); a candidate step is scored
as its bare skill text. The language model layer tokenizes prompt and completion jointly, so the
space joins the first word's token (docs/llm.md, "Token boundary").

Grounded prompts (config/saycan_grounded_prompt.yaml) add a scene line (``saycan_scene``) before each
"Human:" line, the examples' and the request's, and may replace the file's examples by ones retrieved
for the instruction:

    prompt.render("Bring me a coke.", [], scene="Scene: robot at the table, ...", examples=retrieved)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner_ros.yaml_text import load_yaml

# A generated step ends at the comma before the next number, the period after "done", or a line end.
STEP_STOPS = (",", ".", "\n")


class PromptFileError(ValueError):
    """The prompt file is missing or malformed; the message names the file, the entry and the fix."""


@dataclass(frozen=True)
class DialogExample:
    """One few-shot example: the human's request and the robot's steps (skill texts, ending in done),
    with the scene line it was planned in ("" when the prompt gives no scene context)."""

    human: str
    robot: tuple[str, ...]
    scene: str = ""

    def render(self) -> str:
        return f"{_scene_line(self.scene)}Human: {self.human}\nRobot: {_numbered(self.robot)}."


@dataclass(frozen=True)
class SayCanPrompt:
    """The preamble lines and examples of a SayCan prompt; renders the prompt of any planning step."""

    preamble: tuple[str, ...]
    examples: tuple[DialogExample, ...]

    @classmethod
    def from_yaml(cls, path: str | Path) -> SayCanPrompt:
        """Load a prompt file (format: config/saycan_prompt.yaml); PromptFileError when it is unusable."""
        path = Path(path)
        try:
            data = load_yaml(path.read_text(encoding="utf-8"), str(path))
        except OSError as error:
            raise PromptFileError(f"cannot read the SayCan prompt file {path}: {error.strerror}") from None
        except yaml.YAMLError as error:
            raise PromptFileError(f"{path} is not valid YAML: {error}") from None
        return cls.from_mapping(data, str(path))

    @classmethod
    def from_mapping(cls, data: Any, source: str = "SayCan prompt") -> SayCanPrompt:
        """A prompt from parsed YAML: ``preamble`` (list of lines) and ``examples`` (list of
        ``{human: str, robot: [step, ...], scene: str (optional)}``)."""
        if not isinstance(data, Mapping):
            raise PromptFileError(f"{source}: expected a mapping with `preamble` and `examples`")
        preamble = data.get("preamble", [])
        if not isinstance(preamble, list) or not all(isinstance(line, str) and line.strip() for line in preamble):
            raise PromptFileError(f"{source}: `preamble` must be a list of non-empty lines")
        examples = data.get("examples")
        if not isinstance(examples, list) or not examples:
            raise PromptFileError(f"{source}: `examples` must be a non-empty list of {{human, robot}} entries")
        return cls(
            tuple(preamble), tuple(_example(entry, f"{source}: example {i + 1}") for i, entry in enumerate(examples))
        )

    def header(self, examples: Sequence[DialogExample] | None = None) -> str:
        """The part before the request: preamble and examples (the file's, or ``examples`` instead),
        each line ending in a newline."""
        shown = self.examples if examples is None else examples
        return "".join(f"{line}\n" for line in (*self.preamble, *(example.render() for example in shown)))

    def render(
        self,
        instruction: str,
        steps: Sequence[str] = (),
        scene: str = "",
        examples: Sequence[DialogExample] | None = None,
    ) -> str:
        r"""The prompt for the step after ``steps``: "...[Scene: ...\n]Human: <instruction>\nRobot: 1. <s1>, 2. ".

        ``scene``: the scene line of the request ("" for none); ``examples``: shown instead of the file's.
        """
        request = " ".join(instruction.split())
        if not request:
            raise ValueError("the instruction is empty: say what the robot should do")
        done = f"{_numbered(steps)}, " if steps else ""
        return f"{self.header(examples)}{_scene_line(scene)}Human: {request}\nRobot: {done}{len(steps) + 1}. "

    def completion(self, skill_text: str) -> str:
        """The text scored for a candidate step after ``render(...)``: the bare skill text."""
        return skill_text

    def step_stops(self) -> tuple[str, ...]:
        """Stop strings that end one generated step."""
        return STEP_STOPS


def _scene_line(scene: str) -> str:
    return f"{' '.join(scene.split())}\n" if scene.strip() else ""


def _numbered(steps: Sequence[str]) -> str:
    return ", ".join(f"{number}. {step}" for number, step in enumerate(steps, start=1))


def _example(entry: Any, where: str) -> DialogExample:
    if not isinstance(entry, Mapping):
        raise PromptFileError(f"{where}: expected {{human: ..., robot: [...]}}")
    human, robot = entry.get("human"), entry.get("robot")
    if not isinstance(human, str) or not human.strip():
        raise PromptFileError(f"{where}: `human` must be the request, a non-empty string")
    if not isinstance(robot, list) or not robot or not all(isinstance(s, str) and s.strip() for s in robot):
        raise PromptFileError(f"{where}: `robot` must be a non-empty list of skill texts")
    scene = entry.get("scene", "")
    if not isinstance(scene, str):
        raise PromptFileError(f"{where}: `scene` must be the scene line (a string), or left out")
    return DialogExample(human.strip(), tuple(step.strip() for step in robot), scene.strip())
