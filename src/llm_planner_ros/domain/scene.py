"""A scene: the state a world starts from, as an episode's ``initial`` block writes it.

Format (docs/episodes.md)::

    robot: {at: table, holding: null}      # holding: an object id, or null (may be left out)
    objects:
      - {id: coke_1, label: coke, at: far counter}   # at: a place, or "robot" when held
      - {id: coke_2, label: coke, at: table, lying: 45}  # optional: on its side, axis 45 deg from map x
    drawer: {open: false}                  # optional: the drawer extension (SayCan, arXiv 2204.01691, appendix E.2)
    blocked: [far counter]                 # optional: places a box on the floor keeps the robot from
    facts: [door_open, table_clean(desk)]  # optional: the declared facts that hold (default: the world file's)

With ``drawer`` present the drawer's location (``drawers``) is a place of the scene and objects may be
``at: drawer`` (inside it); without it neither exists.

``facts`` lists every declared fact that holds at the start (llm_planner_ros.domain.facts); a
fact it leaves out is false. Without it, the world file's ``initial`` values hold. A world that declares
no facts (the SayCan kitchen) takes no ``facts``.

``blocked`` is physical, like where on a counter an object stands: the physics kitchen puts a box where
the robot stands to work at each of those places, so navigation there fails. The symbolic world has no
floor and ignores it, as do the analytic affordances that read it; a learned go-to value function sees the
box among the perceived obstacles.

``lying`` is physical too: the physics kitchen lays that object on its side, its axis turned ``lying``
degrees about the vertical from the map's x axis (a can knocked over). The symbolic world ignores it; a
learned pick value function sees the flat, wide box perception reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner_ros.domain.config import HELD, DomainConfig
from llm_planner_ros.domain.validation import Checker, ValidationError, join, quoted_list


class SceneError(ValidationError):
    """An ``initial`` block (given at run time, not from a file) that does not match the format."""


@dataclass(frozen=True)
class ObjectInstance:
    """One object of a scene: its unique id ("coke_1"), its label ("coke") and where it is.

    ``at`` is a place name, ``"robot"`` when it is in the gripper, or the drawer's contents name;
    ``lying_deg``: None when it stands upright, else it lies on its side, its axis that many degrees from
    the map's x axis (physical only: see the module docstring).
    """

    id: str
    label: str
    at: str
    lying_deg: float | None = None

    @property
    def held(self) -> bool:
        return self.at == HELD


@dataclass(frozen=True)
class Scene:
    """Robot place, objects (in file order), drawer state (None: the scene has no drawer), the places a
    box on the floor blocks (physical only: see the module docstring) and the atoms of the declared
    facts that hold (None: the world declares no facts)."""

    robot_at: str
    objects: tuple[ObjectInstance, ...]
    drawer_open: bool | None = None
    blocked: tuple[str, ...] = ()
    facts: frozenset[str] | None = None

    @property
    def has_drawer(self) -> bool:
        return self.drawer_open is not None

    @property
    def holding(self) -> ObjectInstance | None:
        return next((obj for obj in self.objects if obj.held), None)

    def to_initial(self) -> dict[str, Any]:
        """The episode-file ``initial`` block of this scene (plain dicts and lists, ready for YAML)."""
        held = self.holding
        block: dict[str, Any] = {
            "robot": {"at": self.robot_at, "holding": held.id if held else None},
            "objects": [_object_entry(obj) for obj in self.objects],
        }
        if self.has_drawer:
            block["drawer"] = {"open": self.drawer_open}
        if self.blocked:
            block["blocked"] = list(self.blocked)
        if self.facts is not None:
            block["facts"] = sorted(self.facts)
        return block


def scene_from_initial(data: Any, config: DomainConfig, source: str = "initial block") -> Scene:
    """Validate an ``initial`` block given at run time; SceneError lists every problem."""
    check = Checker()
    scene = parse_scene(data, config, check, "")
    check.raise_if_any(source, SceneError)
    assert scene is not None
    return scene


def parse_scene(data: Any, config: DomainConfig, check: Checker, where: str) -> Scene | None:
    """The scene of an ``initial`` block, or None after recording its problems with ``check``."""
    problems_before = len(check.problems)
    top = check.mapping(data, where, required=("robot", "objects"), optional=("drawer", "blocked", "facts"))
    if top is None:
        return None
    drawer_open = _drawer_state(top["drawer"], config, check, join(where, "drawer")) if "drawer" in top else None
    with_drawer = "drawer" in top and config.drawer is not None
    robot = check.mapping(top["robot"], join(where, "robot"), required=("at",), optional=("holding",))
    robot_at = holding = None
    if robot is not None:
        robot_at = _place(robot["at"], config.places(with_drawer), config, with_drawer, check, join(where, "robot.at"))
        holding = _holding_id(robot.get("holding"), check, join(where, "robot.holding"))
    objects = _objects(top["objects"], config, with_drawer, check, join(where, "objects"))
    if objects is not None and robot is not None:
        _check_gripper(objects, holding, check, where)
    blocked = _blocked(top.get("blocked", []), robot_at, config, with_drawer, check, join(where, "blocked"))
    facts = _facts(top["facts"], config, check, join(where, "facts")) if "facts" in top else _default_facts(config)
    if robot_at is None or objects is None or blocked is None or len(check.problems) > problems_before:
        return None
    return Scene(robot_at, objects, drawer_open, blocked, facts)


def _default_facts(config: DomainConfig) -> frozenset[str] | None:
    return config.fact_names().initial_atoms() if config.facts else None


def _facts(value: Any, config: DomainConfig, check: Checker, where: str) -> frozenset[str] | None:
    if not config.facts:
        check.add(where, f"world {config.world!r} declares no facts (no `facts` in {config.source}): drop this key")
        return None
    items = check.list_of(value, where, allow_empty=True)
    if items is None:
        return None
    names = config.fact_names()
    atoms = [names.check_atom(item, check, join(where, index)) for index, item in enumerate(items)]
    return frozenset(atom for atom in atoms if atom is not None)


def _blocked(
    value: Any, robot_at: str | None, config: DomainConfig, with_drawer: bool, check: Checker, where: str
) -> tuple[str, ...] | None:
    """Distinct places of the scene, none of them where the robot stands (a box cannot stand under it)."""
    items = check.list_of(value, where, allow_empty=True)
    if items is None:
        return None
    places: list[str] = []
    for index, item in enumerate(items):
        place = _place(item, config.places(with_drawer), config, with_drawer, check, join(where, index))
        if place is None:
            continue
        if place == robot_at:
            check.add(join(where, index), f"{place!r} is where the robot starts: a box cannot stand there")
        elif place in places:
            check.add(join(where, index), f"{place!r} is listed twice")
        else:
            places.append(place)
    return tuple(places) if len(places) == len(items) else None


def _drawer_state(value: Any, config: DomainConfig, check: Checker, where: str) -> bool | None:
    if config.drawer is None:
        check.add(where, f"world {config.world!r} has no drawer extension (no `drawer` in {config.source})")
        return None
    entry = check.mapping(value, where, required=("open",))
    return None if entry is None else check.boolean(entry["open"], join(where, "open"))


def _holding_id(value: Any, check: Checker, where: str) -> str | None:
    return None if value is None else check.identifier(value, where)


def _objects(
    value: Any, config: DomainConfig, with_drawer: bool, check: Checker, where: str
) -> tuple[ObjectInstance, ...] | None:
    items = check.list_of(value, where, allow_empty=True)
    if items is None:
        return None
    places = [*config.places(with_drawer), HELD]
    if with_drawer and config.drawer is not None:
        places.append(config.drawer.contents_at)
    objects: list[ObjectInstance] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        field = join(where, index)
        entry = check.mapping(item, field, required=("id", "label", "at"), optional=("lying",))
        if entry is None:
            continue
        object_id = check.identifier(entry["id"], join(field, "id"))
        label = check.one_of(entry["label"], join(field, "label"), config.labels, "label")
        at = _place(entry["at"], places, config, with_drawer, check, join(field, "at"))
        lying = check.number(entry["lying"], join(field, "lying")) if "lying" in entry else None
        lying_ok = "lying" not in entry or (lying is not None and at != HELD)
        if lying is not None and at == HELD:
            check.add(join(field, "lying"), "an object in the gripper lies nowhere: drop `lying` or `at: robot`")
        if object_id is not None and object_id in seen:
            check.add(join(field, "id"), f"duplicate object id {object_id!r}; ids must be unique in a scene")
            continue
        if object_id is not None:
            seen.add(object_id)
        if object_id is not None and label is not None and at is not None and lying_ok:
            objects.append(ObjectInstance(object_id, label, at, lying))
    return tuple(objects) if len(objects) == len(items) else None


def _object_entry(obj: ObjectInstance) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": obj.id, "label": obj.label, "at": obj.at}
    if obj.lying_deg is not None:
        entry["lying"] = obj.lying_deg
    return entry


def _place(
    value: Any, allowed: Sequence[str], config: DomainConfig, with_drawer: bool, check: Checker, where: str
) -> str | None:
    """One of ``allowed``; naming the drawer's places in a scene without the drawer says how to add it."""
    drawer = config.drawer
    if drawer is not None and not with_drawer and value in (drawer.location, drawer.contents_at):
        check.add(where, f"{value!r} needs the drawer: add `drawer: {{open: false}}` to the initial block")
        return None
    return check.one_of(value, where, allowed, "place")


def _check_gripper(objects: tuple[ObjectInstance, ...], holding: str | None, check: Checker, where: str) -> None:
    """robot.holding and the objects `at: robot` must name the same single object."""
    in_gripper = [obj.id for obj in objects if obj.held]
    if len(in_gripper) > 1:
        check.add(
            join(where, "objects"), f"objects {quoted_list(in_gripper)} are all at 'robot'; the gripper holds one"
        )
    elif holding is None and in_gripper:
        held = in_gripper[0]
        check.add(join(where, "robot.holding"), f"is null but object {held!r} is at 'robot': set holding: {held}")
    elif holding is not None and holding not in {obj.id for obj in objects}:
        check.add(join(where, "robot.holding"), f"{holding!r} is not the id of any object of the scene")
    elif holding is not None and in_gripper != [holding]:
        check.add(join(where, "robot.holding"), f"{holding!r} is held, so that object must have at: robot")
