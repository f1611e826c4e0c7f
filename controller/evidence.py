"""Evidence for a verdict, so a judge can check the machine: a still, a clip and a timeline.

- **still**: the full-resolution picture at rest with the measurements drawn on it (the dreidel's
  outline and axis, tip and handle, the letter read and its confidence, the times and the stable time)
  and a magnified inset of the dreidel as it lies;
- **clip**: a short video of the spin from a ring buffer of small JPEG frames (from just before the
  release to just after the rest), written as MJPG AVI;
- **timeline**: a plot, drawn with OpenCV, of the wobble measure and the IMU vibration energy over the
  spin, with release, wobble onset (or the touch that ended the stable spin) and rest marked.

:class:`ClipBuffer` keeps the frames cheaply while the spin runs; :class:`SpinEvidence` holds the
artifacts in memory and :meth:`SpinEvidence.save` writes them.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from controller.table_ports import reason_text

#: the colour (BGR) of a verdict that waits for a judge: amber, neither the green of valid nor the red of a re-spin
_JUDGE_NEEDED = (0, 130, 230)


class ClipBuffer:
    """A ring buffer of small JPEG-encoded frames.

    ``preroll_s`` of frames are always kept; once :meth:`hold` is called (at the release) every frame
    is kept until :meth:`take` (up to ``max_s``). Frames are shrunk to ``width`` px and stored every
    ``every``-th call, so the cost per frame stays small.
    """

    def __init__(
        self, preroll_s: float = 1.0, max_s: float = 30.0, width: int = 240, every: int = 2, quality: int = 70
    ) -> None:
        self.preroll_s = preroll_s
        self.max_s = max_s
        self.width = width
        self.every = every
        self.quality = quality
        self._buf: deque[tuple[float, bytes]] = deque()
        self._holding_since: float | None = None
        self._n = 0

    def add(self, t: float, image_bgr: np.ndarray) -> None:
        """Offer one frame (any size; it is shrunk)."""
        self._n += 1
        if self._n % self.every:
            return
        h, w = image_bgr.shape[:2]
        if w != self.width:
            image_bgr = cv2.resize(image_bgr, (self.width, int(round(h * self.width / w))), interpolation=cv2.INTER_AREA)
        ok, jpg = cv2.imencode(".jpg", image_bgr, [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:
            return
        self._buf.append((t, jpg.tobytes()))
        horizon = self.preroll_s if self._holding_since is None else self.max_s + self.preroll_s
        while self._buf and t - self._buf[0][0] > horizon:
            self._buf.popleft()

    def hold(self, t: float) -> None:
        """Keep everything from now on (a spin started at ``t``)."""
        self._holding_since = t

    def take(self, until_t: float | None = None) -> list[tuple[float, bytes]]:
        """The frames kept so far (up to ``until_t``), and stop holding."""
        frames = [f for f in self._buf if until_t is None or f[0] <= until_t]
        self._holding_since = None
        return frames

    @property
    def holding(self) -> bool:
        """True between :meth:`hold` and :meth:`take`."""
        return self._holding_since is not None


@dataclass
class SpinEvidence:
    """The evidence of one spin, in memory; ``paths`` is filled by :meth:`save`; ``marks``: what was drawn."""

    still: np.ndarray | None
    timeline: np.ndarray
    clip: list[tuple[float, bytes]] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)
    marks: Marks | None = None
    #: the resting picture as the camera took it, nothing drawn on it: kept only when the letter goes to a judge,
    #: whose ruling may then teach the table that face (the table writes it as ``rest.png``)
    rest_image: np.ndarray | None = None

    def save(self, out_dir: str | Path, spin_id: int, fps: float = 30.0) -> dict[str, Path]:
        """Write ``spin_<id>_still.png``, ``spin_<id>_timeline.png`` and ``spin_<id>_clip.avi``."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        stem = f"spin_{spin_id:03d}"
        if self.still is not None:
            p = out / f"{stem}_still.png"
            cv2.imwrite(str(p), self.still)
            self.paths["still"] = p
        p = out / f"{stem}_timeline.png"
        cv2.imwrite(str(p), self.timeline)
        self.paths["timeline"] = p
        if self.clip:
            p = out / f"{stem}_clip.avi"
            if write_clip(p, self.clip, fps):
                self.paths["clip"] = p
        return dict(self.paths)


