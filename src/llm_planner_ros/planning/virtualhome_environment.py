"""A VirtualHome task's scene as a ``PlanningEnvironment``: eai-eval's symbolic simulator runs the skills.

The skills are the task's vocabulary (``virtualhome_domain.vocabulary``). ``affordances`` is VirtualHome's
own precondition check: 1 when the simulator would run the skill in the current state (the character is
close to what it grabs, the fridge is open before something goes in, a hand is free), else 0; for ``done``
it is the SayCan paper's 0.1 (appendix D.2): the environment does not tell a method when the goals hold.
``execute`` runs a skill in the simulator the scorer uses and fails, with the simulator's reason, when its
preconditions do not hold. ``describe_state`` says where the character is, what it is close to and holds,
and the states of the task's objects. ``goals_reached`` asks the scorer's own goal check.

With ``avoid_revisits`` (on by default) a skill that would bring the task back to a state this plan already
passed through gets affordance 0: the states of the task's objects and the character, their relations, and
which kinds of action ran (a task may ask for one that changes nothing, as touching). This is SayCan's
``avoid_revisits`` of the kitchen (there computed on the kitchen's world state, which a VirtualHome scene
graph is not): without it a small model turns to the bed again and again, each time possible and useless.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from llm_planner_ros.domain.skill import TERMINATE, Skill
from llm_planner_ros.planning.environment import SkillOutcome
from llm_planner_ros.virtualhome_domain.instruction import STATES, render_instruction
from llm_planner_ros.virtualhome_domain.tasks import Action, Task, planner_for, quiet
from llm_planner_ros.virtualhome_domain.vocabulary import ROOMS, TaskVocabulary, scene_objects

DONE_AFFORDANCE = 0.1
# The relations of the character and the task's objects that make a state (avoid_revisits).
KEY_RELATIONS = ("INSIDE", "ON", "CLOSE", "FACING", "HOLDS_RH", "HOLDS_LH")
# The object states describe_state reports, as the instruction words them (others, like CLEAN, never
# change in a plan).
STATE_WORDS = {"OPEN": "open", "CLOSED": "closed", "ON": "on", "OFF": "off", **STATES}


class VirtualHomeEnvironment:
    """One task in eai-eval's simulator behind the plan loop's environment protocol.

    ``executed`` lists the VirtualHome actions that ran, in order (what the scorer's action goals are
    checked against); ``state`` is the simulator's current ``EnvironmentState``.
    """

    domain = "virtualhome"  # SayCanPay's models are chosen by it

    def __init__(
        self, task: Task, simulator: Any, vocabulary: TaskVocabulary | None = None, avoid_revisits: bool = True
    ) -> None:
        self.task = task
        self._simulator = simulator
        self.state = simulator.env_state  # a state is never changed in place: a skill makes a new one
        self.vocabulary = vocabulary or TaskVocabulary(scene_objects(self.state, task.objects))
        self.executed: list[Action] = []
        self._character = int(simulator.acting_char_id)
        self._avoid_revisits = avoid_revisits
        self._passed = {self._key(self.state, self.executed)}

    @classmethod
    def for_task(cls, task: Task) -> VirtualHomeEnvironment:
        simulator, _ = planner_for(task.identifier)
        return cls(task, simulator)

    def at_start(self) -> VirtualHomeEnvironment:
        """Another environment of this task at its initial scene (this one's state is left as it is)."""
        return VirtualHomeEnvironment(self.task, self._simulator, self.vocabulary, self._avoid_revisits)

    def branch(self) -> VirtualHomeEnvironment:
        """Another environment where this one stands now (its scene, the actions run, the states passed):
        skills run in either leave the other as it is. States are never changed in place, so they are
        shared, not copied."""
        other = copy.copy(self)
        other.executed = list(self.executed)
        other._passed = set(self._passed)
        return other

    def after(self, texts: Sequence[str]) -> VirtualHomeEnvironment | None:
        """Runs the skills named by ``texts`` in order here; self after them, None when one cannot run."""
        skills = {skill.text: skill for skill in self.vocabulary.skills}
        for text in texts:
            if text not in skills or not self.execute(skills[text]).success:
                return None
        return self

    def instruction(self) -> str:
        """The task's request: its name and goals in words (``virtualhome_domain.instruction``)."""
        return render_instruction(
            self.task.name,
            self.task.node_goals,
            self.task.edge_goals,
            self.task.action_goals,
            self._name_of,
            lambda index: self.state.get_node(index).class_name,
        )

    def _name_of(self, index: int) -> str:
        if index in self.vocabulary.names:
            return self.vocabulary.name_of(index)
        return str(self.state.get_node(index).class_name).replace("_", " ")

    def admissible_skills(self) -> Sequence[Skill]:
        return self.vocabulary.skills

    def affordances(self, skills: Sequence[Skill]) -> list[float]:
        return [DONE_AFFORDANCE if skill.family == TERMINATE else self._affordance(skill) for skill in skills]

    def _affordance(self, skill: Skill) -> float:
        after, _ = self._try(skill)
        if after is None:
            return 0.0
        if self._avoid_revisits and self._key(after, [*self.executed, self.vocabulary.action(skill)]) in self._passed:
            return 0.0
        return 1.0

    def _key(self, state: Any, executed: Sequence[Action]) -> tuple[object, ...]:
        """What makes two states of this task the same for ``avoid_revisits``."""
        from virtualhome_eval.simulation.evolving_graph.environment import Relation

        ids = [self._character, *self.vocabulary.names]
        states = tuple(frozenset(s.name for s in state.get_node(index).states) for index in ids)
        relations = tuple(
            frozenset(state.get_node_ids_from(index, Relation[name])) for index in ids for name in KEY_RELATIONS
        )
        return states, relations, frozenset(action.name for action in executed)

    def _try(self, skill: Skill) -> tuple[Any, str]:
        """The state after ``skill`` (None when its preconditions fail) and the simulator's reason."""
        from virtualhome_eval.simulation.evolving_graph.execution import ExecutionInfo
        from virtualhome_eval.simulation.evolving_graph.scripts import Script, parse_script_line

        script = Script([parse_script_line(self.vocabulary.action(skill).script(), 1)])
        info = ExecutionInfo(eval_mode=True)
        with quiet():
            executor = self._simulator.executor
            after = next(executor.call_action_method(script, self.state, info, executor.char_index), None)
        return after, info.get_error_string()

    def execute(self, skill: Skill) -> SkillOutcome:
        if skill.family == TERMINATE:
            return SkillOutcome(True)
        after, reason = self._try(skill)
        if after is None:
            return SkillOutcome(False, reason.split(" when executing")[0] or f"cannot {skill.text} now")
        self.state = after
        self.executed.append(self.vocabulary.action(skill))
        self._passed.add(self._key(self.state, self.executed))
        return SkillOutcome(True)

    def observed_objects(self) -> list[str]:
        return list(self.vocabulary.names.values())

    def describe_state(self) -> str:
        near, held, room = [], [], ""
        for edge in self.state.to_dict()["edges"]:
            if edge["from_id"] != self._character:
                continue
            target = edge["to_id"]
            if edge["relation_type"] == "INSIDE" and self.state.get_node(target).category == ROOMS:
                room = self._name_of(target)
            elif edge["relation_type"] == "CLOSE" and target in self.vocabulary.names:
                near.append(self._name_of(target))
            elif edge["relation_type"] in ("HOLDS_RH", "HOLDS_LH"):
                held.append(self._name_of(target))
        parts = [f"you are in the {room}" if room else "you are somewhere"]
        if near:
            parts.append("close to " + ", ".join(f"the {name}" for name in sorted(set(near))))
        parts.append("holding " + (", ".join(f"the {name}" for name in held) if held else "nothing"))
        for obj in self.vocabulary.objects:
            node = self.state.get_node(obj.id)
            states = sorted(STATE_WORDS[s.name] for s in node.states if s.name in STATE_WORDS)
            if states:
                parts.append(f"the {self.vocabulary.name_of(obj.id)} is {' and '.join(states)}")
        return "; ".join(parts)

    @property
    def goals_reached(self) -> bool:
        """The scorer's own goal check on the current scene and the actions that ran."""
        return self._scorer_check(self.task.edge_goals)

    @property
    def goals_hold(self) -> bool:
        """Every node, edge and action goal holds. The scorer's check stops counting edge goals at the first
        that holds, so it never passes a task with two or more edge goals; the benchmark's tasks are scored
        that way, but a development task, whose goals are read off a program's whole final scene, is
        scored by this one."""
        edges = self.state.to_dict()["edges"]
        return self._scorer_check(()) and all(goal in edges for goal in self.task.edge_goals)

    def _scorer_check(self, edge_goals: Sequence[Mapping[str, Any]]) -> bool:
        from virtualhome_eval.simulation.evolving_graph.eval_utils import scene_evaluate_wID

        with quiet():
            *_, success, _, _, _ = scene_evaluate_wID(
                self.state.to_dict(),
                list(self.task.node_goals),
                list(edge_goals),
                self._character,
                action_seq=[action.script() for action in self.executed],
                action_goals=list(self.task.action_goals),
            )
        return bool(success)

    def snapshot(self) -> Any:
        return self.state
