"""The console in a real headless Chromium against a running `beliefstream dev` with real turns.

A person types a key and goes through every view: the users (searched), a user's beliefs with the
turns they came from and their history, episodes beside them, an edit, a revocation and a contested
pair resolved (each confirmed, each answered with its event), the recall playground, the audit of
reads, the export downloaded and a user erased with the receipt. Hostile text (a memory and a quote
holding `<script>` and HTML) shows as text; a read-only key is refused in one line; a key removed
from the configuration (the sidecar restarted without it) fails in one line, never a blank page.

With BELIEFSTREAM_CONSOLE_SHOTS=<dir>, each view is saved there as a PNG (`scripts/console_screenshots.py`).
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import time
from pathlib import Path

import httpx
import pytest

from streams.broker import free_port
from tests.integration.browser import chromium_or_skip, start_browser, wait_until
from tests.integration.test_dev_command import start_dev, stop, wait_ready

pytestmark = pytest.mark.integration

RUN = secrets.token_hex(4)
ADMIN, READER, DOOMED = f"k-admin-{RUN}", f"k-read-{RUN}", f"k-doomed-{RUN}"
KEYS = f"{ADMIN}=acme/admin,{READER}=acme/recall,{DOOMED}=acme"

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "turns.jsonl"
HOSTILE = [
    {"turn_id": "h-1", "user_id": "u-mallory", "session_id": "s-9", "role": "user",
     "text": "I live in Lisbon <script>window.pwned=1</script> now.", "metadata": {"speaker": "Mal <b>ory</b>"}},
    {"turn_id": "h-2", "user_id": "u-mallory", "session_id": "s-9", "role": "user",
     "text": "My favourite snack is <img src=x onerror=window.pwned=2> popcorn."},
]  # fmt: skip
LOOP = [  # a preference that keeps flipping: a contested pair awaiting a person's decision
    "I prefer morning meetings.",
    "These days I prefer afternoon meetings.",
    "I prefer morning meetings again.",
    "Actually I prefer afternoon meetings.",
]
SHOTS = os.environ.get("BELIEFSTREAM_CONSOLE_SHOTS")


class Console:
    """The browser on the console, with the few moves a person makes."""

    def __init__(self, chrome, base: str) -> None:
        self.chrome = chrome
        self.base = base

    def by(self, css: str):
        from selenium.webdriver.common.by import By

        return self.chrome.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list:
        from selenium.webdriver.common.by import By

        return self.chrome.find_elements(By.CSS_SELECTOR, css)

    def texts(self, css: str) -> list[str]:
        return self.chrome.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)", css
        )

    def ready(self, name: str, timeout: float = 15.0) -> None:
        wait_until(lambda: self.by("main").get_attribute("data-ready") == name, timeout, f"view {name}")

    def go(self, fragment: str, view: str) -> None:
        """Open a view by its URL (reloaded when already there) and wait until it has rendered."""
        self.chrome.execute_script("document.getElementById('main').removeAttribute('data-ready')")
        url = f"{self.base}/console#{fragment}"
        if self.chrome.current_url == url:
            self.chrome.refresh()
        else:
            self.chrome.get(url)
        self.ready(view)

    def status(self) -> str:
        return self.by("#status").text

    def wait_status(self, part: str, timeout: float = 15.0) -> str:
        return wait_until(lambda: part in self.status() and self.status(), timeout, f"status with {part!r}")

    def enter_key(self, key: str) -> None:
        if self.by("#key-form").is_displayed() is False:
            self.by("#key-forget").click()
        field = self.by("#key-input")
        field.clear()
        field.send_keys(key + "\n")

    def confirm(self, typed: str | None = None) -> None:
        dialog = wait_until(lambda: self.by("dialog.confirm[open]"), what="the confirmation")
        if typed is not None:
            dialog.find_element("css selector", "input").send_keys(typed)
        dialog.find_element("css selector", "button[type=submit]").click()

    def shot(self, name: str) -> None:
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.chrome.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def retain(base: str, turns: list[dict]) -> None:
    headers = {"Authorization": f"Bearer {ADMIN}"}
    jobs = httpx.post(f"{base}/v1/retain", json={"turns": turns}, headers=headers, timeout=30).json()["job_ids"]
    deadline = time.monotonic() + 90  # the first batch waits for the worker to join its group
    for job in jobs:
        while httpx.get(f"{base}/v1/jobs/{job}", headers=headers).json()["state"] == "queued":
            assert time.monotonic() < deadline, "a retained turn was never processed"
            time.sleep(0.1)


def seed(base: str) -> None:
    """Real turns through the real pipeline: the README's example user, hostile text, a loop, one to erase."""
    examples = [{k: v for k, v in json.loads(line).items() if k != "tenant_id"} for line in EXAMPLES.read_text().splitlines()]
    retain(base, examples)
    retain(base, HOSTILE)
    for day, text in enumerate(LOOP, start=1):  # one at a time, days apart, as a loop happens
        retain(base, [{"turn_id": f"loop-{day}", "user_id": "u-loop", "role": "user", "text": text,
                       "ts": f"2026-11-0{day}T10:00:00Z"}])  # fmt: skip
    retain(base, [{"turn_id": "gone-1", "user_id": "u-gone", "role": "user", "text": "I'm allergic to cats."}])


