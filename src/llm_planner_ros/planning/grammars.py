"""Grammars of what the generative planners may write: only steps the robot can run in this scene.

Each builder turns the robot's skills and the scene's names into a Lark grammar (llm.grammar) for
``LanguageModel.generate(..., grammar=...)``, in the output syntax of one method:

- :func:`program_grammar` (ProgPrompt): the body of the task's function, lines of skill calls whose
  arguments are the ones each skill function accepts here, ``assert(<check>)`` with recovery calls
  after ``else:`` (on its line or on lines of their own below), comments, and ``done()``;
- :func:`step_grammar` (zero-shot planning): one step, one admissible skill text, then a newline;
- :func:`plan_grammar` (LLM-Planner): a plan line of skill texts joined by ", ", then a newline.

Names are written as the method writes them: a program quotes objects and places as Python strings
(``repr``: ``'water bottle'``, ``'7up'``, ``"it's"``), a step or plan line has the skill's own text.
Every literal is escaped for Lark (JSON string syntax), so spaces, digits, quotes and backslashes in a
name cannot break the grammar. A scene with nothing to name gives :class:`GrammarError`: a grammar
without a single step would let the model write nothing at all.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence

from llm_planner_ros.domain.skill import GOTO, Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.planning.progprompt.validator import HAND_WORDS, PREDICATES
from llm_planner_ros.planning.progprompt.vocabulary import LOCATION, OBJECT, Vocabulary

INDENT = "    "
# A comment line of a program: any text up to its end, bounded so a comment cannot eat the budget.
_COMMENT = r"/[^\n]{0,100}/"
_NAME_RULES = {OBJECT: "object", LOCATION: "place"}


class GrammarError(ValueError):
    """The scene offers nothing the grammar could name; the message says what is missing."""


def literal(text: str) -> str:
    """``text`` as a Lark string literal (JSON escapes: quotes, backslashes, control characters)."""
    return json.dumps(text, ensure_ascii=False)


def choice(texts: Iterable[str]) -> str:
    """A Lark alternative of the literals of ``texts`` (each once, in order)."""
    return " | ".join(literal(text) for text in dict.fromkeys(texts))


def program_grammar(vocabulary: Vocabulary) -> str:
    r"""The grammar of a ProgPrompt program body, the completion after ``def <task>():``.

    Every line starts with a newline and one indent; the program ends with an empty line (the model's
    "\n" or "\n\n" before a next ``def``). A call's argument is one of the scene's objects or places
    that the function takes (``find`` only what is in the scene, not every object the robot knows).
    GrammarError when the scene gives no skill call at all.
    """
    calls = []
    for function in vocabulary.functions.values():
        present = vocabulary.names(function.parameter) if function.parameter is not None else ()
        arguments = [argument for argument in function.skills if argument in present]
        if function.parameter is None:
            calls.append(literal(f"{function.name}()"))
        elif arguments:
            calls.append(f"{literal(function.name + '(')} ({choice(map(repr, arguments))}) {literal(')')}")
    if not calls:
        raise GrammarError(
            "the scene gives the program no skill call: no admissible skill, or no object or place for "
            "one; check the scene (/scene/objects) before planning"
        )
    rules = [
        f"start: line+ {literal(chr(10))} {literal(chr(10))}?",
        f"line: {literal(chr(10) + INDENT)} statement",
        f"comment: {literal('#')} {_COMMENT}",
        f"call: {' | '.join(calls)}",
    ]
    predicates = _predicates(vocabulary)
    if predicates:
        rules += [
            "statement: call | check | comment",
            f"check: {literal('assert(')} condition {literal(')')} recovery?",
            f"recovery: {literal(' else: ')} call | ({literal(chr(10) + INDENT * 2 + 'else: ')} call)+",
            f"condition: {literal('not ')}? positive",
            "positive: " + " | ".join(predicates),
        ]
    else:
        rules.append("statement: call | comment")
    for kind, rule in _NAME_RULES.items():
        if vocabulary.names(kind):
            rules.append(f"{rule}: {choice(map(repr, vocabulary.names(kind)))}")
    return "\n".join(rules) + "\n"


def _predicates(vocabulary: Vocabulary) -> list[str]:
    """The checks a program may assert over this scene's names (validator.PREDICATES and ``in``)."""
    if not vocabulary.checks:
        return []
    forms = []
    for name, predicate in PREDICATES.items():
        if all(vocabulary.names(kind) for kind in predicate.kinds):
            arguments = f" {literal(', ')} ".join(_NAME_RULES[kind] for kind in predicate.kinds)
            forms.append(f"{literal(name + '(')} {arguments} {literal(')')}")
    if vocabulary.objects:
        containers = literal(repr(HAND_WORDS[0])) + (" | place" if vocabulary.locations else "")
        forms.append(f"object {literal(' in ')} ({containers})")
    return forms


def step_grammar(skills: Sequence[Skill], objects: Iterable[str], places: Collection[str] = ()) -> str:
    """One step after ``Step N:``: a space, the text of a skill of ``skills`` that acts on one of
    ``objects`` (or on a place, or on nothing), a newline. GrammarError when there is none."""
    return f"start: {literal(' ')} step {literal(chr(10))}\nstep: {_skill_choice(skills, objects, places)}\n"


def plan_grammar(
    skills: Sequence[Skill], objects: Iterable[str], places: Collection[str] = (), not_first: Collection[str] = ()
) -> str:
    """A plan line after ``Next plan:``: such skill texts (``step_grammar``) joined by ", ", then a
    newline; the first step is none of the skill texts ``not_first``. GrammarError when there is none."""
    objects = list(objects)
    step = _skill_choice(skills, objects, places)
    first = _skill_choice([s for s in skills if s.text not in not_first], objects, places) if not_first else "step"
    return f"start: {literal(' ')} first ({literal(', ')} step)* {literal(chr(10))}\nfirst: {first}\nstep: {step}\n"


def scene_places(state: object) -> tuple[str, ...]:
    """The places of a kitchen ``World`` (``PlanningEnvironment.snapshot()``); none for another state
    (VirtualHome's scene graph, whose skills name objects only)."""
    return state.places() if isinstance(state, World) else ()


def acts_on_place(skill: Skill, places: Collection[str]) -> bool:
    """Whether ``skill`` goes to or acts on a place ("go to the desk", "wipe the desk") rather than an
    object: a go-to skill, or one whose argument is one of ``places``."""
    return skill.family == GOTO or skill.argument in places


def runnable_skills(skills: Sequence[Skill], objects: Iterable[str], places: Collection[str] = ()) -> list[Skill]:
    """The skills of ``skills`` that act on one of ``objects``, on a place (``acts_on_place``: go-to
    skills and those whose argument is one of ``places``), or on nothing (in order). A skill on an
    object nobody has perceived is left out; one on a place never is, as places need no perceiving."""
    present = set(objects)
    return [
        skill for skill in skills if skill.argument is None or skill.argument in present or acts_on_place(skill, places)
    ]


def _skill_choice(skills: Sequence[Skill], objects: Iterable[str], places: Collection[str]) -> str:
    runnable = runnable_skills(skills, objects, places)
    if not runnable:
        raise GrammarError(
            "the scene has no skill to write: no admissible skill, or none acting on a perceived object or a "
            "place; check the scene (/scene/objects) before planning"
        )
    return choice(skill.text for skill in runnable)
