"""The ROS-free rules behind planner's goal handling (llm_planner_ros.nodes.goal_control), the method
cache that keeps one planner (and one sentence embedder) per node, and the CLI's step-budget type."""

from __future__ import annotations

import argparse
import threading

import pytest
from language_model_doubles import ScriptedModel, WordEmbedder

from llm_planner_ros.domain import Domain
from llm_planner_ros.nodes.goal_control import ClientWatch, EStop, GoalSlot
from llm_planner_ros.options import step_budget
from llm_planner_ros.planning.registry import PlannerCache, PlannerResources, UnknownPlannerError, load_planner_options

STOP = "/llm_planner/stop"


def test_the_slot_admits_one_goal_and_frees_on_leave() -> None:
    slot = GoalSlot()
    first = slot.try_enter()
    assert first is not None and slot.try_enter() is None
    slot.leave(first)
    second = slot.try_enter()
    assert second is not None and not slot.superseded(second)


def test_preempting_goals_keep_only_the_newest_waiting() -> None:
    slot = GoalSlot()
    running = slot.try_enter()
    assert running is not None
    outcomes: dict[int, int | None] = {}
    waiters = []
    for index in range(3):
        waiter = threading.Thread(target=lambda i=index: outcomes.__setitem__(i, slot.preempt()))
        waiter.start()
        waiters.append(waiter)
        # Older waiters give up as soon as a newer one arrives, without the running goal leaving.
        for older in waiters[:-1]:
            older.join(timeout=5)
            assert not older.is_alive()
    assert slot.superseded(running) and outcomes == {0: None, 1: None}
    slot.leave(running)
    waiters[-1].join(timeout=5)
    newest = outcomes[2]
    assert newest is not None and not slot.superseded(newest) and slot.try_enter() is None


def test_a_latched_estop_refuses_goals_until_released() -> None:
    estop = EStop(latched=True, topic=STOP)
    assert estop.refusal() is None and estop.reason() is None
    estop.set(True)
    estop.goal_started()
    latched = f"e-stop latched: publish false on {STOP} to release"
    assert estop.refusal() == latched and estop.reason() == latched
    estop.set(False)
    assert estop.refusal() is None and estop.reason() is None


def test_a_momentary_estop_stops_the_running_goal_only() -> None:
    estop = EStop(latched=False, topic=STOP)
    estop.set(True)
    assert estop.refusal() is None and estop.reason() == f"e-stop on {STOP}"
    estop.goal_started()
    assert estop.reason() is None


def test_the_client_watch_ends_a_goal_whose_listeners_from_the_start_are_gone() -> None:
    watch = ClientWatch(grace_s=2.0, now=0.0)
    assert not watch.update([b"cli"], now=0.5)
    # A newcomer (a retry from another client) does not stand in for the goal's own client.
    assert not watch.update([b"retry"], now=1.0)
    assert not watch.update([b"retry"], now=2.4)
    assert watch.update([b"retry"], now=2.6) and watch.gone
    assert not watch.update([], now=9.0)  # reported once


def test_the_client_watch_waits_for_a_client_discovered_late_and_keeps_one_that_returns() -> None:
    watch = ClientWatch(grace_s=2.0, now=0.0)
    assert not watch.update([], now=1.5)
    assert not watch.update([b"cli"], now=1.9)
    assert not watch.update([], now=3.5)
    assert not watch.update([b"cli"], now=3.8)
    assert not watch.gone


def test_the_client_watch_gives_up_on_a_client_never_seen() -> None:
    watch = ClientWatch(grace_s=2.0, now=0.0)
    assert not watch.update([], now=1.9)
    assert watch.update([], now=2.0)


@pytest.mark.parametrize("text, value", [("0", 0), ("12", 12), ("4294967295", 4294967295)])
def test_step_budget_accepts_what_fits_the_goal(text: str, value: int) -> None:
    assert step_budget(text) == value


@pytest.mark.parametrize("text", ["-5", "4294967296", "3.5", "many"])
def test_step_budget_refuses_what_does_not(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        step_budget(text)


def test_the_planner_cache_builds_each_method_and_the_embedder_once(kitchen: Domain) -> None:
    loads: list[WordEmbedder] = []

    def load() -> WordEmbedder:
        loads.append(WordEmbedder())
        return loads[-1]

    cache = PlannerCache(PlannerResources(ScriptedModel([]), kitchen, load, load_planner_options()))
    zero_shot = cache.get("zero_shot")
    assert [cache.get("zero_shot") for _ in range(3)] == [zero_shot] * 3
    llm_planner = cache.get("llm_planner")
    assert llm_planner is not zero_shot and cache.get("llm_planner") is llm_planner
    assert cache.get("") is cache.get("saycan")
    assert len(loads) == 1
    with pytest.raises(UnknownPlannerError):
        cache.get("telepathy")
