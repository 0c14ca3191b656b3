"""Checks an instruction before anything is planned: its text, and the objects it names against the scene.

Text (``normalise``): a tab, line feed or carriage return reads as a space (a run of them with the
spaces around it becomes one space); any other control character (Unicode category Cc: C0, DEL, C1)
or format character (Cf: zero-width and bidirectional marks, the byte-order mark) is refused with its
code point and position (1 = the first character as received), since it can hide or reorder text
the planner would act on. So is a word that mixes Latin letters with Cyrillic or Greek ones ("bаnаna"
with a Cyrillic а): it reads as one name and is another. The text is then stripped and refused when
empty or over ``max_chars``.

Grounding (``ObjectVocabulary.named``): the exact object names an instruction uses, as whole words:
the kitchen's labels ("coke"; "the coke can" names a coke) and their plurals ("cokes"), the categories
the world file gives its objects, by name or synonym ("something to drink": any of its objects), and
names of things the kitchen never has (config/other_objects.yaml: "banana"). Other categories, places
and paraphrases ("something cold", "the table", "the scrubber") are never names here; they are the
planner's to interpret, and so is a kitchen name inside a longer compound ("lemon-lime soda" is no
lime soda). Not asked for either: a name after a negation in its part of the sentence ("anything but
the coke", "no pepsi, please"), and names where the person tells what happened ("I spilled my coke,
...": a part that starts with I, we, my or our and says no want, need, like, ...). A named object
with no instance in the scene is absent (unless a skill makes it: a coffee), a named category when
none of its objects is, and
``missing_objects`` says what follows (``MissingObjects``).

These rules are checked against every request of domains/saycan_kitchen/dev.yaml and of the SayCan example
bank (domains/saycan_kitchen/bank.jsonl, requests achievable in their scenes by construction): none is flagged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from llm_planner_ros.domain.config import HELD, DomainConfig
from llm_planner_ros.domain.hidden_text import MIXED_SCRIPT_FIX, hidden_character, mixed_script_word
from llm_planner_ros.domain.hidden_text import WORD as _WORD
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.domain.world import World
from llm_planner_ros.paths import resolve_config
from llm_planner_ros.planning.decision import StepRecord
from llm_planner_ros.planning.hold_back.requests import RequestKind
from llm_planner_ros.planning.hold_back.screen import RequestScreen
from llm_planner_ros.planning.plan_loop import EndReason, PlanResult
from llm_planner_ros.yaml_text import load_yaml

OTHER_OBJECTS_FILE = "other_objects.yaml"

# Tab, line feed and carriage return are read as spaces; other control and format characters are refused.
_LINE_BREAKS = "\t\n\r"
_BREAK_RUN = re.compile(r"[ \t\n\r]*[\t\n\r][ \t\n\r]*")
_CLAUSE_END = re.compile(r"[,;:.!?]")
# Words that start a new request inside a clause ("bring the coke and the pepsi").
_SEGMENT_WORDS = frozenset({"and", "then"})
# Words after which a name in the same segment is excluded, not asked for ("anything but", "other than").
_NEGATIONS = frozenset(
    {"no", "not", "nothing", "none", "never", "without", "except", "excluding", "but", "than", "instead"}
)
# A segment that starts with one of these tells what happened ("I spilled my coke"), unless it also says
# what the person wants ("I'd like a coke"): its names are context, not requests.
_FIRST_PERSON = frozenset({"i", "we", "my", "our"})
_WANTS = frozenset({"want", "wants", "need", "needs", "like", "love", "wish", "crave", "fancy", "prefer", "take"})
_ARTICLES = frozenset({"a", "an", "some", "the"})
# Longest name in words, counting a two-word spelling of a one-word label ("red bull" for redbull); a
# domain's longer names (a category's "something to write with") raise it for that domain.
_LONGEST_NAME = 4
# Lower-case Cyrillic and Greek letters that look like Latin ones (upper-case ones lowered first): a word
# written only in them ("соке") reads as a Latin name and is refused when it spells one.
_AS_LATIN = str.maketrans(
    {
        **dict(zip("асеһіјӏорԛѕԝхувкмнт", "acehijlopqswxybkmht", strict=True)),
        **dict(zip("αοριυχνκεη", "aopiuxvken", strict=True)),
    }
)


class InstructionError(ValueError):
    """An instruction that is not planned at all; the message says why and what to send instead."""


def normalise(text: str, max_chars: int) -> str:
    """``text`` ready to plan (line breaks as spaces, stripped); InstructionError when it has a control or
    format character, is empty, or is longer than ``max_chars`` (the planner's max_instruction_chars)."""
    character = hidden_character(text, allowed=_LINE_BREAKS)
    if character is not None:
        raise InstructionError(
            f"the instruction has {character}: remove it "
            "(tabs and line breaks read as spaces; other control and format characters are refused)"
        )
    mixed = mixed_script_word(text)
    if mixed is not None:
        raise InstructionError(f"{mixed}: {MIXED_SCRIPT_FIX}")
    cleaned = _BREAK_RUN.sub(" ", text).strip()
    if not cleaned:
        raise InstructionError("the instruction is empty: say what the robot should do")
    if len(cleaned) > max_chars:
        raise InstructionError(
            f"the instruction has {len(cleaned)} characters; the limit is {max_chars} (parameter max_instruction_chars)"
        )
    return cleaned


PLACE = ""  # what ``ObjectVocabulary.forms`` gives for a place's name: no object


@dataclass(frozen=True)
class ObjectVocabulary:
    """The exact object names the check recognises: ``forms`` maps each spelling's key (its words folded
    and joined, ``_key``) to the name reported: a kitchen label, a category of the world file, or another
    object's singular; a place's name maps to PLACE and reports nothing, so an object word inside it ("the
    tool wall") is not read as asking for that object. ``members`` maps each category to its labels;
    ``longest`` is the most words a spelling has; ``made``: labels a skill makes, never absent (a coffee is
    made when asked for)."""

    forms: Mapping[str, str]
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    longest: int = _LONGEST_NAME
    made: frozenset[str] = frozenset()

    @classmethod
    def of_kitchen(
        cls, config: DomainConfig, other_objects: Iterable[str] | None = None, made: Iterable[str] = ()
    ) -> ObjectVocabulary:
        """The domain's labels, their synonyms (reported as the label), its categories, the labels its
        skills make (``made``: ``SkillLibrary.created_labels``) and ``other_objects`` (default: the
        domain folder's ``other_objects.yaml``, else the packaged config/other_objects.yaml), each with its
        plurals. ValueError for another object of the domain's own list that shares a word with one of its
        labels, synonyms or places: it would be found inside the domain's own names ("lime" in "lime soda").
        The packaged list was written for no domain in particular: its names that share a word with the
        domain's own ("phone" in an office that has a phone) are the domain's, and are left out."""
        own_file = Path(config.source).parent / OTHER_OBJECTS_FILE
        packaged = other_objects is None and not own_file.is_file()
        if other_objects is None:
            others = load_other_objects(None if packaged else own_file)
        else:
            others = tuple(other_objects)
        categories = config.categories.values()
        own = (
            *(word for label in config.labels for word in config.names(label)),
            *(word for category in categories for word in category.names),
            *config.places(with_drawer=True),
        )
        kitchen_words = {word for name in own for word in _words(name)}
        # Places first: a label or category of the same name still wins.
        forms = {_key(_words(name)): PLACE for place in config.places(with_drawer=True) for name in config.names(place)}
        for name in others:
            shared = sorted(kitchen_words.intersection(_words(name)))
            if shared and packaged:
                continue
            if shared:
                raise ValueError(
                    f"other object {name!r} shares the word(s) {', '.join(shared)} with the kitchen's "
                    f"labels or places: remove it from {OTHER_OBJECTS_FILE}"
                )
            forms.update(dict.fromkeys(_spellings(name), name))
        for category in categories:
            for name in category.names:
                forms.update(dict.fromkeys(_spellings(name), category.name))
        for label in config.labels:
            for name in config.names(label):
                forms.update(dict.fromkeys(_spellings(name), label))
        longest = max((len(_words(word)) for word in own), default=0)
        members = {category.name: category.labels for category in categories}
        return cls(forms, members, max(_LONGEST_NAME, longest), frozenset(made))

    def absent(self, named: Iterable[str], present: Iterable[str]) -> tuple[str, ...]:
        """The ``named`` names with no instance among the ``present`` labels (a category: none of its
        labels) and none a skill makes, as a person reads them ("drink (mug or water bottle)")."""
        seen = set(present) | self.made
        return tuple(self._shown(name) for name in named if seen.isdisjoint(self.members.get(name, (name,))))

    def labels(self, named: Iterable[str], present: Iterable[str]) -> tuple[str, ...]:
        """The labels ``named`` stands for: a category's that are ``present``, each other name itself."""
        seen = set(present)
        found: dict[str, None] = {}
        for name in named:
            found.update(dict.fromkeys(label for label in self.members.get(name, (name,)) if label in seen))
        return tuple(found)

    def _shown(self, name: str) -> str:
        members = self.members.get(name)
        return name if members is None else f"{name} ({' or '.join(members)})"

    def named(self, text: str) -> tuple[str, ...]:
        """The names ``text`` asks for, in order of first mention; negated ones and context left out."""
        found: dict[str, None] = {}
        for segment in _segments(text):
            if _tells_what_happened(segment):
                continue
            negated = False
            index = 0
            while index < len(segment):
                length = next(
                    (
                        n
                        for n in range(min(self.longest, len(segment) - index), 0, -1)
                        if _key(segment[index : index + n]) in self.forms
                    ),
                    0,
                )
                if length:
                    name = self.forms[_key(segment[index : index + length])]
                    if not negated and name != PLACE:
                        found.setdefault(name)
                    index += length
                    continue
                self._refuse_lookalike(segment[index])
                negated = negated or segment[index] in _NEGATIONS or segment[index].endswith("n't")
                index += 1
        return tuple(found)

    def _refuse_lookalike(self, word: str) -> None:
        """InstructionError for a word in Cyrillic or Greek letters that spells a name in Latin ones."""
        latin = word.translate(_AS_LATIN)
        name = self.forms.get(_key([latin])) if latin != word and latin.isascii() else None
        if name is not None:
            raise InstructionError(
                f"the word {word!r} is written in Cyrillic or Greek letters that look like {name!r}: "
                "type the name in Latin letters"
            )


def load_other_objects(path: str | Path | None = None) -> tuple[str, ...]:
    """The names of config/other_objects.yaml (or ``path``); ValueError for a malformed file."""
    resolved = resolve_config(path, OTHER_OBJECTS_FILE)
    data = load_yaml(resolved.read_text(encoding="utf-8"), str(resolved)) or {}
    names = data.get("other_objects") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(name, str) and name.strip() for name in names):
        raise ValueError(f"{resolved}: expected `other_objects:` with a list of object names")
    return tuple(names)


