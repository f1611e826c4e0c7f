"""An outline that jitters like a wobble from its first frame on, for longer than a wobbling top stays up, is
read against its own jitter, and the judge asks a judge (:func:`controller.camera_wobble.read_onset`).

Twin 100004 spin 8: a pink dreidel upside down on olive felt, seen only in part while it spun (a blob of
140-280 px^2 of its ~1100), its centroid jumping by a tenth of its lever from frame to frame. Read against the
level it wobbled on its first frame measured, 0.74 s into a spin that stood 4.52 s (short, no judge asked). A top
leaning at the rules' wobble falls within ``at_once_fall_s`` (3 s), so what circled before that was jitter.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scripted_judge import run_judge, verdicts_of

from controller.camera_wobble import CameraTrack, WobbleSettings, read_onset, wobble_onset
from controller.judge import SpinJudge
from vision.tracker import Blob, TrackResult

RELEASE = 1.0
LENGTH_PX = 60.0


def path(t: np.ndarray, onset_t: float, jitter_px: float, seed: int, period_s: float = 0.5,
         growth: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """The centroid (full-resolution px) of a top whose tilt reaches 6 degrees at ``onset_t``, precessing every
    ``period_s``, seen through an outline whose centroid jumps by ``jitter_px`` (sd, each axis) frame to frame.
    A circle at 6 degrees and the reference period measures exactly the level (as in the lead-in tests)."""
    ws = WobbleSettings()
    x_ref = math.pi * ws.window_s / ws.reference_period_s
    gain = 1.0 - math.sin(x_ref) / x_ref
    tilt = np.minimum(np.maximum(6.0 * np.exp(growth * (t - onset_t)), 1.0), 80.0)
    radius = ws.level * LENGTH_PX / (math.sin(math.radians(6.0)) * gain) * np.sin(np.radians(tilt))
    phase = 2.0 * math.pi * (t - RELEASE) / period_s
    rng = np.random.default_rng(seed)
    x = 400.0 + 3.0 * (t - RELEASE) + radius * np.cos(phase) + rng.normal(0.0, jitter_px, t.size)
    y = 300.0 - 2.0 * (t - RELEASE) + radius * np.sin(phase) + rng.normal(0.0, jitter_px, t.size)
    return x, y


def spin(onset_s: float, fall_s: float, jitter_px: float, seed: int, fps: float = 60.0) -> CameraTrack:
    """The judge's series of such a spin, measured from 0.37 s after the release to its fall."""
    t = RELEASE + np.arange(0.37, fall_s, 1.0 / fps)
    x, y = path(t, RELEASE + onset_s, jitter_px, seed)
    return CameraTrack(t=t, x=x, y=y, area=np.full(t.size, (LENGTH_PX / 1.65) ** 2), release_t=RELEASE,
                       fall_t=float(t[-1]), fps=fps, body_length=LENGTH_PX)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_jittery_outline_is_read_against_its_jitter(seed: int) -> None:
    """Wobbling 4.5 s after the release, falling 1.2 s later, its centroid jumping 5 px (a twelfth of its
    length) frame to frame. Against the level: wobbled at its first frame measured. Against its jitter: dated
    after the true onset and before the fall, so the spin is valid, as it truly is."""
    track = spin(4.5, 5.7, jitter_px=5.0, seed=seed)
    truth = RELEASE + 4.5
    old = wobble_onset(track, WobbleSettings(read_jitter=False))  # the level alone: wobbled at once
    assert old is not None and old - RELEASE < 0.5
    reading = read_onset(track)
    assert wobble_onset(track) == reading.onset
    assert reading.jitter is not None and reading.jitter > WobbleSettings().level
    assert reading.onset is not None
    assert truth - 0.1 < reading.onset < track.fall_t
    assert reading.onset - RELEASE > 3.0


@pytest.mark.parametrize("seed", [4, 5])
def test_a_steady_outline_is_read_against_the_level(seed: int) -> None:
    """The same spin seen whole (0.25 px of noise): under the level while it stood, no jitter reported, the onset
    that of :func:`wobble_onset`, near the truth."""
    track = spin(4.5, 5.7, jitter_px=0.25, seed=seed)
    reading = read_onset(track)
    assert reading.jitter is None
    assert reading.onset == wobble_onset(track, WobbleSettings(read_jitter=False))
    assert reading.onset is not None and abs(reading.onset - (RELEASE + 4.5)) < 0.15


def test_a_top_that_wobbled_at_once_and_fell_soon_is_not_jitter() -> None:
    """Over the level from its first frame and fallen 1.1 s later: it wobbled at once, a jittery outline or not
    (what circles over the level is taken for jitter only past ``at_once_fall_s``)."""
    track = spin(0.3, 1.5, jitter_px=5.0, seed=6)
    reading = read_onset(track)
    assert reading.jitter is None
    assert reading.onset is not None and reading.onset - RELEASE < 0.5


# -- the judge: a valid spin, referred ---------------------------------------------------------------------
FPS = 60.0
SCALE = 4.0
ONSET_T, FALL_T, REST_T, END_T = 5.5, 6.7, 6.9, 10.0


class JitteryTracker:
    """A dreidel released at ``RELEASE`` with no hand in view, upright with a jittery outline, wobbling from
    ``ONSET_T``, falling at ``FALL_T`` and lying still from ``REST_T`` (lores px)."""

    scale = SCALE

    def __init__(self) -> None:
        t = np.arange(0.0, END_T + 1.0, 1.0 / FPS)
        self._x, self._y = path(t, ONSET_T, jitter_px=5.0, seed=7)

    def reset_track(self) -> None:
        """Nothing to forget: the script is the track."""

    def process_small(self, index: int, t: float, small: np.ndarray, full: object = None) -> TrackResult:
        blob: Blob | None = None
        motion = 0.0
        if RELEASE <= t < FALL_T:
            x, y = self._x[index] / SCALE, self._y[index] / SCALE
            blob = Blob(x=x, y=y, area=60.0, bbox=(int(x) - 4, int(y) - 4, 9, 9), elongation=1.1, angle_deg=0.0,
                        length=9.0, width=8.0, edge=False, skin=0.0)
            motion = 6.0
        elif FALL_T <= t < REST_T:
            u = (t - FALL_T) / (REST_T - FALL_T)
            blob = Blob(x=110.0 + 10.0 * u, y=70.0, area=40.0, bbox=(105, 66, 14, 8), elongation=2.2,
                        angle_deg=10.0, length=12.0, width=5.0, edge=False, skin=0.0)
            motion = 12.0
        elif t >= REST_T:
            blob = Blob(x=120.0, y=70.0, area=25.0, bbox=(115, 67, 15, 6), elongation=2.4, angle_deg=10.0,
                        length=15.0, width=6.0, edge=False, skin=0.0)
        return TrackResult(index=index, t=t, dreidel=blob, hands=(), merged=False, motion=motion, in_tray=True,
                           scale=SCALE)


def test_the_judge_times_a_jittery_spin_against_its_jitter_and_asks_a_judge() -> None:
    """Camera only, the spin stood 4.5 s: called valid, not wobbled at once, and a judge is asked, told why."""
    judge = SpinJudge(recognizer=None)
    judge.tracker = JitteryTracker()  # type: ignore[assignment]
    verdicts = verdicts_of(run_judge(judge, END_T, FPS))
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.stable_s > 3.0 and "short" not in v.reasons and "wobbled_immediately" not in v.reasons
    assert v.wobble_t is not None and ONSET_T - 0.1 < v.wobble_t < FALL_T
    assert v.needs_judge
    assert any("jittered" in n for n in v.notes)
