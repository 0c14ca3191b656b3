"""affordance_server: one EvaluateAffordance action server per skill family, over the current state.

Serves ``/affordance/<family>`` (llm_planner_interfaces/action/EvaluateAffordance) for each family in
the ``families`` parameter: by default every family the skills file declares (the kitchen's find, pick,
place, goto, terminate and drawer) except those whose ``affordance`` names the user's own server
(``{server: ...}``, llm_planner_ros.domain.vocabulary). A goal's skills are scored
with the calibrated function of each skill's own family (llm_planner_ros.affordance.model), so a goal may
carry a mixed batch; a skill of a family this node does not host fails the goal with a message naming
the server to ask instead. The result has one probability per skill, in goal order; ``success`` is
false, with the reason in ``message``, when no state has arrived within ``state_timeout_s`` or a skill
is malformed. A goal stamped with the state its caller planned on (``state_stamp``) is answered from
that state or a newer one: this node's subscription can be a message behind the planner's, and the
state before a skill's effect would score the next step on the world before it.

State comes from a ``StateProvider``: by default /scene/objects and /sim/robot_state (sim_world).
The ``backend`` parameter picks the model: ``analytic`` (default) scores the symbolic world;
``learned`` scores pick, place and go-to with the value functions of ``value_functions_file``
(llm_planner_ros.value_functions.learned, docs/value_functions.md) over the perceived scene and the robot state only;
a missing or mismatched weight file stops the node at startup with the command that rebuilds it.
"""

from __future__ import annotations

from dataclasses import fields
from functools import partial

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from affordance_servers.perceived_observation import ObservationListener
from llm_planner_interfaces.action import EvaluateAffordance
from llm_planner_ros.affordance.calibration import Calibration
from llm_planner_ros.affordance.model import AffordanceError, AffordanceModel
from llm_planner_ros.domain.definition import load_domain_files
from llm_planner_ros.domain.domain_folder import domain_value_functions_file
from llm_planner_ros.domain.skill import Skill
from llm_planner_ros.paths import repo_path
from llm_planner_ros.ros.messages import skill_from_msg, stamp_of
from llm_planner_ros.ros.node_startup import StartupError, run_node
from llm_planner_ros.ros.parameters import Parameter, declare_parameters
from llm_planner_ros.ros.state_provider import Stamp, StateProvider
from llm_planner_ros.ros.topic_state_provider import TopicStateProvider
from llm_planner_ros.ros.topics import ROBOT_STATE_TOPIC, SCENE_TOPIC, affordance_action, full_name
from llm_planner_ros.value_functions.boosted_trees import WeightFileError
from llm_planner_ros.value_functions.learned import LearnedAffordance

BACKENDS = ("analytic", "learned")
# The ``families`` entry that stands for every family the skills file declares.
ALL_FAMILIES = "*"
# How long a learned evaluation waits for the scene stamped like the newest robot state (match_stamps).
PAIR_WAIT_S = 1.0

PARAMETERS = {
    "families": Parameter(
        [ALL_FAMILIES],
        f"skill families to serve, one affordance/<family> action server each ({ALL_FAMILIES!r}: every one "
        "the skills file declares, but those it leaves to another server)",
    ),
    "backend": Parameter("analytic", "affordance model: analytic (SayCan's calibrated functions) or learned"),
    "value_functions_file": Parameter(
        "", "weight file of the learned backend (.npz; empty: the domain folder's value_functions.npz)"
    ),
    "world_file": Parameter("", "world YAML (empty: the default domain's, config/domains.yaml)"),
    "skills_file": Parameter("", "skill templates YAML (empty: the default domain's, config/domains.yaml)"),
    "scene_topic": Parameter(SCENE_TOPIC, "SceneObjectArray topic of the objects (simulator or perception)"),
    "robot_state_topic": Parameter(ROBOT_STATE_TOPIC, "robot-state record topic (std_msgs/String JSON)"),
    "match_stamps": Parameter(True, "assemble state only from scene and robot messages with equal stamps (simulator)"),
    "state_timeout_s": Parameter(
        5.0, "how long a goal waits for a first state (or its stamped one) before failing", minimum=0.0
    ),
    "result_timeout_s": Parameter(10.0, "how long a finished goal's result stays available to its client", minimum=0.0),
}
# Calibration constants (SayCan, arXiv 2204.01691, appendix D.2), one parameter each, defaults from the paper.
CALIBRATION_PARAMETERS = {
    f.name: Parameter(f.default, f"affordance calibration constant {f.name}") for f in fields(Calibration)
}


