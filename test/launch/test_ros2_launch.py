"""Every launch file through the real ``ros2 launch`` on the colcon install, with its arguments: each graph
comes up, serves a goal sent with ``ros2 action send_goal`` that succeeds, and stops on Ctrl-C with
exit status 0 and no process left."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from console_browser import approve_until_ended, browser, click, console_url, screenshot, wait_for_text
from rclpy.qos import QoSProfile
from robot_graph import INITIAL, start_doubles
from ros2_cli import Ros2, interrupt_and_wait, params_file, wait_for_exit
from ros_harness import RosGraph, wait_until
from rosgraph_msgs.msg import Clock
from selenium.webdriver.common.by import By

from llm_planner_interfaces.action import ExecuteInstruction
from llm_planner_ros.processes import NodeProcess

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]

ACTION = "llm_planner/execute_instruction"


def stop_cleanly(launch: NodeProcess) -> None:
    """Ctrl-C ends the launch and every node with status 0, without a traceback."""
    status = interrupt_and_wait(launch)
    log = launch.log()
    assert status == 0, log
    assert "Traceback" not in log, log
    assert "process has died" not in log, log


def test_sim_launch_in_a_namespace_with_a_params_file(ros2: Ros2, ros_graph: RosGraph, tmp_path: Path) -> None:
    # The symbolic kitchen's skills at a tenth of their simulated duration.
    params = params_file(tmp_path, {"sim_world": {"time_scale": 0.1}})
    launch = ros2.start(
        "launch", "llm_planner_ros", "sim.launch.py", "namespace:=robot1", f"params_file:={params}", label="launch"
    )
    scores_topic = "/robot1/llm_planner/scores"
    echo = ros2.start(
        "topic", "echo", "--once", "--no-daemon", scores_topic, "llm_planner_interfaces/msg/PlanStep", label="echo"
    )
    wait_until(lambda: ros_graph.node.count_subscribers(scores_topic) >= 1, 60, f"ros2 topic echo on {scores_topic}")

    ros2.send_goal(f"/robot1/{ACTION}", "bring me a coke")

    assert echo.wait(30) == 0, echo.log()
    step = echo.log()
    assert "skill:" in step and "candidates:" in step, step
    assert ros2.param("get", "/robot1/sim_world", "time_scale").stdout.strip() == "Double value is: 0.1"
    stop_cleanly(launch)


def test_ros2_launch_refuses_a_params_file_key_the_planner_does_not_declare_before_starting_any_node(
    ros2: Ros2, tmp_path: Path
) -> None:
    # No near-miss of any planner parameter: rcl would have ignored it and the planner run unconfirmed.
    params = params_file(tmp_path, {"/planner": {"confirm_each_step": True}})
    launch = ros2.start("launch", "llm_planner_ros", "sim.launch.py", f"params_file:={params}", label="launch")
    status = wait_for_exit(launch, 60)
    log = launch.log()
    assert status != 0, log
    problem = next(line for line in log.splitlines() if "confirm_each_step" in line)
    assert problem.startswith("  /planner.confirm_each_step: not a parameter of planner; its parameters: "), log
    assert "require_confirmation" in problem.split("its parameters: ")[1], problem
    assert "process started" not in log, log


def test_physics_launch_serves_a_goal_on_what_perception_sees_approved_in_the_console(
    ros2: Ros2, ros_graph: RosGraph, tmp_path: Path
) -> None:
    # Every step waits for a person, who approves it on the console's page (port 0: any free port).
    params = params_file(tmp_path, {"planner": {"require_confirmation": True}, "operator_console": {"port": 0}})
    launch = ros2.start(
        "launch", "llm_planner_ros", "physics.launch.py", "console:=true", f"params_file:={params}", label="launch"
    )
    # As a user would: wait until perception publishes what the head camera sees (its model loads first).
    scene = ros2.run(
        "topic",
        "echo",
        "--once",
        "--no-daemon",
        "/scene/objects",
        "llm_planner_interfaces/msg/SceneObjectArray",
        timeout=240,
    )
    assert scene.returncode == 0 and "label:" in scene.stdout, scene.stdout + scene.stderr
    with browser() as person, ThreadPoolExecutor(1) as goals:
        person.get(console_url(ros_graph))
        sent = goals.submit(ros2.send_goal, f"/{ACTION}", "go to the table", 400)
        approved, goal = approve_until_ended(person)
        sent.result(timeout=60)  # asserted SUCCEEDED
        assert approved[0] == "go to the table" and "ended: done" in goal, (approved, goal)
        # perception's image of the head camera, with its detections drawn
        wait_until(
            lambda: person.execute_script("return document.getElementById('camera-0').naturalWidth") > 0,
            30,
            "the head camera on the page",
        )
        assert person.find_element(By.ID, "camera-0").get_attribute("title") == "/perception/debug_image"
        screenshot(person, "physics-graph-approved")
    stop_cleanly(launch)


class SimClock:
    """Publishes /clock, as Gazebo or Isaac Sim does, from a thread of the test."""

    def __init__(self, graph: RosGraph, start_s: int = 1000) -> None:
        self._publisher = graph.node.create_publisher(Clock, "/clock", QoSProfile(depth=10))
        self._stop = threading.Event()
        self._start_s = start_s
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(0.02):
            tick += 1
            message = Clock()
            message.clock.sec = self._start_s + tick // 50
            message.clock.nanosec = (tick % 50) * 20_000_000
            self._publisher.publish(message)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def test_robot_launch_on_sim_time_executes_an_instruction_sent_and_approved_in_the_console(
    ros2: Ros2, ros_graph: RosGraph, tmp_path: Path
) -> None:
    # The robot graph starts the operator console (require_confirmation in robot_graph.yaml): a person sends the
    # instruction and approves each step on its page; the robot is the doubles, time is /clock.
    start_doubles(ros_graph, tmp_path, INITIAL)
    params = params_file(tmp_path, {"operator_console": {"port": 0}})
    clock = SimClock(ros_graph)
    try:
        launch = ros2.start(
            "launch",
            "llm_planner_ros",
            "robot.launch.py",
            "use_sim_time:=true",
            f"params_file:={params}",
            label="launch",
        )
        with browser() as person:
            person.get(console_url(ros_graph))
            wait_for_text(person, "connection", "live")
            ros_graph.action_client(ExecuteInstruction, f"/{ACTION}", timeout=120)  # the planner is up
            person.find_element(By.ID, "instruction-0").send_keys("bring me a coke")
            click(person, "send-0")
            approved, goal = approve_until_ended(person)
            screenshot(person, "robot-graph-approved")
        assert ros2.param("get", "/planner", "use_sim_time").stdout.strip() == "Boolean value is: True"
        stop_cleanly(launch)
    finally:
        clock.stop()
    assert approved[:2] == ["find a coke", "pick up the coke"], approved
    assert "ended: done" in goal, goal


def test_multi_robot_launch_serves_each_robot(ros2: Ros2, tmp_path: Path) -> None:
    params = params_file(tmp_path, {"sim_world": {"time_scale": 0.1}})
    launch = ros2.start(
        "launch", "llm_planner_ros", "multi_robot.launch.py", "robots:=2", f"params_file:={params}", label="launch"
    )
    ros2.send_goal(f"/robot1/{ACTION}", "bring me a coke")
    ros2.send_goal(f"/robot2/{ACTION}", "bring me an apple")
    stop_cleanly(launch)
