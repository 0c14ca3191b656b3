"""The domain model every part of the stack shares, for any domain: skills and their rules, world state, scenes,
goal conditions, episodes and their validation, the symbolic skill execution and the A* oracle.

ROS-free. The simulators (``kitchen_sim``), the affordance servers, the executors and the planners
all build on it; ``llm_planner_ros.ros`` converts its types to and from messages.

    kitchen = load_domain_files()                 # the default domain's world.yaml + skills.yaml (or given files)
    world = kitchen.world()                       # the default scene (or kitchen.world(initial_block))
    domain_skill_texts(world)                     # the 51 skill texts the language model scores
    world.apply("find a coke")                    # PreconditionError / UnknownSkillError when it cannot
    episodes = load_episodes("domains/saycan_kitchen/dev.yaml", kitchen)
    episodes.episode("nl-verb-03").goal.holds(world)
"""

from llm_planner_ros.domain.conditions import Condition, ConditionCheck, goal_checks, goal_condition_recall
from llm_planner_ros.domain.config import HELD, DomainConfig, Position, load_domain_config
from llm_planner_ros.domain.definition import Domain, domain_skill_texts, domain_skills, load_domain_files
from llm_planner_ros.domain.episodes import Episode, EpisodeFile, EpisodeFileError, load_episodes
from llm_planner_ros.domain.execution import SkillTiming, StepOutcome, run_skill
from llm_planner_ros.domain.failures import FailureInjector
from llm_planner_ros.domain.scene import ObjectInstance, Scene, SceneError
from llm_planner_ros.domain.skill import Skill, SkillRule
from llm_planner_ros.domain.skill_library import SkillLibrary
from llm_planner_ros.domain.validation import Problem, ValidationError
from llm_planner_ros.domain.world import PreconditionError, SkillError, UnknownSkillError, World

__all__ = [
    "HELD",
    "Condition",
    "ConditionCheck",
    "Episode",
    "EpisodeFile",
    "EpisodeFileError",
    "FailureInjector",
    "Domain",
    "DomainConfig",
    "ObjectInstance",
    "Position",
    "PreconditionError",
    "Problem",
    "Scene",
    "SceneError",
    "Skill",
    "SkillError",
    "SkillLibrary",
    "SkillRule",
    "SkillTiming",
    "StepOutcome",
    "UnknownSkillError",
    "ValidationError",
    "World",
    "goal_checks",
    "goal_condition_recall",
    "domain_skill_texts",
    "domain_skills",
    "load_episodes",
    "load_domain_files",
    "load_domain_config",
    "run_skill",
]