def write_clip(path: Path, clip: Sequence[tuple[float, bytes]], fps: float) -> bool:
    """Write JPEG frames as an MJPG AVI at ``fps`` (the clip's own spacing, roughly). False if impossible."""
    first = cv2.imdecode(np.frombuffer(clip[0][1], np.uint8), cv2.IMREAD_COLOR)
    if first is None:
        return False
    h, w = first.shape[:2]
    if len(clip) > 1:
        span = clip[-1][0] - clip[0][0]
        if span > 0:
            fps = (len(clip) - 1) / span
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), max(fps, 1.0), (w, h))
    if not writer.isOpened():
        return False
    try:
        for t, data in clip:
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
            if img is None or img.shape[:2] != (h, w):
                continue
            cv2.putText(img, f"{t:7.2f}s", (4, h - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 255, 255), 1, cv2.LINE_AA)
            writer.write(img)
    finally:
        writer.release()
    return True


@dataclass(frozen=True)
class Marks:
    """The moments and numbers drawn on the evidence."""

    release_t: float | None
    wobble_t: float | None
    rest_t: float | None
    stable_s: float | None
    letter: str | None
    letter_confidence: float | None
    valid: bool
    reasons: tuple[str, ...]
    #: the table asks a judge (a lost dreidel, an unreadable letter, low confidence): the machine's call is
    #: then only a suggestion, and the evidence must not read as a decision
    needs_judge: bool = False
    #: what ended the stable spin at ``wobble_t``: "wobble", or "touch" (a hand's, RULES.md: interference)
    stable_end: Literal["wobble", "touch"] = "wobble"


def verdict_text(marks: Marks) -> str:
    """The verdict as the evidence states it: VALID, RE-SPIN with its reasons in words, or JUDGE NEEDED with
    the machine's suggestion (a judge-needed spin once showed a green "VALID" on its timeline: twin 60006 spin
    2, a dreidel that flew out of the tray and out of sight). The reasons are the display's words ("no release
    seen", not the code ``no_release`` a judge had to decode)."""
    call = "VALID" if marks.valid else ("RE-SPIN: " + reason_text(marks.reasons) if marks.reasons else "RE-SPIN")
    if marks.needs_judge:
        return "JUDGE NEEDED (machine: " + ("valid" if marks.valid else call.lower()) + ")"
    return call


def _no_release(marks: Marks) -> bool:
    """The dreidel was put down, not spun: its stable time (0.00 by convention) and a 3 s mark mean nothing."""
    return "no_release" in marks.reasons


def stable_text(marks: Marks) -> str:
    """The stable time as the evidence writes it ("stable -" for a dreidel that was never spun)."""
    if _no_release(marks):
        return "stable -"
    return f"stable {marks.stable_s:.2f}s" if marks.stable_s is not None else "stable ?"


#: the line drawn this long after the release: a valid spin must stay stable at least this long (RULES.md)
THREE_S = 3.0


def place_labels(spans: Sequence[tuple[int, int]], width: int, gap: int = 3, pad: int = 6) -> list[tuple[int, int]]:
    """Where the moments' labels go on their rows: ``spans`` are (the line's x, the label's width in px);
    the answer is (the label's start x, its row) for each, in the same order. A label sits beside its line
    (:func:`label_x`) on the first row, and moves to the next row down where it would touch a label already
    placed there (``pad`` px apart): labels of moments close in time are never written over each other."""
    placed: list[tuple[int, int, int]] = []  # (start, end, row)
    out: list[tuple[int, int]] = [(0, 0)] * len(spans)
    for i in sorted(range(len(spans)), key=lambda k: spans[k][0]):
        x, tw = spans[i]
        lx = label_x(x, tw, width, gap)
        row = 0
        while any(r == row and lx < b + pad and lx + tw + pad > a for a, b, r in placed):
            row += 1
        placed.append((lx, lx + tw, row))
        out[i] = (lx, row)
    return out


