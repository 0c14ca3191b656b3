"""Graph tests: sim_world loads episodes, and refuses malformed ones with the loader's reasons."""

from __future__ import annotations

import pytest
from data_files import SAMPLE_EPISODES, bad_episode_expectations
from graph_helpers import WorldWatcher, load_episode
from ros_harness import RosGraph, wait_until

from llm_planner_ros.domain import Domain, load_episodes

pytestmark = pytest.mark.graph


@pytest.mark.timeout(120)
def test_every_malformed_episode_file_is_refused_with_a_useful_message(ros_graph: RosGraph) -> None:
    ros_graph.start_node("sim_world", params={"time_scale": 0.0})
    watcher = WorldWatcher(ros_graph)
    before = watcher.wait_robot("default scene", lambda r: r.episode == "")
    for expected in bad_episode_expectations():
        response = load_episode(ros_graph, expected.path, expected.episode or "")
        assert not response.success, f"{expected.path.name} was loaded"
        assert str(expected.path) in response.message
        assert f"field {expected.field or '<top level>'}" in response.message, response.message
        assert expected.message in response.message, response.message
        if expected.episode is not None:
            assert repr(expected.episode) in response.message
    missing = load_episode(ros_graph, SAMPLE_EPISODES.with_name("no_such_file.yaml"), "x")
    assert not missing.success and "No such file" in missing.message
    unknown = load_episode(ros_graph, SAMPLE_EPISODES, "no-such-id")
    assert not unknown.success and "its ids: 'nl-verb-03'" in unknown.message
    ambiguous = load_episode(ros_graph, SAMPLE_EPISODES)
    assert not ambiguous.success and "name one with episode_id" in ambiguous.message
    assert watcher.robot is not None and watcher.robot.revision == before.revision, "a refused load changed the world"


@pytest.mark.timeout(60)
def test_loaded_episode_is_published_as_ground_truth(ros_graph: RosGraph, kitchen: Domain) -> None:
    episode = load_episodes(SAMPLE_EPISODES, kitchen).episode("restock-coke")
    ros_graph.start_node(
        "sim_world",
        params={
            "time_scale": 0.0,
            "episode_file": str(SAMPLE_EPISODES),
            "episode_id": "two-drinks",
        },
    )
    watcher = WorldWatcher(ros_graph)
    watcher.wait_for(lambda w: set(w.objects) == {"coke_1", "coke_2", "pepsi_1", "7up_1"}, "episode from parameters")
    response = load_episode(ros_graph, SAMPLE_EPISODES, "restock-coke")
    assert response.success, response.message
    expected = {obj.id: (obj.label, obj.at) for obj in episode.initial.objects}
    watcher.wait_for(lambda w: w.objects == expected, "restock-coke objects on /scene/objects")
    state = watcher.wait_robot("restock-coke robot", lambda r: r.episode == "restock-coke")
    assert (state.at, state.holding, state.drawer_open, state.visited) == ("table", None, False, ("table",))


@pytest.mark.timeout(60)
def test_bad_episode_parameter_stops_the_node_with_the_reason(ros_graph: RosGraph) -> None:
    bad = next(e for e in bad_episode_expectations() if e.path.stem == "unknown_label")
    proc = ros_graph.start_node("sim_world", params={"episode_file": str(bad.path)})
    wait_until(lambda: proc.returncode is not None, what="sim_world exiting")
    assert proc.returncode == 1
    assert bad.message in proc.log() and "Traceback" not in proc.log()
