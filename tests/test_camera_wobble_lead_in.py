"""A spin that wobbled at once is dated on the frames seen while its release was made sure of
(``CameraTrack.lead``, ``WobbleSettings.lead_in``; H54, fourteenth session).

The judge's series starts once it has made sure of the release, some 0.37 s after it on the twin. A top
whose circling is over the level from that first frame wobbled "at once", and was dated in the middle of
the unseen stretch before it: release + 0.1 s + half the rest, which is 0.219-0.261 s on every one of the
twin's 28 tuning spins that wobbled at once, whatever their true stable time (0.088-0.436 s). A fast
precession (the twin's are 0.38-0.45 s at the onset) leaves more of its circle after the 0.35 s moving
average, so the level as the window leaves it is crossed below 6 degrees. The frames seen while the release
was confirmed (from when the dreidel was first seen on its own) make the piece long enough for the period
to be measured: where the period-scaled level crosses after their first frame, that is the onset (twin
63005 spin 7: 0.236 -> 0.372 s, true 0.424). Over the level from their first frame too, the middle stays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from scripted_judge import run_judge, verdicts_of

import controller.judge as judge_mod
from controller.camera_wobble import CameraTrack, OnsetReading, WobbleSettings, read_onset, wobble_onset
from controller.judge import SpinJudge
from vision.tracker import Blob, TrackResult

RELEASE = 1.0


def seen_spin(onset_s: float, seed: int, *, lead_s: float = 0.14, seen_s: float = 0.37, fall_s: float = 0.9,
              fps: float = 60.0, period_s: float = 0.38, growth: float = 4.0, length_px: float = 60.0) -> CameraTrack:
    """A top seen from above whose tilt reaches 6 degrees ``onset_s`` after its release, precessing every
    ``period_s``: first seen on its own ``lead_s`` after the release (the lead-in frames), measured by the
    judge from ``seen_s``, fallen at ``fall_s``. Its lever is chosen so that a circle at 6 degrees and the
    reference period measures exactly the level."""
    ws = WobbleSettings()
    rng = np.random.default_rng(seed)
    t = RELEASE + np.arange(lead_s, fall_s, 1.0 / fps)
    tt = t - RELEASE
    tilt = np.maximum(6.0 * np.exp(growth * (tt - onset_s)), 1.0)
    x_ref = math.pi * ws.window_s / ws.reference_period_s
    gain = 1.0 - math.sin(x_ref) / x_ref
    radius = ws.level * length_px / (math.sin(math.radians(6.0)) * gain) * np.sin(np.radians(tilt))
    phase = 2.0 * math.pi * tt / period_s
    x = 200.0 + 4.0 * tt + radius * np.cos(phase) + rng.normal(0.0, 0.25, t.size)
    y = 150.0 - 2.5 * tt + radius * np.sin(phase) + rng.normal(0.0, 0.25, t.size)
    area = np.full(t.size, (length_px / 1.65) ** 2)
    lead = tt < seen_s
    body = ~lead
    return CameraTrack(t=t[body], x=x[body], y=y[body], area=area[body], release_t=RELEASE, fall_t=float(t[-1]),
                       fps=fps, body_length=length_px,
                       lead=np.column_stack([t[lead], x[lead], y[lead], area[lead]]))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_spin_that_wobbled_just_before_it_was_measured_is_dated_on_its_lead_in(seed: int) -> None:
    """Wobbling 0.36 s after the release, measured from 0.37 s: over the level from the first frame measured.
    Dated within 0.05 s of the truth; before, in the middle of the unseen stretch (0.237 s, 0.12 s early)."""
    track = seen_spin(0.36, seed)
    truth = RELEASE + 0.36
    got = wobble_onset(track)
    assert got is not None and abs(got - truth) < 0.05, got
    before = wobble_onset(track, WobbleSettings(lead_in=False))
    assert before is not None and truth - before > 0.1


def test_never_later_than_the_first_frame_measured() -> None:
    """A spin over the level from its first frame measured wobbled by then at the latest."""
    track = seen_spin(0.45, seed=5)
    got = wobble_onset(track)
    assert got is not None and got <= float(track.t[0]) + 1e-9


def test_over_the_level_from_the_first_lead_in_frame_stays_in_the_middle() -> None:
    """Wobbling already when first seen on its own (0.2 s, seen from 0.14 s): nothing tells where in the
    unseen stretch it began, so it stays in its middle, as before."""
    track = seen_spin(0.2, seed=6)
    got = wobble_onset(track)
    assert got is not None
    assert got == wobble_onset(track, WobbleSettings(lead_in=False))
    assert got == pytest.approx(float(track.t[0]) - 0.5 * (float(track.t[0]) - RELEASE - 0.1))


def test_a_spin_that_wobbled_later_does_not_ask_the_lead_in() -> None:
    """A spin measured sleeping is dated on its own series, lead-in or not."""
    track = seen_spin(1.5, seed=7, fall_s=2.2, period_s=0.55, growth=2.0)
    got = wobble_onset(track)
    assert got is not None and abs(got - (RELEASE + 1.5)) < 0.1
    assert got == wobble_onset(track, WobbleSettings(lead_in=False))


def test_lead_rows_are_checked() -> None:
    with pytest.raises(ValueError, match="lead"):
        CameraTrack(t=np.arange(3.0), x=np.zeros(3), y=np.zeros(3), area=np.ones(3), release_t=0.0, fall_t=2.0,
                    fps=60.0, lead=np.zeros((3, 3)))


# -- the judge hands its lead-in frames over ---------------------------------------------------------------
FPS = 60.0
SCALE = 4.0
RELEASE_T, FALL_T, REST_T, END_T = 1.0, 3.0, 3.2, 6.0


class ScriptedTracker:
    """A dreidel released at ``RELEASE_T`` with no hand in view, upright and circling until ``FALL_T``, lying
    still from ``REST_T`` (lores px)."""

    scale = SCALE

    def reset_track(self) -> None:
        """Nothing to forget: the script is the track."""

    def process_small(self, index: int, t: float, small: np.ndarray, full: object = None) -> TrackResult:
        blob: Blob | None = None
        motion = 0.0
        if RELEASE_T <= t < FALL_T:
            a = 2.0 * math.pi * t / 0.5
            blob = Blob(x=160.0 + math.cos(a), y=90.0 + math.sin(a), area=60.0, bbox=(156, 86, 9, 9),
                        elongation=1.1, angle_deg=0.0, length=9.0, width=8.0, edge=False, skin=0.0)
            motion = 6.0
        elif FALL_T <= t < REST_T:
            u = (t - FALL_T) / (REST_T - FALL_T)
            blob = Blob(x=160.0 + 12.0 * u, y=90.0, area=40.0, bbox=(155, 86, 14, 8), elongation=2.2,
                        angle_deg=10.0, length=12.0, width=5.0, edge=False, skin=0.0)
            motion = 12.0
        elif t >= REST_T:
            blob = Blob(x=172.0, y=90.0, area=25.0, bbox=(167, 87, 10, 6), elongation=2.4, angle_deg=10.0,
                        length=10.0, width=4.0, edge=False, skin=0.0)
        return TrackResult(index=index, t=t, dreidel=blob, hands=(), merged=False, motion=motion, in_tray=True,
                           scale=SCALE)


def test_the_judge_gives_the_onset_the_frames_seen_while_it_made_sure_of_the_release(monkeypatch: Any) -> None:
    """The frames from when the dreidel was first seen on its own to the release's confirmation (``confirm_s``
    later) reach the onset as ``CameraTrack.lead``, in full-resolution px, all before the series' first frame."""
    seen: list[CameraTrack] = []

    def spy(track: CameraTrack, settings: WobbleSettings | None = None) -> OnsetReading:
        seen.append(track)
        return read_onset(track, settings)

    monkeypatch.setattr(judge_mod, "read_onset", spy)
    judge = SpinJudge(recognizer=None)
    judge.tracker = ScriptedTracker()  # type: ignore[assignment]
    verdicts = verdicts_of(run_judge(judge, END_T, FPS))
    assert len(verdicts) == 1 and seen
    track = seen[-1]
    assert track.lead is not None
    lead_t = track.lead[:, 0]
    confirm = judge.settings.confirm_s
    assert lead_t.size >= int(confirm * FPS) - 1
    assert abs(lead_t[0] - RELEASE_T) < 1.5 / FPS
    assert lead_t[-1] < track.t[0] and track.t[0] - lead_t[-1] < 1.5 / FPS
    assert np.all(np.abs(track.lead[:, 1] - 160.0 * SCALE) <= 1.01 * SCALE)
