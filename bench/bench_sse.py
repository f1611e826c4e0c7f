"""SSE benchmark: latency from a table event to the spectators' browsers, 100 streams, CPU of ``sevivon run``.

It starts ``sevivon run`` on the simulated 10-player table (real time, ``--sim-speed 1``), opens N
spectator streams on ``/api/events`` from one client process, then, as a judge, pauses and resumes the
ante clock R times. For each change it measures, on every stream, the time from just before the judge's
POST to the arrival of the SSE message that shows the change (so it includes the POST's own handling:
an upper bound of event-to-client latency). It also reads the server's CPU time from /proc.

Usage: .venv/bin/python bench/bench_sse.py [--streams 100] [--rounds 20] [--idle 20]
"""

from __future__ import annotations

import argparse
import http.client
import http.cookiejar
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

PASSWORD = "bench-judge-password"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Stream(threading.Thread):
    """One spectator: reads /api/events and records (arrival time, clock status) per message."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(daemon=True)
        self.host, self.port = host, port
        self.arrivals: list[tuple[float, str]] = []
        self.lock = threading.Lock()
        self.connected = threading.Event()
        self.stop = False

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        self.connected.set()
        data = b""
        while not self.stop:
            line = resp.fp.readline()
            if not line:
                return
            if line.startswith(b"data: "):
                data = line[6:]
            elif line in (b"\n", b"\r\n") and data:
                t = time.perf_counter()
                status = json.loads(data)["clock"]["status"]
                with self.lock:
                    self.arrivals.append((t, status))
                data = b""

    def first_after(self, t0: float, status: str) -> float | None:
        with self.lock:
            for t, s in self.arrivals:
                if t >= t0 and s == status:
                    return t - t0
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--streams", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--idle", type=float, default=20.0, help="seconds to measure CPU with no spectators")
    args = ap.parse_args()
    data = Path(tempfile.mkdtemp(prefix="sevivon-bench-"))
    env = dict(os.environ, SEVIVON_JUDGE_PASSWORD=PASSWORD, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--sim", "--sim-speed", "1", "--port", "0",
                             "--data", str(data)], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env)
    assert proc.stdout is not None
    url = ""
    for line in proc.stdout:
        m = re.search(r"Display:\s+(http://\S+)/", line)
        if m:
            url = m.group(1)
            break
    host, port = urllib.parse.urlparse(url).hostname or "127.0.0.1", urllib.parse.urlparse(url).port or 80
    try:
        time.sleep(3.0)  # the table settles in (learns the empty tray)
        c0, w0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(args.idle)
        idle_cpu = (cpu_seconds(proc.pid) - c0) / (time.monotonic() - w0)

        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(url + "/judge/login").read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        opener.open(url + "/judge/login", urllib.parse.urlencode(
            {"csrf_token": token, "name": "bench", "password": PASSWORD}).encode())
        page = opener.open(url + "/judge").read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]

        streams = [Stream(host, port) for _ in range(args.streams)]
        for s in streams:
            s.start()
        for s in streams:
            s.connected.wait(30)
        time.sleep(1.0)
        held = json.loads(opener.open(url + "/api/state").read())["spectators"]

        latencies: list[float] = []
        missing = 0
        c1, w1 = cpu_seconds(proc.pid), time.monotonic()
        for i in range(args.rounds):
            do = "pause" if i % 2 == 0 else "resume"
            want = "paused" if do == "pause" else "running"
            req = urllib.request.Request(url + "/api/actions/clock", data=json.dumps({"do": do}).encode(),
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": token})
            t0 = time.perf_counter()
            opener.open(req).read()
            time.sleep(0.5)
            for s in streams:
                lat = s.first_after(t0, want)
                if lat is None:
                    missing += 1
                else:
                    latencies.append(lat * 1000)
        busy_cpu = (cpu_seconds(proc.pid) - c1) / (time.monotonic() - w1)
        latencies.sort()
        p95 = latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan")
        print(f"spectator streams held at once: {held} (asked {args.streams})")
        print(f"SSE latency judge action -> {args.streams} clients, {args.rounds} events: "
              f"median {statistics.median(latencies):.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms, "
              f"missed {missing}")
        print(f"CPU of sevivon run (sim 10 players, speed 1): {100 * idle_cpu:.0f}% of one core with no spectators, "
              f"{100 * busy_cpu:.0f}% with {held} streams")
    finally:
        proc.terminate()
        proc.wait(timeout=20)


if __name__ == "__main__":
    main()
