"""The episodes built to need the learned value functions (domains/saycan_kitchen/value_reasons.yaml): the
file validates, each goal is reachable, and in the physics kitchen (``planning.physics_environment``)
the analytic model rates the unreachable target's pick as likely while the shipped learned model does
not, so SayCan's choice differs, and physics agrees: that pick fails, and after going to the label's
other instance the learned pick is likely and succeeds."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from language_model_doubles import FixedModel

from llm_planner_ros.domain import Domain
from llm_planner_ros.domain.domain_folder import domain_value_functions_file
from llm_planner_ros.domain.episodes import Episode, load_episodes
from llm_planner_ros.domain.oracle import check_episode
from llm_planner_ros.paths import config_file, repo_path
from llm_planner_ros.planning.saycan.planner import SayCanOptions, SayCanPlanner
from llm_planner_ros.planning.saycan.prompt import SayCanPrompt
from llm_planner_ros.value_functions.learned import LearnedAffordance

EPISODES = "domains/saycan_kitchen/value_reasons.yaml"
REPLAY = "test/data/value_reasons_pepsi_replay.jsonl"


@contextmanager
def physics_environments(kitchen: Domain) -> Iterator[tuple[Any, Any, Any]]:
    """A small-camera physics kitchen with its analytic and learned planning environments."""
    from llm_planner_ros.physics_sim import PhysicsKitchen
    from llm_planner_ros.planning.physics_environment import PhysicsEnvironment

    learned = LearnedAffordance(domain_value_functions_file(kitchen), kitchen)
    sim = PhysicsKitchen.from_files(image_size=(64, 48))
    try:
        yield sim, PhysicsEnvironment(sim, kitchen, None), PhysicsEnvironment(sim, kitchen, learned)
    finally:
        sim.close()


def first_choices(log_probs: dict[str, float], episode: Episode, *envs: Any) -> dict[str, str]:
    """SayCan's first step on the analytic and the learned environment, with a model that answers
    ``log_probs``."""
    prompt = SayCanPrompt.from_yaml(config_file("saycan_prompt.yaml"))
    chosen = {}
    for name, env in zip(("analytic", "learned"), envs, strict=True):
        planner = SayCanPlanner(FixedModel(log_probs), prompt, SayCanOptions())
        planner.reset(episode.instruction)
        decision = planner.next_step(env, [])
        assert decision.skill is not None
        chosen[name] = decision.skill.text
    return chosen


def _family(kitchen: Domain, family: str) -> list[Episode]:
    episodes = [e for e in load_episodes(EPISODES, kitchen) if e.family == family]
    assert len(episodes) >= 3, family
    return episodes


def test_episode_file_validates_and_every_goal_is_reachable(kitchen: Domain) -> None:
    episodes = list(load_episodes(EPISODES, kitchen))
    assert len(episodes) >= 4
    for episode in episodes:
        check = check_episode(episode, kitchen)
        assert check.ok, (episode.id, check.problems)
        assert check.plan is not None and len(check.plan) <= episode.max_steps


@pytest.mark.timeout(300)
def test_in_the_physics_kitchen_only_the_learned_model_tells_the_unreachable_pick(kitchen: Domain) -> None:
    with physics_environments(kitchen) as (sim, analytic_env, learned_env):
        for episode in _family(kitchen, "value_reach"):
            scene = episode.initial
            sim.load(scene, episode.id)
            target = [o for o in scene.objects if o.at == scene.robot_at][-1]  # the third-row instance
            other = next(o for o in scene.objects if o.label == target.label and o.at != scene.robot_at)
            world = analytic_env.world()
            pick, go = world.skill(f"pick up the {target.label}"), world.skill(f"go to the {other.at}")
            assert analytic_env.affordances([pick, go])[0] == pytest.approx(0.9), episode.id
            assert learned_env.affordances([pick])[0] < 0.5, episode.id
            # A model one nat surer of the pick than of going to the other instance: SayCan picks on
            # the analytic affordances and goes on the learned ones.
            chosen = first_choices({pick.text: -0.5, go.text: -1.5}, episode, analytic_env, learned_env)
            assert chosen == {"analytic": pick.text, "learned": go.text}, episode.id
            # Physics agrees: the pick fails out of reach and leaves the world as it was; from the
            # other place the learned pick is likely and succeeds.
            outcome = analytic_env.execute(pick)
            assert not outcome.success and "no_ik" in outcome.message, (episode.id, outcome.message)
            assert analytic_env.world().holding is None
            assert learned_env.execute(go).success, episode.id
            assert learned_env.affordances([pick])[0] > 0.5, episode.id
            outcome = learned_env.execute(pick)
            assert outcome.success and learned_env.world().holding is not None, (episode.id, outcome.message)


def test_in_the_physics_kitchen_only_the_learned_model_sees_the_blocked_place(kitchen: Domain) -> None:
    with physics_environments(kitchen) as (sim, analytic_env, learned_env):
        for episode in _family(kitchen, "value_blocked"):
            sim.load(episode.initial, episode.id)
            assert len(sim.obstacles) == len(episode.initial.blocked) == 1, episode.id
            (blocked,) = episode.initial.blocked
            label = next(o.label for o in episode.initial.objects if o.at == blocked)
            other = next(o.at for o in episode.initial.objects if o.label == label and o.at != blocked)
            world = analytic_env.world()
            assert world.nearest_place_of(label) == blocked, episode.id  # where "find" goes
            find = next(s for s in world.admissible_skills() if s.text.startswith("find ") and s.argument == label)
            go_blocked, go_other = world.skill(f"go to the {blocked}"), world.skill(f"go to the {other}")
            skills = [go_blocked, find, go_other]
            assert min(analytic_env.affordances(skills)) > 0.9, episode.id
            blocked_go, blocked_find, free_go = learned_env.affordances(skills)
            assert blocked_go < 0.3 and blocked_find < 0.3 and free_go > 0.9, (episode.id, blocked_go, blocked_find)
            # A model one nat surer of "find" than of going to the other instance's place: SayCan finds on
            # the analytic affordances and goes to the free place on the learned ones.
            chosen = first_choices({find.text: -0.5, go_other.text: -1.5}, episode, analytic_env, learned_env)
            assert chosen == {"analytic": find.text, "learned": go_other.text}, episode.id
            outcome = analytic_env.execute(find)
            assert not outcome.success and "inside an obstacle" in outcome.message, (episode.id, outcome.message)
            assert learned_env.execute(go_other).success, episode.id
            outcome = learned_env.execute(world.skill(f"pick up the {label}"))
            assert outcome.success, (episode.id, outcome.message)


@pytest.mark.timeout(300)
def test_through_the_camera_only_the_learned_model_tells_the_toppled_can(kitchen: Domain) -> None:
    """Each ``topple-*`` episode as the graph sees and acts (head camera through perception's pipeline, the
    executor's pick planned from that): the lying can's pick is 0.9 analytic, below the upright
    instance's learned and unlikely on average, and fails at approach; at the upright instance's place
    the learned pick is likely and succeeds. The lying pepsi and coke rate about 0.3, the slim redbull
    lying diagonally 0.81: in the collected perceived picks, 40 % of the redbulls seen flat, under 0.6 as
    tall as wide, were grasped, against 6 % of the cokes."""
    from llm_planner_ros.perception.backends import BackendOptions, make_detector
    from llm_planner_ros.physics_sim import PhysicsKitchen
    from llm_planner_ros.physics_sim.scripted import ScriptedSkills
    from llm_planner_ros.value_functions.analytic import skill_of, world_of
    from llm_planner_ros.value_functions.observation import Observation
    from llm_planner_ros.value_functions.perceived import HeadCameraPerception, perceived_pick

    learned = LearnedAffordance(domain_value_functions_file(kitchen), kitchen)
    analytic = learned.analytic
    sim = PhysicsKitchen.from_files()
    camera = HeadCameraPerception(sim, make_detector("embedded", BackendOptions()))
    skills = ScriptedSkills(sim)

    def look(place: str) -> tuple[Any, Observation]:
        seen = camera.look()
        robot = sim.truth().robot
        return seen, Observation((robot.x, robot.y), place, None, None, tuple(o.perceived for o in seen.objects))

    lying_values = []
    try:
        for episode in _family(kitchen, "value_toppled"):
            sim.load(episode.initial, episode.id)
            place = episode.initial.robot_at
            lying = next(o for o in episode.initial.objects if o.lying_deg is not None)
            assert lying.at == place, episode.id
            upright = next(o for o in episode.initial.objects if o.label == lying.label and o is not lying)
            pick = skill_of("pick", lying.label, kitchen)
            seen, observation = look(place)
            assert analytic.affordance(pick, world_of(observation, kitchen)) == pytest.approx(0.9), episode.id
            lying_values.append(float(learned.evaluate([pick], observation)[0]))
            run, _ = perceived_pick(skills, seen, lying.label, place)
            assert not run.success and "(approach): in_collision" in run.message, (episode.id, run.message)
            assert skills.go_to(upright.at).success, episode.id
            seen, observation = look(upright.at)
            upright_value = float(learned.evaluate([pick], observation)[0])
            assert upright_value > 0.5 and lying_values[-1] < upright_value, (episode.id, lying_values[-1])
            run, _ = perceived_pick(skills, seen, lying.label, upright.at)
            assert run.success, (episode.id, run.message)
    finally:
        sim.close()
    assert len(lying_values) == 3 and sum(lying_values) / 3 < 0.5, lying_values


@pytest.mark.timeout(300)
def test_bench_command_plans_an_episode_on_the_physics_kitchen(tmp_path: Path) -> None:
    """``llm-planner bench value-reasons`` as a user runs it, with the embedded model's answers replayed
    (test/data/value_reasons_pepsi_replay.jsonl, recorded by the same command with ``--llm
    replay_mode=record --llm recording=...`` on the embedded SmolLM2 with its SayCan adapter)."""
    out = tmp_path / "reasons.json"
    command = [sys.executable, "-m", "llm_planner_ros.cli.main", "bench", "value-reasons", "--ids", "reach-pepsi-01",
               "--affordance", "learned", "--temperature", "10", "--option", "terminate_affordance=1.0",
               "--llm", "backend=replay", "--llm", f"recording={repo_path(REPLAY)}", "--json", str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=280)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    assert report["saycan_overrides"] == {"terminate_affordance": 1.0, "llm_temperature": 10.0}
    (run,) = report["by_affordance"]["learned"]["runs"]
    # On the learned values SayCan leaves the counter whose pepsi is out of reach, and no skill fails.
    assert run["skills"][0] == "go to the table" and run["skills"][-1] == "done"
    assert run["plan_success"] and run["failed_attempts"] == 0
    assert "learned reach-pepsi-01:" in done.stdout
    refused = subprocess.run([*command, "--option", "top_k=5.5"], capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "--option top_k=5.5: saycan's top_k takes a whole number" in refused.stderr
