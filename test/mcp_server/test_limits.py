"""The MCP server's own limits: instruction length, each client's call rate, one goal per robot."""

from __future__ import annotations

import threading
import time

import pytest

from llm_planner_ros.mcp_server.limits import AgentLimits, AgentRefusal, CallRate, GoalSlots


def test_an_instruction_is_refused_empty_or_over_the_limit_and_stripped_otherwise() -> None:
    limits = AgentLimits(max_instruction_chars=10)
    assert limits.check_instruction("  bring it ") == "bring it"
    with pytest.raises(AgentRefusal, match="empty"):
        limits.check_instruction("   ")
    with pytest.raises(AgentRefusal, match="has 11 characters, more than this server's limit of 10"):
        limits.check_instruction("x" * 11)


def test_each_client_gets_its_own_calls_per_minute_in_a_sliding_window() -> None:
    now = [0.0]
    rate = CallRate(per_minute=2, clock=lambda: now[0])
    rate.admit("mcp:a")
    rate.admit("mcp:a")
    rate.admit("mcp:b")  # another client has its own budget
    with pytest.raises(AgentRefusal, match=r"client 'mcp:a' made 2 calls in the last minute.*try again in 60 s"):
        rate.admit("mcp:a")
    now[0] = 59.0
    with pytest.raises(AgentRefusal):
        rate.admit("mcp:a")  # a refused call is not counted, but the window has not moved on yet
    now[0] = 60.0
    rate.admit("mcp:a")


def test_a_second_goal_for_a_busy_robot_is_refused_naming_what_runs() -> None:
    slots = GoalSlots(AgentLimits())
    slots.take("/robot1", "'bring me a coke'")
    slots.take("/robot2", "'find an apple'")  # robots are independent
    with pytest.raises(AgentRefusal, match=r"robot /robot1 is busy with 'bring me a coke': one goal at a time"):
        slots.take("/robot1", "'stop'")
    slots.release("/robot1")
    slots.take("/robot1", "'stop'")


def test_with_a_queue_a_second_goal_waits_for_the_robot_and_gives_up_after_the_wait() -> None:
    slots = GoalSlots(AgentLimits(queue=True, queue_wait_s=5.0))
    slots.take("/", "first")
    taken = threading.Event()
    waiter = threading.Thread(target=lambda: (slots.take("/", "second"), taken.set()))
    waiter.start()
    time.sleep(0.2)
    assert not taken.is_set(), "the queued goal went ahead while the robot was busy"
    slots.release("/")
    waiter.join(timeout=5.0)
    assert taken.is_set()
    short = GoalSlots(AgentLimits(queue=True, queue_wait_s=0.1))
    short.take("/", "first")
    with pytest.raises(AgentRefusal, match=r"busy with first \(waited 0 s\)"):
        short.take("/", "second")
