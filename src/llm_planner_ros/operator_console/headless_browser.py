"""Headless Chromium driven by Selenium, as the console's browser tests and its latency benchmark open the page.

Chromium and its driver are the Debian packages ``chromium`` and ``chromium-driver``, which ``make setup``
installs (scripts/ensure_system_packages.sh). The flags are those a root user on a machine without
outside network needs: no sandbox, no GPU, no background downloads, and a fresh profile each time.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1600",
)
MISSING = (
    "headless Chromium or its driver is missing (Debian packages chromium and chromium-driver): run "
    "`make setup`, which installs them (scripts/ensure_system_packages.sh)"
)


class BrowserMissing(RuntimeError):
    """Chromium or chromedriver is not installed; the message says how to install them."""


def chromium_paths() -> tuple[str, str]:
    """(chromium, chromedriver) on PATH; BrowserMissing otherwise."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise BrowserMissing(MISSING)
    return chromium, driver


@contextmanager
def headless_chromium() -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a fresh profile, quit afterwards."""
    chromium, driver_path = chromium_paths()
    with tempfile.TemporaryDirectory(prefix="llm-planner-browser-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
            options.add_argument(flag)
        driver = webdriver.Chrome(options=options, service=Service(driver_path))
        try:
            yield driver
        finally:
            driver.quit()
