"""Helpers of the operator console tests: the console node in a test graph, its address, and headless
Chromium driven by Selenium against it.

Chromium and its driver are Debian packages that ``make setup`` installs (scripts/ensure_system_packages.sh).
Where they are missing the test is skipped with how to get them; under CI (CI=true) that is a failure.
Screenshots are kept under ``out/test-artifacts/operator_console/`` (untracked) for a person to look at.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from repo_paths import REPO_ROOT
from ros_harness import RosGraph, wait_until
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from std_msgs.msg import String

from llm_planner_ros.operator_console.headless_browser import BrowserMissing, chromium_paths, headless_chromium
from llm_planner_ros.processes import NodeProcess
from llm_planner_ros.ros.topics import STATE_QOS

ARTIFACTS = REPO_ROOT / "out" / "test-artifacts" / "operator_console"


def start_console(graph: RosGraph, **params: Any) -> NodeProcess:
    """The operator_console node on any free port (and ``params``), up and pinged."""
    process = graph.start_node("operator_console", params={"port": 0, **params}, name="operator_console")
    graph.ping("operator_console")
    return process


def console_url(graph: RosGraph, namespace: str = "") -> str:
    """The page's address as the console published it (latched on operator_console/url)."""
    urls: list[str] = []
    topic = f"{namespace}/operator_console/url"
    subscription = graph.node.create_subscription(String, topic, lambda msg: urls.append(msg.data), STATE_QOS)
    try:
        wait_until(lambda: bool(urls), 30, f"the console's address on {topic}")
    finally:
        graph.node.destroy_subscription(subscription)
    return urls[-1]


@contextmanager
def browser() -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a fresh profile, closed afterwards."""
    try:
        chromium_paths()
    except BrowserMissing as error:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true: {error}")
        pytest.skip(str(error))
    with headless_chromium() as driver:
        yield driver


def text_of(driver: webdriver.Chrome, element_id: str) -> str:
    """The element's text now ("" while it is not on the page)."""
    try:
        return driver.find_element(By.ID, element_id).text
    except (WebDriverException, StaleElementReferenceException):
        return ""


def wait_for_text(
    driver: webdriver.Chrome, element_id: str, expected: str | Callable[[str], bool], timeout: float = 60
):
    """Until the element's text contains ``expected`` (or satisfies it); returns the text."""
    check = expected if callable(expected) else (lambda text: expected in text)
    seen: list[str] = []

    def shown() -> bool:
        seen.append(text_of(driver, element_id))
        return check(seen[-1])

    try:
        wait_until(shown, timeout, f"#{element_id} to show {expected!r}")
    except TimeoutError as error:
        raise TimeoutError(f"{error}; it shows {seen[-1]!r}") from None
    return seen[-1]


def click(driver: webdriver.Chrome, element_id: str) -> None:
    driver.find_element(By.ID, element_id).click()


def screenshot(driver: webdriver.Chrome, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def approve_until_ended(driver: webdriver.Chrome, timeout: float = 400) -> tuple[list[str], str]:
    """Approve every step the page asks about until its goal ends; (the approved skills, the goal line)."""
    approved: list[str] = []
    answered: set[int] = set()

    def ended() -> bool:
        pending = driver.execute_script("const s = window.consoleSnapshot; return s && s.robots[0].pending;")
        if pending and pending["id"] not in answered:
            answered.add(pending["id"])
            approved.append(", ".join(step["skill"] for step in pending["steps"]))
            wait_until(lambda: bool(text_of(driver, "approve-0")), 10, "the approve button")
            click(driver, "approve-0")
        return "ended" in text_of(driver, "goal-0")

    wait_until(ended, timeout, "the goal to end with every step approved on the page")
    return approved, text_of(driver, "goal-0")