def _segments(text: str) -> list[list[str]]:
    """The words of each clause, split further at "and" / "then" (which are dropped)."""
    segments: list[list[str]] = []
    for clause in _CLAUSE_END.split(text):
        segments.append([])
        for word in _words(clause):
            if word in _SEGMENT_WORDS:
                segments.append([])
            else:
                segments[-1].append(word)
    return [segment for segment in segments if segment]


def _tells_what_happened(segment: list[str]) -> bool:
    first = segment[0]
    first_person = first in _FIRST_PERSON or first.startswith(("i'", "we'"))
    return first_person and not _WANTS.intersection(segment)


def _words(text: str) -> list[str]:
    """Lower-case words without accents or a possessive 's ("Jalapeño's" -> "jalapeno")."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return [word.removesuffix("'s") for word in _WORD.findall(folded.lower().replace("\u2019", "'"))]


def _key(words: list[str]) -> str:
    """How a spelling is looked up: its words joined, hyphens dropped ("red bull", "7-up": "redbull", "7up")."""
    return "".join(words).replace("-", "")


def _spellings(name: str) -> set[str]:
    """Keys of ``name`` and its plurals: the last word inflected ("water bottles", "cherries", "knives"),
    without a leading article (a category's synonym "a pen" is also "the pen" and "pens")."""
    words = _words(name)
    if len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    *head, last = words
    plurals = {last, last + "s"}
    if last.endswith(("s", "x", "z", "ch", "sh", "o")):
        plurals.add(last + "es")
    if last.endswith("y") and last[-2:-1] not in "aeiou":
        plurals.add(last[:-1] + "ies")
    if last.endswith("fe"):
        plurals.add(last[:-2] + "ves")
    elif last.endswith("f"):
        plurals.add(last[:-1] + "ves")
    return {_key([*head, plural]) for plural in plurals}


@dataclass(frozen=True)
class Absent:
    """Named objects that are not in the scene, and the labels that are."""

    names: tuple[str, ...]
    seen: tuple[str, ...]

    def __str__(self) -> str:
        return f"not in the scene: {', '.join(self.names)} (seen: {', '.join(self.seen) or 'nothing'})"


class MissingObjects(StrEnum):
    """What an instruction naming an absent object gets (the planner's ``missing_objects`` parameter).

    REFUSE: the goal ends at once (``refused``), nothing planned; CONFIRM: /llm_planner/confirm is asked
    whether to go ahead with a substitute, and a refusal (or no answer in time) ends the goal
    (``refused``); WARN: planned anyway, and the result's message says which named objects were absent.
    """

    REFUSE = "refuse"
    CONFIRM = "confirm"
    WARN = "warn"


# Asks a human (ConfirmPlan): the instruction and one step, whose message is the question; the answer
# is (approved, reason). The planner node's ``_ask_confirmation`` has this signature.
Confirm = Callable[[str, StepRecord], tuple[bool, str]]


@dataclass(frozen=True)
class Verdict:
    """What the check decided. ``refusal`` set: end the goal with it; nothing is planned. Otherwise plan
    ``text`` (normalised); ``annotate`` adds to the plan's result the ``warning`` when there is one and,
    for the objects the instruction ``named``, where they were in the ``before`` scene and where they are
    at the end (``object_report``)."""

    text: str = ""
    refusal: PlanResult | None = None
    warning: str | None = None
    named: tuple[str, ...] = ()
    before: World | None = None

    def annotate(self, result: PlanResult, after: World | None = None) -> PlanResult:
        notes = [result.message] if result.message else []
        if self.warning is not None:
            notes.append(self.warning)
        if self.named and self.before is not None and after is not None:
            notes.append(object_report(self.named, self.before, after))
        return replace(result, message="; ".join(notes))


def object_report(named: Iterable[str], before: World, after: World) -> str:
    """Whether each named object was found and moved, from the scenes before and after the plan:
    "coke: far counter -> user (moved)", "apple: table (found, not moved)", "banana: not found"."""
    parts = []
    for name in named:
        was, now = _places_of(name, before), _places_of(name, after)
        if not was and not now:
            parts.append(f"{name}: not found")
        elif was == now:
            parts.append(f"{name}: {', '.join(was)} (found, not moved)")
        else:
            parts.append(f"{name}: {', '.join(was) or 'not seen'} -> {', '.join(now) or 'not seen'} (moved)")
    return "; ".join(parts)


def _places_of(label: str, world: World) -> list[str]:
    return sorted("the gripper" if obj.at == HELD else obj.at for obj in world.objects if obj.label == label)


def question_step(question: str) -> StepRecord:
    """The step a ConfirmPlan request carries to ask about the instruction itself: no skill, the
    question as its message."""
    return StepRecord(index=0, skill=Skill("", ""), candidates=(), message=question)


def check_instruction(
    text: str,
    vocabulary: ObjectVocabulary,
    max_chars: int,
    missing_objects: str,
    scene: Callable[[], World | None],
    confirm: Confirm,
    hold_back: RequestScreen | None = None,
) -> Verdict:
    """Normalise ``text``, hold back on it when ``hold_back`` finds it a stop, out of scope or unsafe
    (``nothing_to_do`` or ``refused``, nothing planned), and ground the objects it names in ``scene()``
    (asked only when it names one; None: no state to check against), applying the ``missing_objects``
    policy (a MissingObjects value): with ``refuse`` an absent object ends the request ``missing``."""
    try:
        policy = MissingObjects(missing_objects)
        cleaned = normalise(text, max_chars)
    except InstructionError as error:
        return Verdict(refusal=PlanResult(EndReason.ERROR, str(error)))
    except ValueError:
        choices = " | ".join(choice.value for choice in MissingObjects)
        return Verdict(
            refusal=PlanResult(
                EndReason.ERROR, f"parameter missing_objects is {missing_objects!r}; set it to one of {choices}"
            )
        )
    try:
        named = vocabulary.named(cleaned)
    except InstructionError as error:
        return Verdict(refusal=PlanResult(EndReason.ERROR, str(error)))
    held = hold_back.decide(cleaned) if hold_back is not None else None
    if held is not None and held.kind == RequestKind.STOP:
        return Verdict(refusal=PlanResult(EndReason.NOTHING_TO_DO, held.message))
    # Out of scope or unsafe: refused, unless it names an absent object, the plainer reason (below).
    refused = Verdict(refusal=PlanResult(EndReason.REFUSED, held.message)) if held is not None else None
    if not named:
        return refused or Verdict(cleaned)
    world = scene()
    if world is not None:
        world = world.copy()  # the scene before the plan, kept for the result's object report
    if world is None:
        return Verdict(
            refusal=PlanResult(
                EndReason.ERROR,
                f"no world state to find {', '.join(named)} in: is the simulator (or perception) publishing the scene?",
            )
        )
    present = sorted({obj.label for obj in world.objects})
    missing = vocabulary.absent(named, present)
    if not missing:
        return refused or Verdict(cleaned, named=vocabulary.labels(named, present), before=world)
    absent = Absent(missing, tuple(present))
    if refused is not None:
        policy = MissingObjects.REFUSE
    if policy is MissingObjects.WARN:
        return Verdict(cleaned, warning=f"planned anyway, {absent}", named=named, before=world)
    if policy is MissingObjects.CONFIRM:
        approved, reason = confirm(cleaned, question_step(f"{absent}: go ahead with a substitute?"))
        if approved:
            return Verdict(cleaned, warning=f"a substitute was approved, {absent}", named=named, before=world)
        return Verdict(refusal=PlanResult(EndReason.REFUSED, f"{absent}; a substitute was not approved: {reason}"))
    return Verdict(
        refusal=PlanResult(
            EndReason.MISSING,
            f"{absent}: ask for one of those, or set the planner's missing_objects parameter to confirm or warn",
        )
    )