def open_memory(console: Console, text_part: str):
    """Open the belief whose text holds `text_part`; its detail once loaded."""
    summaries = [s for s in console.all("details.memory > summary") if text_part in s.text]
    assert summaries, f"no belief with {text_part!r}: {console.texts('details.memory > summary .text')}"
    summaries[0].click()
    item = summaries[0].find_element("xpath", "..")
    wait_until(lambda: item.find_elements("css selector", ".detail-grid"), what="the memory's detail")
    return item


def test_the_console_shows_and_governs_the_belief_state_in_a_real_browser(tmp_path):
    chromium_or_skip()
    data_dir, port, downloads = tmp_path / "data", free_port(), tmp_path / "downloads"
    downloads.mkdir()
    base = f"http://127.0.0.1:{port}"
    process = start_dev(data_dir, port, api_keys=KEYS)
    chrome = None
    first_out = first_err = ""
    try:
        wait_ready(process, port, timeout=180)  # a loaded machine starts dev slowly
        seed(base)
        page = httpx.get(f"{base}/console")
        csp = page.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp

        chrome = start_browser(downloads)
        console = Console(chrome, base)
        chrome.get(f"{base}/console")
        console.enter_key(ADMIN)
        console.ready("users")
        assert {"u-ada", "u-mallory", "u-loop", "u-gone"} <= set(console.texts("table.users tbody th a"))

        # keyboard only: "/" to search, type, Tab to the user's link, Enter opens the user
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        chrome.execute_script("document.activeElement.blur()")
        ActionChains(chrome).send_keys("/").send_keys("mallory").perform()
        wait_until(lambda: console.texts("table.users tbody th a") == ["u-mallory"], what="the search")
        console.shot("users")
        ActionChains(chrome).send_keys(Keys.TAB, Keys.TAB, Keys.ENTER).perform()
        console.ready("user")

        # hostile text is text: the quote and the memory show their markup, and nothing ran
        quotes = console.texts("ol.episodes blockquote")
        assert "I live in Lisbon <script>window.pwned=1</script> now." in quotes
        assert "My favourite snack is <img src=x onerror=window.pwned=2> popcorn." in quotes
        assert any("<img src=x" in t for t in console.texts("details.memory .text"))
        assert any("Mal <b>ory</b>" in t for t in console.texts("ol.episodes .speaker"))
        item = open_memory(console, "Lisbon")
        assert any("<script>" in q for q in console.texts("ol.sources blockquote"))
        assert not console.all("main script") and not console.all("main img") and not console.all("main b")
        assert chrome.execute_script("return window.pwned") is None
        console.shot("hostile")
        item.find_element("css selector", "summary").click()

        # a user's beliefs: grouped, scored, each with the turns it came from and its history
        console.go("/u/u-ada", "user")
        assert {"fact", "preference"} <= {t.split()[0] for t in console.texts(".type-group > h3")}
        assert "Episodes: 7 active" in console.by(".overview").text
        item = open_memory(console, "Lisbon")
        assert "I moved to Lisbon last month." in console.texts("ol.sources blockquote")
        assert "2026-11-20 08:15 UTC" in item.text  # when it was said
        console.shot("user")

        # edit: confirmed, a new version; the event and both versions in the timeline
        item.find_element("xpath", ".//button[text()='Edit…']").click()
        value = item.find_element("css selector", "input[name=value]")
        value.clear()
        value.send_keys("Coimbra")
        text = item.find_element("css selector", "textarea[name=text]")
        text.clear()
        text.send_keys("User moved to Coimbra in October 2026.")
        item.find_element("css selector", "form.edit button[type=submit]").click()
        console.confirm()
        event = wait_until(lambda: item.find_element("css selector", ".event").text, what="the edit's event")
        assert "superseded + edited" in event
        assert len(item.find_elements("css selector", "ol.timeline > li")) == 2
        assert "Coimbra" in item.find_element("css selector", "summary").text
        console.shot("edited")

        # revoke: Escape cancels and changes nothing; confirmed, the memory is revoked
        item.find_element("xpath", ".//button[text()='Revoke…']").click()
        wait_until(lambda: console.by("dialog.confirm[open]"))
        ActionChains(chrome).send_keys(Keys.ESCAPE).perform()
        wait_until(lambda: not console.all("dialog.confirm"), what="the dialog to close")
        assert "revoked" not in item.find_element("css selector", "summary").text
        item.find_element("xpath", ".//button[text()='Revoke…']").click()
        console.confirm()
        wait_until(lambda: "revoked" in item.find_element("css selector", ".event").text, what="the revocation")
        headers = {"Authorization": f"Bearer {ADMIN}"}
        history = httpx.get(f"{base}/v1/users/u-ada/attributes/lives_in/history", headers=headers).json()
        assert history["current"] == [] and [v["state"] for v in history["history"]][-1] == "revoked"

        # a contested pair: resolved after a confirmation, the decided value shown as the event
        console.go("/u/u-loop", "user")
        assert "Contested: 1 open" in console.by(".overview").text
        box = console.by("li.contested")
        assert "preferred_meeting_time" in box.text
        console.shot("contested")
        box.find_element("css selector", "input[value=morning]").click()
        box.find_element("css selector", "button[type=submit]").click()
        console.confirm()
        wait_until(lambda: "resolved" in box.find_element("css selector", ".event").text, what="the resolution")
        assert "morning" in box.find_element("css selector", ".event").text
        wait_until(lambda: "Contested: 0 open" in console.by(".overview").text, what="the count to drop")

        # the recall playground: prompt order, reasons, suppressed, conflicts, tokens
        console.go("/u/u-ada/recall", "recall")
        console.by("textarea[name=query]").send_keys("what should I cook for Ada tonight?")
        console.by("textarea[name=intent]").send_keys("response_format = bullet points")
        console.by("input[name=action]").send_keys("recommend")
        console.by("input[name=domain]").send_keys("food")
        console.by("form.recall button[type=submit]").click()
        console.ready("recall-result")
        recalled = console.texts("ol.recall-list > li .reason")
        assert recalled and all(r.startswith("why: ") for r in recalled)
        assert "tokens used" in console.by(".tokens").text
        assert [h.split(" (")[0] for h in console.texts(".recall-result h3")] == [
            "In prompt order", "Conflicts", "Suppressed"
        ]
        console.shot("recall")

        # the audit of reads: the playground's recall is there (the audit is written within a second)
        def read_listed() -> bool:
            console.go("/u/u-ada/reads", "reads")
            return bool(console.all("table.reads tbody tr[data-read-id]"))

        wait_until(read_listed, timeout=20, what="the audit of the recall")
        assert ADMIN not in console.by("table.reads").text  # a fingerprint, never the key
        console.shot("reads")

        # export downloaded; a user erased with the receipt shown
        console.go("/u/u-ada/data", "data")
        console.by("section.data-view button.primary").click()
        wait_until(lambda: "Downloaded" in console.by("section.data-view .outcome").text, what="the export")
        exported = wait_until(lambda: [p for p in downloads.glob("u-ada*.jsonl")], what="the downloaded file")
        lines = [json.loads(line) for line in exported[0].read_text().splitlines()]
        assert lines[0]["kind"] == "header" and lines[-1]["kind"] == "end"
        assert {line["kind"] for line in lines} >= {"memory", "episode"}
        console.go("/u/u-gone/data", "data")
        console.by("section.data-view button.danger").click()
        console.confirm(typed="u-gone")
        console.ready("erased")
        receipt = console.by("section.receipt").text
        assert "memories" in receipt and "1" in receipt
        assert "Memories: none" in console.by(".overview").text
        console.shot("erased")
        console.go("/", "users")
        assert "u-gone" not in console.texts("table.users tbody th a")

        # a read-only key: the page shows what it may read, and a refusal in one line
        console.enter_key(READER)
        console.ready("users")
        console.go("/u/u-mallory", "user")
        open_memory(console, "snack").find_element("xpath", ".//button[text()='Revoke…']").click()
        console.confirm()
        refused = console.wait_status("403")
        assert "manage" in refused and "\n" not in refused
        assert console.by("#status").get_attribute("role") == "alert"

        # a key taken out of the configuration: one line, the page still there
        console.enter_key(DOOMED)
        console.go("/", "users")
        code, first_out, first_err = stop(process, signal.SIGTERM)
        assert code == 0
        process = start_dev(data_dir, port, api_keys=f"{ADMIN}=acme/admin")
        wait_ready(process, port, timeout=180)
        console.by("table.users tbody th a").click()
        console.ready("failed")
        assert console.wait_status("401").startswith("401 unauthorized")
        assert console.by("main h1").text == "This view could not be shown"
        assert console.by("#key-form").is_displayed()  # asks for another key
        console.shot("revoked-key")

        # the key never left the page's session: no URL, no cookie; no policy violation was reported
        assert all(k not in chrome.current_url for k in (ADMIN, READER, DOOMED)) and chrome.get_cookies() == []
        problems = [e["message"] for e in chrome.get_log("browser") if e["level"] == "SEVERE"]
        expected = ("401", "403")  # the refusals the test provoked, as the browser reports a failed fetch
        assert [p for p in problems if not any(code in p for code in expected)] == []
    finally:
        if chrome is not None:
            chrome.quit()
        code, out, err = stop(process, signal.SIGTERM)
    logged = first_out + first_err + out + err
    assert READER not in logged and DOOMED not in logged  # dev announces its first key only; requests log none
