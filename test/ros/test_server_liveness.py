"""wait_for with a Liveness: a call whose server left the graph is given up after the grace period, not
after the call's timeout, even when a server of that name came back (it never got the request)."""

from __future__ import annotations

import threading
import time

import pytest
from rclpy.task import Future

from llm_planner_ros.ros.futures import Liveness, ServerLost, WaitTimeout, wait_for

GRACE_S = 0.5
TIMEOUT_S = 20.0  # the call's own limit, which none of these waits may reach


class Server:
    """Stands for rclpy's ``service_is_ready``: present until ``leave()``, back after ``come_back()``."""

    def __init__(self) -> None:
        self.present = True

    def ready(self) -> bool:
        return self.present

    def liveness(self) -> Liveness:
        return Liveness("/llm/score", self.ready, GRACE_S, "start llm_service (llm-planner up)")


def later(seconds: float, action) -> None:
    timer = threading.Timer(seconds, action)
    timer.daemon = True
    timer.start()


def timed_wait(future: Future, server: Server) -> tuple[object, float]:
    started = time.monotonic()
    try:
        return wait_for(future, TIMEOUT_S, "/llm/score", liveness=server.liveness()), time.monotonic() - started
    except WaitTimeout as error:
        return error, time.monotonic() - started


def test_a_server_that_stays_answers_normally() -> None:
    future, server = Future(), Server()
    later(0.2, lambda: future.set_result("scores"))
    assert timed_wait(future, server)[0] == "scores"


def test_a_server_that_left_is_given_up_after_the_grace() -> None:
    future, server = Future(), Server()
    later(0.2, lambda: setattr(server, "present", False))
    error, waited = timed_wait(future, server)
    assert isinstance(error, ServerLost), error
    assert "/llm/score left the ROS graph" in str(error) and "start llm_service" in str(error)
    assert 0.2 + GRACE_S <= waited < 0.2 + GRACE_S + 2.0


def test_a_restarted_server_does_not_answer_the_lost_request() -> None:
    future, server = Future(), Server()
    later(0.2, lambda: setattr(server, "present", False))
    later(0.4, lambda: setattr(server, "present", True))
    error, waited = timed_wait(future, server)
    assert isinstance(error, ServerLost) and waited < 0.2 + GRACE_S + 2.0


def test_an_answer_within_the_grace_is_taken() -> None:
    future, server = Future(), Server()
    later(0.2, lambda: setattr(server, "present", False))
    later(0.3, lambda: future.set_result("late scores"))
    assert timed_wait(future, server)[0] == "late scores"


@pytest.mark.parametrize("liveness", [True, False])
def test_the_call_timeout_still_holds(liveness: bool) -> None:
    with pytest.raises(WaitTimeout, match="did not answer within 0.3 s") as raised:
        wait_for(Future(), 0.3, "/llm/score", liveness=Server().liveness() if liveness else None)
    assert not isinstance(raised.value, ServerLost)
