"""A VirtualHome task's skills: each action of the scorer's action space over the task's objects, as text.

A skill's text is what the language model scores ("switch on the tv"); its family is the action's name in
lower case ("switchon"); its arguments are the objects' names as the text writes them. The objects are the
task's (those the benchmark's scorer lets a plan name: any other is a hallucination), and an action is
offered on an object only when the object has the property VirtualHome's simulator requires for it
(``GRABBABLE`` to grab, ``HAS_SWITCH`` to switch on, ...), so the vocabulary holds no skill that can never
run. Whether a skill can run *now* is the simulator's precondition check, the environment's affordance.

Left out: the scorer's actions without objects (``STANDUP``, ``SLEEP``, ``WAKEUP``: its answer reader drops
an action with no object), ``RUN`` (``WALK``'s twin), ``PUTOBJBACK`` and the ``LOOKAT`` durations.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.virtualhome_domain.tasks import Action

DONE = Skill("done", TERMINATE)
ROOMS = "Rooms"
CHARACTERS = "Characters"


@dataclass(frozen=True)
class ActionSkill:
    """How one VirtualHome action is written as a skill: ``template`` with {0} (and {1}) for the objects'
    names, and what each object needs: one of the property names or class names listed (None: any object
    that is not a room)."""

    action: str
    template: str
    needs: tuple[tuple[str, ...] | None, ...]


# Each needs-tuple lists alternatives (any one suffices), as the simulator's check_* functions accept them:
# properties in capitals, the class names the simulator lets through without the property in lower case.
ANY: tuple[str, ...] | None = None
SQUEEZABLE = ("cleaning_solution", "tooth_paste", "shampoo", "food_peanut_butter", "dish_soap", "soap", "towel")
SQUEEZABLE += ("rag", "paper", "sponge", "food_lemon", "check")
UNARY = (
    ActionSkill("FIND", "find the {0}", (ANY,)),
    ActionSkill("TURNTO", "turn to the {0}", (ANY,)),
    ActionSkill("LOOKAT", "look at the {0}", (ANY,)),
    ActionSkill("GRAB", "grab the {0}", (("GRABBABLE", "water", "child"),)),
    ActionSkill("OPEN", "open the {0}", (("CAN_OPEN",),)),
    ActionSkill("CLOSE", "close the {0}", (("CAN_OPEN",),)),
    ActionSkill("SWITCHON", "switch on the {0}", (("HAS_SWITCH",),)),
    ActionSkill("SWITCHOFF", "switch off the {0}", (("HAS_SWITCH",),)),
    ActionSkill("SIT", "sit on the {0}", (("SITTABLE",),)),
    ActionSkill("LIE", "lie on the {0}", (("LIEABLE",),)),
    ActionSkill("DRINK", "drink from the {0}", (("DRINKABLE", "RECIPIENT"),)),
    ActionSkill("EAT", "eat the {0}", (("EATABLE",),)),
    ActionSkill("CUT", "cut the {0}", (("CUTTABLE",),)),
    ActionSkill("READ", "read the {0}", (("READABLE",),)),
    ActionSkill("WATCH", "watch the {0}", (("LOOKABLE",),)),
    ActionSkill("TYPE", "type on the {0}", (("HAS_SWITCH", "keyboard"),)),
    ActionSkill("PUTON", "put on the {0}", (("CLOTHES",),)),
    ActionSkill("PUTOFF", "take off the {0}", (("CLOTHES",),)),
    ActionSkill("SQUEEZE", "squeeze the {0}", (("CLOTHES", *SQUEEZABLE),)),
    ActionSkill("TOUCH", "touch the {0}", (ANY,)),
    ActionSkill("POINTAT", "point at the {0}", (ANY,)),
    ActionSkill("PUSH", "push the {0}", (("MOVABLE",),)),
    ActionSkill("PULL", "pull the {0}", (("MOVABLE",),)),
    ActionSkill("MOVE", "move the {0}", (("MOVABLE",),)),
    ActionSkill("WASH", "wash the {0}", (ANY,)),
    ActionSkill("RINSE", "rinse the {0}", (ANY,)),
    ActionSkill("SCRUB", "scrub the {0}", (ANY,)),
    ActionSkill("WIPE", "wipe the {0}", (ANY,)),
    ActionSkill("DROP", "drop the {0}", (("GRABBABLE",),)),
    ActionSkill("GREET", "greet the {0}", (("PERSON",),)),
)
BINARY = (
    # The simulator puts a held object on or in anything the character is close to (a closed openable
    # thing must be open first), so any object is a destination.
    ActionSkill("PUTBACK", "put the {0} on the {1}", (("GRABBABLE",), ANY)),
    ActionSkill("PUTIN", "put the {0} in the {1}", (("GRABBABLE",), ANY)),
    ActionSkill("POUR", "pour the {0} into the {1}", (("POURABLE", "DRINKABLE"), ("RECIPIENT",))),
)
WALK = ActionSkill("WALK", "walk to the {0}", (ANY,))


@dataclass(frozen=True)
class SceneObject:
    """One object a task's plans may name: class name, id, category ("Rooms", ...) and property names."""

    class_name: str
    id: int
    category: str
    properties: frozenset[str]


