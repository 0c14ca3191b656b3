"""A stop requested by a signal reaches the main thread however often it waits (ros.stop_request).

The process below waits in a tight loop while another thread sends it SIGHUP, 300 times over. With
``threading.Event`` in place of ``StopRequest`` it hangs within a few rounds (a handler run inside
``Event.wait`` blocks on the lock that wait holds), as the affordance_server that ignored Ctrl-C and
SIGTERM in CI did.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from llm_planner_ros.ros.stop_request import StopRequest

ROUNDS = 300

SCRIPT = textwrap.dedent(
    f"""
    import os, signal, threading, time
    from llm_planner_ros.ros.stop_request import StopRequest

    def send_hangup():
        time.sleep(0.002)
        os.kill(os.getpid(), signal.SIGHUP)

    for _ in range({ROUNDS}):
        stop = StopRequest()
        stop.install([signal.SIGHUP])
        sender = threading.Thread(target=send_hangup)
        sender.start()
        while not stop.wait(0.0):
            pass
        sender.join()
    print("stopped", {ROUNDS}, "times")
    """
)


def test_every_signalled_stop_ends_the_wait() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"stopped {ROUNDS} times"


def test_wait_times_out_without_a_request_and_returns_at_once_after_one() -> None:
    stop = StopRequest()
    assert stop.wait(0.06) is False
    stop.request()
    assert stop.requested and stop.wait(10.0) is True
