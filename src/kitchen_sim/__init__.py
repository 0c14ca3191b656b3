"""The simulated SayCan kitchen: world model, skill library, episode files and goal conditions.

ROS-free; ``kitchen_sim.sim_world_node`` is the ROS adapter that owns a simulated world.

    kitchen = load_kitchen()                      # config/kitchen_world.yaml + config/kitchen_skills.yaml
    world = kitchen.world()                       # the default scene (or kitchen.world(initial_block))
    kitchen_skill_texts(world)                    # the 51 skill texts the language model scores
    world.apply("find a coke")                    # PreconditionError / UnknownSkillError when it cannot
    episodes = load_episodes("benchmarks/kitchen/dev.yaml", kitchen)
    episodes.episode("nl-verb-03").goal.holds(world)
"""

from kitchen_sim.conditions import Condition, ConditionCheck, goal_checks, goal_condition_recall
from kitchen_sim.config import HELD, KitchenConfig, Position, load_kitchen_config
from kitchen_sim.episodes import Episode, EpisodeFile, EpisodeFileError, load_episodes
from kitchen_sim.execution import SkillTiming, StepOutcome, run_skill
from kitchen_sim.failures import FailureInjector
from kitchen_sim.kitchen import Kitchen, kitchen_skill_texts, kitchen_skills, load_kitchen
from kitchen_sim.scene import ObjectInstance, Scene, SceneError
from kitchen_sim.skill import Skill, SkillRule
from kitchen_sim.skill_library import SkillLibrary
from kitchen_sim.validation import Problem, ValidationError
from kitchen_sim.world import PreconditionError, SkillError, UnknownSkillError, World

__all__ = [
    "HELD", "Condition", "ConditionCheck", "Episode", "EpisodeFile", "EpisodeFileError", "FailureInjector",
    "Kitchen", "KitchenConfig", "ObjectInstance", "Position", "PreconditionError", "Problem", "Scene",
    "SceneError", "Skill", "SkillError", "SkillLibrary", "SkillRule", "SkillTiming", "StepOutcome",
    "UnknownSkillError", "ValidationError", "World", "goal_checks", "goal_condition_recall",
    "kitchen_skill_texts", "kitchen_skills", "load_episodes", "load_kitchen", "load_kitchen_config",
    "run_skill",
]
