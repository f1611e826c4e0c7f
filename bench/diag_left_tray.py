"""How the judge ends spins that left the tray, and what it saw as the dreidel went (H44, session 11).

    .venv/bin/python bench/diag_left_tray.py REC... [--imu] [--all] [--frames K]

Each recording (with truth.json) is judged camera-only (``--imu``: with its IMU), without reading letters
(they do not matter here). For every truth spin of kind ``left_tray`` (``--all``: every spin the judge
lost) it prints the verdict (reasons, judge needed, notes) and the story of the loss: the dreidel's last
``K`` positions (lores px, signed distance inside the tray, speed in body lengths per second) and every
blob the tracker saw over the next ``lost_s`` (hands with their box, area, whether they touch the
picture's edge and how much of them lies in the tray). At the end, a count: left_tray spins judged
left_tray, judged "lost inside" (judge needed), judged something else.

Never pass held-out recordings (``tuning_sets.is_heldout``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tuning_sets import is_heldout  # noqa: E402

from controller import judge as judge_mod  # noqa: E402
from controller.analyze_cli import analyze_recording  # noqa: E402
from vision.tracker import DreidelTracker  # noqa: E402


def _truth(rec: Path) -> list[dict[str, Any]]:
    data = json.loads((rec / "truth.json").read_text())
    return data["spins"] if isinstance(data, dict) else data


def _kind(s: dict[str, Any]) -> str:
    return str(s.get("kind") or ("left_tray" if "left_tray" in s.get("reasons", []) else "?"))


def judge_one(rec: Path, imu: bool) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """The verdicts, every frame's TrackResult, and the judge's record of each loss."""
    tracks: list[Any] = []
    losses: list[dict[str, Any]] = []
    orig_proc = DreidelTracker.process_small
    orig_lost = judge_mod.SpinJudge._lost
    trays: list[Any] = []

    def proc(self: DreidelTracker, index: int, t: float, small: Any, full: Any = None) -> Any:
        tr = orig_proc(self, index, t, small, full)
        if tr is not None:
            tracks.append(tr)
            if not trays:
                trays.append(self.background.tray)
        return tr

    def lost(self: Any, spin: Any, t: float, obs: Any, events: list[Any]) -> None:
        losses.append({"t": t, "release_t": spin.release_t, "last_seen_t": spin.last_seen_t,
                       "lost_at_edge": spin.lost_at_edge, "last_in_tray": spin.last_in_tray,
                       "let_go_t": spin.let_go_t, "tray": trays[0] if trays else None})
        orig_lost(self, spin, t, obs, events)

    DreidelTracker.process_small = proc  # type: ignore[method-assign]
    judge_mod.SpinJudge._lost = lost  # type: ignore[method-assign]
    try:
        verdicts, _ = analyze_recording(rec, use_imu=imu, use_recognizer=False)
    finally:
        DreidelTracker.process_small = orig_proc  # type: ignore[method-assign]
        judge_mod.SpinJudge._lost = orig_lost  # type: ignore[method-assign]
    return verdicts, tracks, losses


def story(tracks: list[Any], loss: dict[str, Any], k: int, after_s: float = 0.8) -> list[str]:
    tray = loss["tray"]
    seen = [tr for tr in tracks if tr.dreidel is not None and tr.t <= loss["last_seen_t"] + 1e-9]
    lines = []
    prev = None
    for tr in seen[-k:]:
        d = tr.dreidel
        inside = tray.distance_inside(d.x, d.y) if tray is not None else math.nan
        v = ""
        if prev is not None and tr.t > prev.t:
            v = f" v={math.hypot(d.x - prev.dreidel.x, d.y - prev.dreidel.y) / (tr.t - prev.t) / max(d.length, 1):5.1f} L/s"
        lines.append(f"    seen {tr.t:7.3f} ({d.x:6.1f},{d.y:6.1f}) in={inside:6.1f} area={d.area:5.0f} "
                     f"len={d.length:4.1f} edge={d.edge}{v}")
        prev = tr
    empty = 0
    for tr in tracks:
        if loss["last_seen_t"] < tr.t <= loss["last_seen_t"] + after_s:
            if not tr.hands and tr.dreidel is None:
                empty += 1
                continue
            parts = [f"hand({h.x:.0f},{h.y:.0f}) box={h.bbox} a={h.area:.0f} edge={h.edge} tray={h.tray_overlap:.2f} "
                     f"skin={h.skin:.2f} len={h.length:.0f}" for h in tr.hands]
            if tr.dreidel is not None:
                parts.append(f"dreidel({tr.dreidel.x:.0f},{tr.dreidel.y:.0f}) in_tray={tr.in_tray}")
            lines.append(f"    {tr.t:7.3f} merged={tr.merged} lost_at_edge={tr.lost_at_edge} " + "; ".join(parts))
    lines.append(f"    ({empty} frames with nothing seen over the next {after_s} s)")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recs", nargs="+", type=Path)
    ap.add_argument("--imu", action="store_true")
    ap.add_argument("--all", action="store_true", help="every lost spin, not only truth left_tray ones")
    ap.add_argument("--frames", type=int, default=6)
    ap.add_argument("--quiet", action="store_true", help="only the verdicts and the count")
    a = ap.parse_args()
    counts = {"left_tray": 0, "lost inside (judge)": 0, "other": 0}
    others: list[str] = []
    for rec in a.recs:
        if is_heldout(rec):
            sys.exit(f"{rec} is held out")
        truth = _truth(rec)
        verdicts, tracks, losses = judge_one(rec, a.imu)
        for i, s in enumerate(truth):
            rel = float(s["release_t"])
            v = min(verdicts, key=lambda v: abs((v.release_t or -99) - rel), default=None)
            if v is not None and abs((v.release_t or -99) - rel) > 1.0:
                v = None
            loss = next((x for x in losses if abs(x["release_t"] - (v.release_t if v else -99)) < 1.5
                         and v is not None and x["t"] >= (v.release_t or 0)), None)
            is_lt = _kind(s) == "left_tray"
            if not is_lt and not (a.all and loss is not None):
                continue
            if v is None:
                what = "missed"
            elif "left_tray" in v.reasons and not v.needs_judge:
                what = "left_tray"
            elif "left_tray" in v.reasons:
                what = "left_tray (judge)"
            elif v.needs_judge and any("without leaving" in n for n in v.notes):
                what = "lost inside (judge)"
            else:
                what = "other"
            if is_lt:
                counts[what if what in counts else "other"] += 1
                if what not in ("left_tray",):
                    others.append(f"{rec.name} spin {i}: {what}")
            print(f"{rec.name} spin {i} kind={_kind(s)} truth valid={s.get('valid')} release={rel:.2f} "
                  f"rest={s.get('rest_t')} -> {what}"
                  + ("" if v is None else f" reasons={list(v.reasons)} valid={v.valid} judge={v.needs_judge} "
                     f"notes={list(v.notes)}"))
            if loss is not None and not a.quiet:
                print(f"  lost at {loss['t']:.3f}, last seen {loss['last_seen_t']:.3f}, lost_at_edge="
                      f"{loss['lost_at_edge']} last_in_tray={loss['last_in_tray']}")
                print("\n".join(story(tracks, loss, a.frames)))
    print(json.dumps(counts))
    for o in others:
        print("  not left_tray:", o)


if __name__ == "__main__":
    main()