def display_names(objects: Sequence[SceneObject]) -> dict[int, str]:
    """Each object's name in skill texts: its class name in words ("washing machine"), with its id after
    it where the task has two objects of that class ("light 245")."""
    counts = Counter(obj.class_name for obj in objects)
    return {
        obj.id: obj.class_name.replace("_", " ") + (f" {obj.id}" if counts[obj.class_name] > 1 else "")
        for obj in objects
    }


def _allows(obj: SceneObject, need: tuple[str, ...] | None) -> bool:
    if obj.category in (ROOMS, CHARACTERS):
        return False
    return need is None or any(name in obj.properties or name == obj.class_name for name in need)


class TaskVocabulary:
    """The skills of one task, and the VirtualHome action behind each skill's text.

    ``skills`` ends with ``done`` (the plan loop's terminate skill); ``action(skill)`` is the VirtualHome
    action a skill runs (KeyError for ``done`` or a text of another task); ``text(action)`` writes an
    action as its skill text, None when the vocabulary has no such skill.
    """

    def __init__(self, objects: Iterable[SceneObject]) -> None:
        self.objects = tuple(obj for obj in objects if obj.category != CHARACTERS)
        self.names = display_names(self.objects)
        self._actions: dict[str, Action] = {}
        self._skills: list[Skill] = []
        for spec in (WALK, *UNARY):
            for obj in self.objects:
                if spec is WALK or _allows(obj, spec.needs[0]):
                    self._add(spec, (obj,))
        for spec in BINARY:
            for first in self.objects:
                for second in self.objects:
                    if first.id != second.id and _allows(first, spec.needs[0]) and _allows(second, spec.needs[1]):
                        self._add(spec, (first, second))
        self._texts = {action: text for text, action in self._actions.items()}

    def _add(self, spec: ActionSkill, objects: tuple[SceneObject, ...]) -> None:
        names = tuple(self.names[obj.id] for obj in objects)
        text = spec.template.format(*names)
        self._actions[text] = Action(spec.action, tuple((obj.class_name, obj.id) for obj in objects))
        self._skills.append(Skill(text, spec.action.lower(), names))

    @property
    def skills(self) -> list[Skill]:
        return [*self._skills, DONE]

    def action(self, skill: Skill | str) -> Action:
        return self._actions[skill.text if isinstance(skill, Skill) else skill]

    def text(self, action: Action) -> str | None:
        return self._texts.get(action)

    def name_of(self, object_id: int) -> str:
        return self.names[object_id]


def scene_objects(state: Any, objects: Iterable[tuple[str, int]]) -> list[SceneObject]:
    """The ``(class name, id)`` pairs as ``SceneObject`` with their category and properties in ``state``
    (eai-eval's ``EnvironmentState``)."""
    found = []
    for class_name, index in objects:
        node = state.get_node(index)
        properties = frozenset(p.name for p in node.properties) if node is not None else frozenset()
        category = node.category if node is not None else ""
        found.append(SceneObject(class_name, index, category, properties))
    return found


def skill_from_text(text: str, names: Iterable[str]) -> Skill:
    """The skill a text of this vocabulary names, its objects among ``names`` (an example's objects);
    ValueError when no action's wording with those objects gives the text."""
    known = sorted(names, key=len, reverse=True)
    for spec in (WALK, *UNARY, *BINARY):
        pattern = "^" + re.escape(spec.template).replace(r"\{0\}", "(?P<a>.+)").replace(r"\{1\}", "(?P<b>.+)") + "$"
        match = re.match(pattern, text)
        if match and all(value in known for value in match.groups()):
            return Skill(text, spec.action.lower(), tuple(match.groups()))
    raise ValueError(f"{text!r} is no VirtualHome skill over the objects {', '.join(known)}")
