"""A real headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium.

Nothing is downloaded: the browser and its driver are the system's (`.ci/run` installs them). A test
that needs the browser calls `chromium_or_skip()`, which skips with the reason when they are absent.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_or_skip() -> tuple[str, str]:
    """The browser and driver paths; skips the test when either is not installed."""
    browser = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    driver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    return browser, driver


def start_browser(downloads: Path, width: int = 1280, height: int = 860) -> Any:
    """A fresh headless Chromium with its own profile; downloads land in `downloads`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver = chromium_or_skip()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='bs-chromium-')}")
    options.add_argument(f"--window-size={width},{height}")
    options.add_experimental_option(
        "prefs", {"download.default_directory": str(downloads), "download.prompt_for_download": False}
    )
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    chrome = webdriver.Chrome(service=Service(driver), options=options)
    chrome.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    return chrome


def wait_until(check: Callable[[], Any], timeout: float = 15.0, what: str = "") -> Any:
    """Poll `check` until it returns something truthy; its last exception or a timeout fails the test."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            found = check()
            if found:
                return found
        except Exception as exc:  # a stale or absent element while the page renders
            last = exc
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what or check}: {last}")
