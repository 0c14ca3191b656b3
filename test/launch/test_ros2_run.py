"""``ros2 run``, ``ros2 pkg``, ``ros2 param`` and ``ros2 interface`` on the colcon install, as a ROS user
runs them: every executable is found, the planner starts alone and its parameters show their
descriptors, refuse values outside their bounds and choices, and refuse changes to what is read only at
start; every interface of llm_planner_interfaces is shown."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from ros2_cli import Ros2, interrupt_and_wait, params_file, wait_for_exit
from ros_harness import RosGraph
from test_colcon_workspace import console_scripts

from llm_planner_interfaces.action import ExecuteInstruction

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]


def test_ros2_pkg_lists_every_executable_of_the_package(ros2: Ros2, repo_root: Path) -> None:
    listed = ros2.run("pkg", "executables", "llm_planner_ros")
    assert listed.returncode == 0, listed.stderr
    assert {line.split()[1] for line in listed.stdout.splitlines()} == console_scripts(repo_root)
    prefix = ros2.run("pkg", "prefix", "llm_planner_ros")
    assert prefix.returncode == 0, prefix.stderr
    assert Path(prefix.stdout.strip()).name == "llm_planner_ros"


def test_ros2_run_starts_the_cli_from_the_install(ros2: Ros2) -> None:
    helped = ros2.run("run", "llm_planner_ros", "llm-planner", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "usage: llm-planner" in helped.stdout


def test_ros2_run_planner_node_and_its_parameters_through_ros2_param(ros2: Ros2, ros_graph: RosGraph) -> None:
    planner = ros2.start("run", "llm_planner_ros", "planner", label="planner")
    ros_graph.action_client(ExecuteInstruction, "/llm_planner/execute_instruction", timeout=60)

    got = ros2.param("get", "/planner", "max_steps")
    assert got.returncode == 0 and got.stdout.strip() == "Integer value is: 30", got.stdout + got.stderr

    described = ros2.param("describe", "/planner", "max_steps")
    assert "Min value: 1" in described.stdout and "default step budget" in described.stdout, described.stdout

    changed = ros2.param("set", "/planner", "max_steps", "12")
    assert "Set parameter successful" in changed.stdout, changed.stdout + changed.stderr
    below = ros2.param("set", "/planner", "max_steps", "0")
    assert "Setting parameter failed" in below.stderr and "out of range" in below.stderr, below.stdout + below.stderr
    outside_choices = ros2.param("set", "/planner", "on_busy", "shove")
    assert "Setting parameter failed" in outside_choices.stderr, outside_choices.stdout + outside_choices.stderr
    assert "one of reject, preempt" in outside_choices.stderr
    read_only = ros2.param("set", "/planner", "goal_queue_depth", "5")
    assert "Setting parameter failed" in read_only.stderr, read_only.stdout + read_only.stderr
    assert "read-only" in read_only.stderr, read_only.stderr
    assert "Read only: true" in ros2.param("describe", "/planner", "goal_queue_depth").stdout

    # One dump (each ros2 command is a process of its own, seconds each) shows the accepted change kept and
    # every refused one without effect.
    dumped = ros2.param("dump", "/planner")
    assert dumped.returncode == 0, dumped.stderr
    parameters = yaml.safe_load(dumped.stdout)["/planner"]["ros__parameters"]
    assert parameters["max_steps"] == 12 and parameters["require_confirmation"] is False
    assert (parameters["on_busy"], parameters["goal_queue_depth"]) == ("reject", 100), parameters

    assert interrupt_and_wait(planner) == 0, planner.log()
    assert "Traceback" not in planner.log(), planner.log()


def test_ros2_run_planner_node_refuses_a_params_file_key_it_does_not_declare(ros2: Ros2, tmp_path: Path) -> None:
    # No near-miss of any planner parameter: rclpy would have ignored it and the planner run unconfirmed.
    params = params_file(tmp_path, {"planner": {"confirm_each_step": True}})
    planner = ros2.start(
        "run", "llm_planner_ros", "planner", "--ros-args", "--params-file", str(params), label="planner"
    )
    status = wait_for_exit(planner, 60)
    log = planner.log()
    assert status == 1, log
    assert "Traceback" not in log, log
    problem = next(line for line in log.splitlines() if "confirm_each_step" in line)
    assert problem.strip().startswith(f"{params}: planner.confirm_each_step: not a parameter of /planner"), log
    assert "require_confirmation" in problem.split("its parameters: ")[1], problem


def interface_names(repo_root: Path) -> list[str]:
    return [
        f"llm_planner_interfaces/{path.parent.name}/{path.stem}"
        for kind in ("msg", "srv", "action")
        for path in sorted((repo_root / "msg" / kind).glob(f"*.{kind}"))
    ]


def test_ros2_interface_shows_every_interface_of_the_project(ros2: Ros2, repo_root: Path) -> None:
    names = interface_names(repo_root)
    listed = ros2.run("interface", "package", "llm_planner_interfaces")
    assert sorted(listed.stdout.split()) == sorted(names), listed.stdout + listed.stderr
    for name in names:
        shown = ros2.run("interface", "show", name)
        assert shown.returncode == 0, f"{name}: {shown.stderr}"
        source = repo_root / "msg" / name.split("/")[1] / f"{name.split('/')[2]}.{name.split('/')[1]}"
        fields = [line.split()[1] for line in source.read_text().splitlines() if line.strip() and line[0].isalpha()]
        for field in fields:
            assert field in shown.stdout, f"{name}: field {field} missing from\n{shown.stdout}"
