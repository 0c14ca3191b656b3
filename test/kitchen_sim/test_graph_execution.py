"""Graph tests: skills through the executors change the simulated world; cancel; injected failures."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from action_msgs.msg import GoalStatus
from graph_helpers import WorldWatcher, execute, load_episode, write_episode
from ros_harness import RosGraph, wait_future, wait_until

from llm_planner_interfaces.action import ExecuteSkill
from llm_planner_ros.domain import Domain, FailureInjector, Skill
from llm_planner_ros.paths import config_file, default_domain_file
from llm_planner_ros.ros.messages import skill_to_msg

pytestmark = pytest.mark.graph

MANIPULATOR = "/executors/manipulator/execute_skill"
MOBILE_BASE = "/executors/mobile_base/execute_skill"


def _start(graph: RosGraph, **sim_params: object) -> tuple[WorldWatcher, object, object]:
    """sim_world and both executors with the shipped parameter files (``sim_params`` override)."""
    graph.start_node("sim_world", params={"time_scale": 0.0, **sim_params}, param_files=[config_file("sim_world.yaml")])
    graph.start_node("manipulator_executor", param_files=[config_file("manipulator_executor.yaml")])
    graph.start_node("mobile_base_executor", param_files=[config_file("mobile_base_executor.yaml")])
    watcher = WorldWatcher(graph)
    return watcher, graph.action_client(ExecuteSkill, MANIPULATOR), graph.action_client(ExecuteSkill, MOBILE_BASE)


@pytest.mark.timeout(120)
def test_find_pick_go_to_put_down_change_the_world(ros_graph: RosGraph, kitchen: Domain) -> None:
    watcher, arm, base = _start(ros_graph, time_scale=0.01)
    watcher.wait_for(lambda w: w.location_of("coke_1") == "far counter", "default scene on /scene/objects")
    robot = watcher.wait_robot("default scene robot state", lambda r: r.at == "close counter")
    world = kitchen.world()
    feedback: list[tuple[str, float]] = []

    response = execute(base, world.skill("find a coke"), feedback)
    assert response.status == GoalStatus.STATUS_SUCCEEDED and response.result.success, response.result.message
    # ROS orders no feedback after the result: the last one (progress 1.0) may reach the client after
    # it, which drops it. What came before is in order: the plan phase first, progress never going back.
    assert feedback and feedback[0][0] == "plan" and {phase for phase, _ in feedback} <= {"plan", "navigate"}
    assert all(a[1] <= b[1] for a, b in zip(feedback, feedback[1:], strict=False)), "progress never goes back"
    watcher.wait_robot("robot at the far counter", lambda r: r.at == "far counter" and r.revision > robot.revision)

    response = execute(arm, world.skill("pick up the coke"))
    assert response.result.success, response.result.message
    watcher.wait_for(lambda w: w.location_of("coke_1") == "robot", "coke in the gripper on /scene/objects")
    watcher.wait_robot("holding the coke", lambda r: r.holding == "coke_1" and r.holding_label == "coke")

    response = execute(base, world.skill("go to the table"))
    assert response.result.success, response.result.message
    watcher.wait_robot("robot at the table", lambda r: r.at == "table" and r.visited[-1] == "table")

    response = execute(arm, world.skill("put down the coke"))
    assert response.result.success, response.result.message
    watcher.wait_for(lambda w: w.location_of("coke_1") == "table", "coke on the table on /scene/objects")
    watcher.wait_robot("gripper empty", lambda r: r.holding is None)

    # A skill whose preconditions fail is reported by the simulator and changes nothing.
    response = execute(arm, world.skill("put down the coke"))
    assert response.status == GoalStatus.STATUS_ABORTED and "the gripper is empty" in response.result.message
    assert watcher.location_of("coke_1") == "table"


@pytest.mark.timeout(60)
def test_unknown_skill_and_wrong_executor_are_rejected(ros_graph: RosGraph, kitchen: Domain) -> None:
    _watcher, arm, base = _start(ros_graph)
    world = kitchen.world()
    assert execute(arm, world.skill("go to the table")) is None
    assert execute(base, world.skill("pick up the coke")) is None
    assert execute(arm, Skill("juggle the coke", "pick", ("coke",), "manipulator")) is None
    assert execute(base, world.skill("done")) is None
    assert execute(arm, Skill("pick up the coke", "place", ("coke",), "manipulator")) is None
    logs = ros_graph.logs()
    assert "'go to the table' runs on mobile_base, not on manipulator" in logs
    assert "'pick up the coke' runs on manipulator, not on mobile_base" in logs
    assert "unknown skill 'juggle the coke'" in logs
    assert "has family 'pick' in the skill library, the goal says 'place'" in logs
    # Empty optional fields are filled from the library.
    response = execute(base, Skill("go to the table", "", (), ""))
    assert response is not None and response.result.success


@pytest.mark.timeout(120)
def test_cancel_mid_skill_leaves_the_world_consistent(ros_graph: RosGraph, kitchen: Domain) -> None:
    # Real-time durations (the trip to the user takes ~12 s, a pick 6 s): cancel lands mid-skill.
    watcher, arm, base = _start(ros_graph, time_scale=1.0)
    world = kitchen.world()
    start = watcher.wait_robot("default scene", lambda r: r.at == "close counter")

    for client, text, phase in ((base, "bring it to you", "navigate"), (arm, "pick up the sponge", "grasp")):
        feedback: list[tuple[str, float]] = []
        handle = wait_future(
            client.send_goal_async(
                ExecuteSkill.Goal(skill=skill_to_msg(world.skill(text))),
                feedback_callback=lambda m, seen=feedback: seen.append((m.feedback.phase, m.feedback.progress)),
            )
        )
        assert handle.accepted
        wait_until(
            lambda seen=feedback, wanted=phase: any(p == wanted for p, _ in seen),
            what=f"{text!r} reaching phase {phase}",
        )
        wait_future(handle.cancel_goal_async())
        response = wait_future(handle.get_result_async())
        assert response.status == GoalStatus.STATUS_CANCELED, response.result.message
        assert not response.result.success and "world is unchanged" in response.result.message
        assert 0.0 < feedback[-1][1] < 1.0
        state = watcher.wait_robot("robot idle again", lambda r: r.busy is None)
        assert state.at == "close counter" and state.holding is None and state.revision == start.revision
        assert watcher.location_of("sponge_1") == "close counter"


@pytest.mark.timeout(120)
def test_injected_failures_are_reproducible_with_a_fixed_seed(
    ros_graph: RosGraph, kitchen: Domain, tmp_path: Path
) -> None:
    skills = yaml.safe_load(default_domain_file("skills.yaml").read_text())
    skills["failure_probability"] = {
        "pick": 0.5,
        "place": 0.0,
        "goto": 0.0,
        "find": 0.0,
        "drawer": 0.0,
        "terminate": 0.0,
    }
    skills_file = tmp_path / "skills.yaml"
    skills_file.write_text(yaml.safe_dump(skills))
    episode_file = write_episode(
        tmp_path / "episode.yaml",
        "flaky-picks",
        {
            "robot": {"at": "table", "holding": None},
            "objects": [{"id": "apple_1", "label": "apple", "at": "table"}],
        },
    )
    seed = 11
    watcher, arm, _base = _start(
        ros_graph, inject_failures=True, failure_seed=seed, skills_file=str(skills_file), episode_file=str(episode_file)
    )
    watcher.wait_robot("episode loaded", lambda r: r.episode == "flaky-picks")
    world = kitchen.world({"robot": {"at": "table"}, "objects": [{"id": "apple_1", "label": "apple", "at": "table"}]})
    pick, put_down = world.skill("pick up the apple"), world.skill("put down the apple")

    predicted = FailureInjector({"pick": 0.5}, seed=seed, enabled=True)
    predicted.reset("flaky-picks")
    expected = [not predicted.attempt_fails(pick) for _ in range(10)]
    assert 0 < sum(expected) < len(expected), "seed 11 should give both outcomes"

    observed = []
    for _ in expected:
        response = execute(arm, pick)
        observed.append(response.result.success)
        if response.result.success:
            watcher.wait_for(lambda w: w.location_of("apple_1") == "robot", "apple picked")
            assert execute(arm, put_down).result.success
            watcher.wait_for(lambda w: w.location_of("apple_1") == "table", "apple put back")
        else:
            assert "injected failure" in response.result.message and f"seed {seed}" in response.result.message
            assert watcher.location_of("apple_1") == "table"
    assert observed == expected

    # Reloading the episode restarts the attempt counts: its first pick has the first outcome again.
    assert load_episode(ros_graph, episode_file).success
    assert execute(arm, pick).result.success == expected[0]