class AffordanceServerNode(Node):
    """Thin adapter: messages in, ``AffordanceModel.evaluate`` over the provider's world, messages out."""

    def __init__(self, provider: StateProvider | None = None) -> None:
        super().__init__("affordance_server")
        p = declare_parameters(self, PARAMETERS)
        constants = declare_parameters(self, CALIBRATION_PARAMETERS)
        if p["backend"] not in BACKENDS:
            raise StartupError(f"backend parameter {p['backend']!r}: choose one of {list(BACKENDS)}")
        try:
            calibration = Calibration.from_mapping(constants)
            self._model = AffordanceModel(calibration)
            kitchen = load_domain_files(p["world_file"] or None, p["skills_file"] or None)
        except (ValueError, OSError) as error:  # ConfigError included
            raise StartupError(f"cannot configure the affordance model: {error}") from error
        declared = kitchen.library.declared_families
        asked = [family for family in p["families"] if family != ALL_FAMILIES]
        unknown = sorted(set(asked) - set(declared))
        if unknown:
            raise StartupError(
                f"families parameter {p['families']}: unknown {unknown}; {kitchen.library.source} declares "
                f"{list(declared)} (or [{ALL_FAMILIES!r}] for them all)"
            )
        self._learned: LearnedAffordance | None = None
        self._observations: ObservationListener | None = None
        if p["backend"] == "learned":
            try:
                weights = repo_path(p["value_functions_file"]) if p["value_functions_file"] else None
                self._learned = LearnedAffordance(weights or domain_value_functions_file(kitchen), kitchen, calibration)
            except (WeightFileError, OSError) as error:
                raise StartupError(f"backend learned: {error}") from error
            self._observations = ObservationListener(
                self, p["scene_topic"], p["robot_state_topic"], p["match_stamps"], MutuallyExclusiveCallbackGroup()
            )
        served_elsewhere = kitchen.library.affordance_servers()
        self._families: tuple[str, ...] = tuple(asked or (f for f in declared if f not in served_elsewhere))
        self._declared = declared
        self._state_timeout_s: float = p["state_timeout_s"]
        self._provider = provider or TopicStateProvider(
            self,
            kitchen,
            p["scene_topic"],
            p["robot_state_topic"],
            p["match_stamps"],
            callback_group=MutuallyExclusiveCallbackGroup(),
        )
        # Goals run in parallel with each other and with the state subscriptions, so a goal waiting
        # for the first state does not block that state from arriving (EXECUTOR_THREADS keeps threads
        # free for the subscriptions while one goal per family waits).
        group = ReentrantCallbackGroup()
        self._servers = [
            ActionServer(
                self,
                EvaluateAffordance,
                self._action_name(family),
                execute_callback=partial(self._evaluate, family),
                goal_callback=lambda _goal: GoalResponse.ACCEPT,
                cancel_callback=lambda _goal: CancelResponse.REJECT,
                callback_group=group,
                # Every goal status message lists all goals still kept; rclpy's default of 900 s would
                # let a planner's thousands of quick goals slow each later one down. Clients ask for
                # the result right after acceptance, so seconds are plenty (2 s was not: on a machine at
                # load 12 a result expired before the planner's request for it arrived).
                result_timeout=p["result_timeout_s"],
            )
            for family in self._families
        ]
        self.get_logger().info(
            f"serving {', '.join(self._action_name(f) for f in self._families)} from {self._provider.describe()} "
            f"with the {p['backend']} backend"
            + (f" ({p['value_functions_file']})" if self._learned is not None else "")
        )

    def _action_name(self, family: str) -> str:
        return full_name(self, affordance_action(family))

    def _evaluate(self, family: str, handle: ServerGoalHandle) -> EvaluateAffordance.Result:
        result = EvaluateAffordance.Result()
        try:
            request = handle.request
            skills = [skill_from_msg(msg) for msg in request.skills]
            result.affordances = self._affordances(family, skills, stamp_of(request.state_stamp))
        except (_Refused, AffordanceError) as error:
            result.message = str(error)
            self.get_logger().error(f"{self._action_name(family)}: {result.message}")
            handle.abort()
            return result
        result.success = True
        handle.publish_feedback(EvaluateAffordance.Feedback(evaluated=len(result.affordances)))
        handle.succeed()
        return result

    def _affordances(self, family: str, skills: list[Skill], stamp: Stamp) -> list[float]:
        # Unknown families ("" included) are the model's error to report; known ones may be hosted elsewhere.
        foreign = sorted({s.family for s in skills if s.family in self._declared and s.family not in self._families})
        if foreign:
            raise _Refused(
                f"{self._action_name(family)} got skills of families {foreign} that this node does not host "
                f"(families: {list(self._families)}); send them to {', '.join(map(self._action_name, foreign))}"
            )
        if stamp != (0, 0):
            world = self._provider.wait_stamped(stamp, self._state_timeout_s)
            if world is None:
                raise _Refused(
                    f"no world state stamped {stamp[0]}.{stamp[1]:09d} (the state the planner chose on) or later "
                    f"from {self._provider.describe()} after {self._state_timeout_s:.0f} s: does this node read "
                    "the planner's robot-state topic?"
                )
        else:
            world = self._provider.current() or self._provider.wait(self._state_timeout_s)
        if world is None:
            raise _Refused(
                f"no world state from {self._provider.describe()} after {self._state_timeout_s:.0f} s: "
                "is sim_world (or perception and the robot-state publisher) running?"
            )
        if self._learned is None or self._observations is None:
            return self._model.evaluate(skills, world)
        observation = self._observations.current(PAIR_WAIT_S)
        if observation is None:
            raise _Refused(f"no perceived scene with a matching robot state from {self._provider.describe()} yet")
        return self._learned.evaluate(skills, observation)


class _Refused(Exception):
    """A goal this node cannot answer; the message becomes the result's ``message``."""


# A goal waiting for the first state holds an executor thread (a planner sends one goal per family at
# once, e.g. right after this node restarts mid-plan); with fewer threads than families plus the two
# subscription groups, the waiting goals starve the very subscriptions that would end their wait. The
# families are known only once the node has read its skills file: room for a domain with a dozen.
EXECUTOR_THREADS = 16


def main(args: list[str] | None = None) -> None:
    raise SystemExit(run_node(AffordanceServerNode, threads=EXECUTOR_THREADS, args=args))
