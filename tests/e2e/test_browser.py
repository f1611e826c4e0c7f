"""In real headless Chromium: the display follows SSE updates, and a judge logs in and voids a spin."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright
from table_process import PASSWORD, TableProcess

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

# No camera and no IMU: the table runs in manual mode (a judge enters spins), which is cheap and exact.
MANUAL_TABLE = """
[table]
players = ["Ann", "Ben", "Cy"]
first = "Ann"
[camera]
source = "none"
[imu]
source = "none"
"""


@pytest.fixture
def table(tmp_path: Path):  # type: ignore[no-untyped-def]
    config = tmp_path / "table.toml"
    config.write_text(MANUAL_TABLE)
    proc = TableProcess(tmp_path / "data", config, sim=False)
    yield proc
    proc.stop()


def test_display_follows_sse_and_a_judge_voids_a_spin(table: TableProcess) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            display = browser.new_page(viewport={"width": 800, "height": 480})
            display.goto(table.url + "/")
            expect(display.locator("#banner")).to_contain_text("no camera")
            expect(display.locator("#link")).to_have_class("link up")  # the SSE stream is open
            expect(display.locator(".seat.current .name")).to_have_text("Ann")

            judge = browser.new_page()
            judge.goto(table.url + "/judge")
            assert judge.url.endswith("/judge/login")
            judge.fill("input[name=name]", "Zoe")
            judge.fill("input[name=password]", PASSWORD)
            judge.click("button[type=submit]")
            assert judge.url.endswith("/judge")
            spin_form = judge.locator("form[action='/api/actions/spin']")
            spin_form.locator("select[name=letter]").select_option("gimel")
            spin_form.locator("button").click()
            expect(judge.locator(".flash-ok")).to_contain_text("Ann: gimel entered")

            # the display hears about it by SSE, without reloading
            expect(display.locator("#letter")).to_have_text("\u05d2")
            expect(display.locator(".seat.current .name")).to_have_text("Ben")
            assert int(display.locator("body").get_attribute("data-updates") or 0) >= 1

            void_form = judge.locator("form[action='/api/actions/void']")
            void_form.locator("input[name=reason]").fill("the dreidel hit a cup")
            void_form.locator("button").click()
            expect(judge.locator(".flash-ok")).to_contain_text("voided")
            expect(display.locator(".seat.current .name")).to_have_text("Ann")
            expect(display.locator("#letter")).to_have_text("")
        finally:
            browser.close()
    state = table.get("/api/state")
    assert state["spins"] == 0 and state["next"] == "Ann" and state["pot"] == 3
    log = table_log(table)
    assert ("void_spin", "judge:Zoe") in log


def table_log(table: TableProcess) -> list[tuple[str, str]]:
    from controller.clock import SystemClock
    from controller.eventlog import EventLog

    with EventLog(table.data / "events.sqlite", SystemClock()) as log:
        return [(e.name, e.actor) for t in log.tables() for e in log.events(t)]
