"""`llm-planner confirm`: a person approves the planner's steps in a terminal.

The sim graph runs with `require_confirmation: true`, as the robot graph does, SayCan replaying a
recorded plan; `llm-planner confirm` answers `/llm_planner/confirm` from its standard input, which the
test writes as a person would type.
"""

from __future__ import annotations

import getpass
import subprocess
import sys
from pathlib import Path

import pytest
from action_msgs.msg import GoalStatus
from replayed_planner_graph import FETCH_INSTRUCTION, confirming_fetch_graph, execute_instruction, load_scene
from ros_harness import RosGraph

from llm_planner_interfaces.msg import PlanStep
from llm_planner_ros.cli.confirm_command import answer

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]


def test_two_steps_approved_in_the_terminal_run_and_the_refused_third_ends_the_plan(tmp_path: Path) -> None:
    terminal: list[subprocess.Popen[str]] = []

    def start_confirm(graph: RosGraph) -> None:
        argv = [str(Path(sys.executable).parent / "llm-planner"), "confirm"]
        terminal.append(
            subprocess.Popen(
                argv, env=graph.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
        )

    with confirming_fetch_graph(tmp_path, 60.0, start_confirm) as graph:
        person = terminal[0]
        assert person.stdin is not None and person.stdout is not None
        try:
            person.stdin.write("y\nyes\nn the coke is still warm\n")
            person.stdin.flush()
            response = execute_instruction(graph, FETCH_INSTRUCTION)
            executed = [(step.skill, step.status) for step in response.result.executed]
            assert response.status == GoalStatus.STATUS_ABORTED, (response.result.message, executed)
            assert executed == [
                ("find a coke", PlanStep.STATUS_SUCCEEDED),
                ("pick up the coke", PlanStep.STATUS_SUCCEEDED),
                ("bring it to you", PlanStep.STATUS_SKIPPED),
            ]
            user = getpass.getuser()
            reason = f"step 3 (bring it to you) not approved: refused by {user}: the coke is still warm"
            assert reason in response.result.message, response.result.message
            # The terminal closes: the next step asked is refused, and the command stops serving.
            person.stdin.close()
            load_scene(graph, tmp_path)  # the recorded first step again
            again = execute_instruction(graph, FETCH_INSTRUCTION)
            assert "not approved: the operator's terminal closed" in again.result.message, again.result.message
            assert person.wait(timeout=30) == 0
            output = person.stdout.read()
        finally:
            person.kill()
    # rich reads square brackets as markup: the usage and the prompt keep theirs
    assert "answering /llm_planner/confirm: y approves a step, n [reason] refuses it" in output, output
    assert "? [y / n reason]" in output, output
    assert "'find a coke'" in output and "p_LLM" in output and "affordance" in output, output
    assert output.count(f"approved (approved by {user})") == 2, output
    assert "no longer answering /llm_planner/confirm" in output, output


@pytest.mark.parametrize(
    ("line", "approved", "reason"),
    [
        ("y\n", True, "approved by {user}"),
        (" YES \n", True, "approved by {user}"),
        ("\n", False, "refused by {user}"),
        ("n\n", False, "refused by {user}"),
        ("no, too close to the stove\n", False, "refused by {user}: no, too close to the stove"),
        ("n too close to the stove\n", False, "refused by {user}: too close to the stove"),
        ("yes but slowly\n", False, "refused by {user}: yes but slowly"),
    ],
)
def test_only_a_plain_yes_approves(line: str, approved: bool, reason: str) -> None:
    assert answer(line) == (approved, reason.format(user=getpass.getuser()))
