"""The program prompt of ProgPrompt (arXiv 2209.11302, section 3.2, Fig. 2), and the plan cut from its completion.

The prompt is, in order: the import line of the robot's skills with their parameters, the scene's
``objects`` and ``locations`` lists, the example programs, and the header of the task's function for
the model to complete::

    from actions import find <obj>, pick_up <obj>, put_down <obj>, go_to <location>, bring_it_to_you, done

    objects = ['coke', 'sponge']
    locations = ['close counter', 'far counter', 'table', 'trash can', 'user']

    def bring_me_the_sponge():
        ...

    def bring_me_a_coke():

The model's completion starts with the newline after that header.

Two options serve a model fine-tuned on programs (``planning.progprompt.training``), as SayCan's
``examples: none`` and ``scene_context`` do: ``examples=None`` leaves the example programs out (the
adapter knows the format), and a ``scene`` line (``saycan.scene.describe_scene``: where the robot is,
what it holds, what lies where) is written as a comment after the lists, because the lists alone do not
say what the gripper holds or which counter the coke is on::

    objects = ['coke', 'sponge']
    locations = ['close counter', 'far counter', 'table', 'trash can', 'user']
    # Scene: robot at the close counter, holding nothing. close counter: coke. ...
"""

from __future__ import annotations

from llm_planner_ros.planning.progprompt.desugar import split_lines
from llm_planner_ros.planning.progprompt.examples import PromptExamples, function_header
from llm_planner_ros.planning.progprompt.vocabulary import Vocabulary

# The body ends at the first line the model writes at the left margin (a new `def`, stray text).
STOP = ("\ndef ",)


def render_prompt(
    examples: PromptExamples | None, vocabulary: Vocabulary, instruction: str, scene: str = "", comment: bool = False
) -> str:
    """The program prompt; ``examples`` None leaves the example programs out, ``scene`` (one line, empty =
    none) is added as a comment after the lists, ``comment`` writes each instruction as a comment under its
    ``def`` line (``function_header``)."""
    lists = f"objects = {list(vocabulary.objects)!r}\nlocations = {list(vocabulary.locations)!r}"
    if scene.strip():
        lists += f"\n# {' '.join(scene.split())}"
    parts = [
        vocabulary.import_line(),
        lists,
        *(program.text(comment) for program in (examples.programs if examples is not None else ())),
        # No newline after the header: the model writes it, together with the body's indentation (a
        # prompt ending in a bare newline splits the tokens a newline and its indentation usually form,
        # and small models then write the body unindented).
        function_header(instruction, comment),
    ]
    return "\n\n".join(parts)


def program_text(instruction: str, completion: str) -> str:
    """The program the model wrote: the task's header continued by the completion, up to the first later
    line at the left margin (where a next function or unrelated text begins). The instruction's comment,
    when the prompt had one, is prompt only: the program is the calls."""
    first, *rest = split_lines(function_header(instruction) + completion)
    body: list[str] = []
    for line in rest:
        if line.strip() and not line[0].isspace():
            break
        body.append(line)
    return "\n".join([first, *body]).rstrip() + "\n"