def draw_timeline(
    t_wobble: np.ndarray,
    wobble: np.ndarray,
    t_imu: np.ndarray | None,
    imu_energy: np.ndarray | None,
    marks: Marks,
    size: tuple[int, int] = (900, 320),
) -> np.ndarray:
    """A plot of the wobble measure (top) and the IMU energy (bottom, log scale) with the moments marked,
    and a light dashed line at release + 3 s (the rule's stable time) when a release is known."""
    w, h = size
    img = np.full((h, w, 3), 255, np.uint8)
    # the verdict has a header row of its own (y 18); the moments' labels sit under it (y 38, and a row
    # lower for each label that would touch another one)
    left, right, top, bottom = 60, 15, 46, 30
    three_s = marks.release_t + THREE_S if marks.release_t is not None and not _no_release(marks) else None
    times = [a for a in (marks.release_t, marks.wobble_t, marks.rest_t, three_s) if a is not None]
    spans = [float(t_wobble.min()), float(t_wobble.max())] if t_wobble.size else []
    if t_imu is not None and t_imu.size:
        spans += [float(t_imu.min()), float(t_imu.max())]
    lo = min(spans + times) if spans or times else 0.0
    hi = max(spans + times) if spans or times else 1.0
    if three_s is not None and hi < three_s + 0.2:
        hi = three_s + 0.2  # the mark is not drawn on the plot's edge
    if hi - lo < 1e-6:
        hi = lo + 1.0

    def xpix(t: float) -> int:
        return int(left + (t - lo) / (hi - lo) * (w - left - right))

    # the labels above the plot: a release and a rest at the same time (a dreidel put down, not spun) share
    # one label, "release = rest 2.76s"; others close in time go on rows of their own
    font, fs = cv2.FONT_HERSHEY_SIMPLEX, 0.42
    moments: list[tuple[float, str, tuple[int, int, int], bool]] = []  # (t, label, colour, dashed)
    same = (marks.release_t is not None and marks.rest_t is not None
            and f"{marks.release_t:.2f}" == f"{marks.rest_t:.2f}")
    if marks.release_t is not None:
        name = "release = rest" if same else "release"
        moments.append((marks.release_t, f"{name} {marks.release_t:.2f}s", (200, 0, 0), False))
    if three_s is not None:
        moments.append((three_s, "+3 s", (150, 150, 150), True))
    if marks.rest_t is not None and not same:
        moments.append((marks.rest_t, f"rest {marks.rest_t:.2f}s", (0, 0, 200), False))
    widths = [cv2.getTextSize(m[1], font, fs, 1)[0][0] for m in moments]
    places = place_labels([(xpix(m[0]), tw) for m, tw in zip(moments, widths, strict=True)], w)
    rows = 1 + max((r for _, r in places), default=0)
    top += 14 * (rows - 1)
    has_imu = t_imu is not None and imu_energy is not None and t_imu.size > 1
    panels = [("wobble", t_wobble, wobble, (40, 90, 200), False)]
    if has_imu and t_imu is not None and imu_energy is not None:
        panels.append(("IMU energy (log)", t_imu, imu_energy, (30, 140, 30), True))
    ph = (h - top - bottom) // len(panels)

    for k, (name, ts, vals, colour, logscale) in enumerate(panels):
        y0 = top + k * ph
        cv2.rectangle(img, (left, y0), (w - right, y0 + ph - 6), (200, 200, 200), 1)
        cv2.putText(img, name, (left + 4, y0 + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv2.LINE_AA)
        if ts.size < 2:
            continue
        v = np.log10(np.maximum(vals, 1e-5)) if logscale else vals.astype(np.float64)
        vlo, vhi = float(np.percentile(v, 1)), float(np.percentile(v, 99.5))
        if vhi - vlo < 1e-9:
            vhi = vlo + 1.0
        ys = y0 + ph - 8 - (np.clip((v - vlo) / (vhi - vlo), 0, 1) * (ph - 24)).astype(np.int32)
        xs = np.array([xpix(float(t)) for t in ts], np.int32)
        cv2.polylines(img, [np.stack([xs, ys], 1).reshape(-1, 1, 2)], False, colour, 1, cv2.LINE_AA)
    for (t, label, colour, dashed), (lx, row) in zip(moments, places, strict=True):
        x = xpix(t)
        y_text = 38 + 14 * row
        if dashed:
            for y in range(y_text + 2, h - bottom + 4, 8):
                cv2.line(img, (x, y), (x, min(y + 3, h - bottom + 4)), colour, 1)
        else:
            cv2.line(img, (x, y_text + 4), (x, h - bottom + 4), colour, 1, cv2.LINE_AA)
        cv2.putText(img, label, (lx, y_text), font, fs, colour, 1, cv2.LINE_AA)
    under: list[tuple[int, int]] = []  # the x spans of labels written under the plot, where no tick label may go
    if marks.wobble_t is not None:
        colour = (0, 140, 255)
        x = xpix(marks.wobble_t)
        cv2.line(img, (x, top - 4), (x, h - bottom + 4), colour, 1, cv2.LINE_AA)
        label = f"{marks.stable_end} {marks.wobble_t:.2f}s"
        tw = cv2.getTextSize(label, font, fs, 1)[0][0]
        lx = label_x(x, tw, w)
        under.append((lx, lx + tw))
        cv2.putText(img, label, (lx, h - bottom + 18), font, fs, colour, 1, cv2.LINE_AA)
    # a time axis: one tick per second (its number left out where the wobble's label, which shares its row,
    # would be written over it)
    first = math.ceil(lo)
    for s in range(first, int(hi) + 1):
        x = xpix(float(s))
        cv2.line(img, (x, h - bottom + 2), (x, h - bottom + 6), (90, 90, 90), 1)
        text = f"{s}"
        tw = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.35, 1)[0][0]
        if any(x - 4 <= b + 2 and x - 4 + tw >= a - 2 for a, b in under):
            continue
        cv2.putText(img, text, (x - 4, h - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (90, 90, 90), 1, cv2.LINE_AA)
    header = f"{verdict_text(marks)}   {stable_text(marks)}"
    tw = cv2.getTextSize(header, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)[0][0]
    colour = _JUDGE_NEEDED if marks.needs_judge else (0, 120, 0) if marks.valid else (0, 0, 200)
    cv2.putText(img, header, (max(4, w - right - tw), 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return img


def label_x(x: int, text_width: int, width: int, gap: int = 3) -> int:
    """Where a moment's label of ``text_width`` px starts: right of its line at ``x``, or left of it where it
    would run off a picture ``width`` px wide (a rest at the plot's right end)."""
    if x + gap + text_width <= width - 2:
        return x + gap
    return max(0, x - gap - text_width)


def still_caption(marks: Marks) -> list[str]:
    """The lines written on the evidence still: the letter, the times, the stable time and the verdict."""
    return [
        # an unreadable letter shows no number: the vote's confidence then belongs to no letter, and
        # "unreadable (1.00)" read as sure of nothing
        f"letter: {marks.letter} ({marks.letter_confidence:.2f})" if marks.letter and marks.letter_confidence is not None
        else f"letter: {marks.letter}" if marks.letter else "letter: unreadable, a judge reads it",
        f"release {marks.release_t:.2f}s" if marks.release_t is not None else "release ?",
        f"{marks.stable_end} {marks.wobble_t:.2f}s" if marks.wobble_t is not None else "wobble -",
        f"rest {marks.rest_t:.2f}s" if marks.rest_t is not None else "rest ?",
        stable_text(marks),
        verdict_text(marks),
    ]


def inset_origin(picture: tuple[int, int], inset: tuple[int, int], center: tuple[float, float], radius: float,
                 tray_polygon: np.ndarray | None = None) -> tuple[int, int]:
    """Where the magnified inset (``inset`` = width, height) goes on a ``picture`` (width, height): of the three
    corners the caption leaves free (top right, bottom right, bottom left), one that does not cover the dreidel
    (its circle of ``radius`` around ``center``) and hides the least of the tray's outline, the outline near the
    dreidel counting four times; top right when that is a tie. A judge checks "did it land in the tray" on the
    dreidel and the outline (H56: the inset hid a tray corner, and could hide the dreidel itself)."""
    (w, h), (iw, ih) = picture, inset
    corners = [(w - iw - 2, 2), (w - iw - 2, h - ih - 2), (2, h - ih - 2)]
    outline = np.zeros((0, 2))
    if tray_polygon is not None:
        ends = np.asarray(tray_polygon, np.float64).reshape(-1, 2)
        # points every few pixels along the outline (a square tray's polygon may be just its four corners)
        outline = np.concatenate([a + (b - a) * np.linspace(0.0, 1.0, max(2, int(np.hypot(*(b - a)) / 4)),
                                                            endpoint=False)[:, None]
                                  for a, b in zip(ends, np.roll(ends, -1, axis=0), strict=True)])
    near = np.hypot(outline[:, 0] - center[0], outline[:, 1] - center[1]) < 3 * radius + 40

    def covers_dreidel(origin: tuple[int, int]) -> bool:
        x0, y0 = origin
        dx = max(x0 - center[0], 0.0, center[0] - (x0 + iw))
        dy = max(y0 - center[1], 0.0, center[1] - (y0 + ih))
        return math.hypot(dx, dy) - radius <= 4

    def outline_hidden(origin: tuple[int, int]) -> int:
        x0, y0 = origin
        inside = ((outline[:, 0] >= x0) & (outline[:, 0] <= x0 + iw) & (outline[:, 1] >= y0)
                  & (outline[:, 1] <= y0 + ih))
        return int(inside.sum() + 3 * (inside & near).sum())

    return min(corners, key=lambda c: (covers_dreidel(c), outline_hidden(c), corners.index(c)))


def draw_still(
    image_bgr: np.ndarray,
    marks: Marks,
    center: tuple[float, float] | None,
    length: float | None,
    angle_deg: float | None,
    pose: object | None = None,
    tray_polygon: np.ndarray | None = None,
) -> np.ndarray:
    """The resting frame with the measurements drawn on it (a copy; the input is not changed)."""
    img = image_bgr.copy()
    h, w = img.shape[:2]
    inset = None
    if center is not None and length is not None:
        # a magnified view of the dreidel as it lies, taken before anything is drawn on the picture
        r = int(max(length * 1.1, 24))
        cx, cy = int(center[0]), int(center[1])
        crop = image_bgr[max(cy - r, 0) : cy + r, max(cx - r, 0) : cx + r]
        if crop.size:
            side = int(min(h, w) * 0.42)
            inset = cv2.resize(crop, (side, int(side * crop.shape[0] / max(crop.shape[1], 1))),
                               interpolation=cv2.INTER_CUBIC)
    if tray_polygon is not None:
        cv2.polylines(img, [np.round(tray_polygon).astype(np.int32).reshape(-1, 1, 2)], True, (255, 200, 0), 1, cv2.LINE_AA)
    tip = getattr(pose, "tip", None)
    handle = getattr(pose, "handle", None)
    quad = getattr(pose, "face_quad", None)
    if quad is not None:
        cv2.polylines(img, [np.round(np.asarray(quad)).astype(np.int32).reshape(-1, 1, 2)], True, (0, 255, 255), 1, cv2.LINE_AA)
    if tip is not None and handle is not None:
        p0 = (int(round(tip[0])), int(round(tip[1])))
        p1 = (int(round(handle[0])), int(round(handle[1])))
        cv2.arrowedLine(img, p1, p0, (0, 0, 255), 2, cv2.LINE_AA, tipLength=0.2)
        # the word on a dark box: red on a red dreidel read as nothing (H56, spins 1 and 4)
        (tw, th), base = cv2.getTextSize("tip", cv2.FONT_HERSHEY_SIMPLEX, 0.45, 1)
        x0, y0 = min(max(p0[0] + 4, 0), w - tw - 4), min(max(p0[1], th + 3), h - base - 2)
        box = img[y0 - th - 3 : y0 + base + 1, x0 - 2 : x0 + tw + 3]
        box[:] = (box * 0.25).astype(np.uint8)
        cv2.putText(img, "tip", (x0, y0), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (110, 110, 255), 1, cv2.LINE_AA)
    elif center is not None and length is not None and angle_deg is not None:
        a = math.radians(angle_deg)
        dx, dy = 0.5 * length * math.cos(a), 0.5 * length * math.sin(a)
        cv2.line(img, (int(center[0] - dx), int(center[1] - dy)), (int(center[0] + dx), int(center[1] + dy)),
                 (0, 0, 255), 2, cv2.LINE_AA)
    if center is not None and length is not None:
        r = int(max(length * 0.75, 12))
        cv2.circle(img, (int(center[0]), int(center[1])), r, (0, 255, 0), 1, cv2.LINE_AA)
    lines = still_caption(marks)
    if inset is not None and center is not None and length is not None:
        ih, iw = inset.shape[:2]
        ih, iw = min(ih, h - 4), min(iw, w - 4)
        x0, y0 = inset_origin((w, h), (iw, ih), center, max(length * 0.75, 12.0), tray_polygon)
        img[y0 : y0 + ih, x0 : x0 + iw] = inset[:ih, :iw]
        cv2.rectangle(img, (x0 - 1, y0 - 1), (x0 + iw, y0 + ih), (255, 255, 255), 1)
    scale = max(0.45, w / 1400)
    step = int(20 * scale / 0.45)
    y = int(22 * scale / 0.45)
    width = max(cv2.getTextSize(line, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)[0][0] for line in lines)
    # a dark panel behind the text keeps it readable on any tray
    panel = img[0 : y + step * (len(lines) - 1) + 8, 0 : width + 16]
    panel[:] = (panel * 0.35).astype(np.uint8)
    for line in lines:
        cv2.putText(img, line, (8, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
        y += step
    return img
