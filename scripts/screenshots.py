"""Screenshots of the display and the judge console for docs/screenshots/ (real headless Chromium).

Usage: .venv/bin/python scripts/screenshots.py [--url http://127.0.0.1:8080] [--password PW] [--out docs/screenshots]
Without --url it starts a simulated table of its own (`sevivon run --sim-speed 3`) in a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def start_table(data: Path, password: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, SEVIVON_JUDGE_PASSWORD=password)
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--port", "0", "--data", str(data),
                             "--sim-speed", "3"], stdout=subprocess.PIPE, text=True, env=env,
                            stdin=subprocess.DEVNULL)
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"Display:\s+(http://\S+)/", line)
        if m:
            return proc, m.group(1)
    raise RuntimeError("sevivon run did not print its address")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--url")
    ap.add_argument("--password", default="screenshot-pass")
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    ap.add_argument("--wait", type=float, default=45.0, help="seconds to let the simulated table play first")
    ap.add_argument("--display-only", metavar="NAME", help="only screenshot the display, as NAME.png")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    proc = None
    url = args.url
    if url is None:
        tmp = Path(tempfile.mkdtemp(prefix="sevivon-shots-"))
        proc, url = start_table(tmp, args.password)
        time.sleep(args.wait)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 800, "height": 480})
            page.goto(url + "/")
            page.wait_for_timeout(1500)
            page.screenshot(path=str(args.out / f"{args.display_only or 'display-800x480'}.png"))
            if args.display_only:
                browser.close()
                return
            phone = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
            phone.goto(url + "/")
            phone.wait_for_timeout(1500)
            phone.screenshot(path=str(args.out / "display-phone.png"))
            judge = browser.new_page(viewport={"width": 1280, "height": 900})
            judge.goto(url + "/judge/login")
            judge.screenshot(path=str(args.out / "judge-login.png"))
            judge.fill("input[name=name]", "Zoe")
            judge.fill("input[name=password]", args.password)
            judge.click("button[type=submit]")
            judge.wait_for_url(url + "/judge")
            judge.wait_for_timeout(500)
            judge.screenshot(path=str(args.out / "judge-console.png"), full_page=True)
            link = judge.locator("table.spins a").first
            if link.count():
                link.click()
                judge.wait_for_timeout(1500)
                judge.screenshot(path=str(args.out / "judge-spin-evidence.png"), full_page=True)
            judge.goto(url + "/judge/calibrate")
            judge.wait_for_timeout(800)
            box = judge.locator("#calib-img").bounding_box()
            if box:  # show the overlay: tray centre, rim, then the first three seats (not saved)
                cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
                for dx, dy in [(0, 0), (box["width"] * 0.33, 0), (0, -100), (90, -60), (100, 40)]:
                    judge.mouse.click(cx + dx, cy + dy)
            judge.screenshot(path=str(args.out / "judge-calibrate.png"), full_page=True)
            browser.close()
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=20)
    print(f"screenshots in {args.out}")


if __name__ == "__main__":
    main()
