"""The table's tracker reads an upright top the colour of the felt at the head of its cast shadow (H51).

Altsim 800000 spin 0, 840002 spin 0 and 960013 spin 1 are red dreidels on red felt under a low lamp: from above the
top is a faint disc with the felt's hue (every channel 0.84-0.92 of the felt's, so its pixels read as a light
shadow), and the long cast shadow keeps 40% of the light. Without ``faint_body`` the tracker followed the deep
shadow (2-3.5 times as long as wide) from the release, and the judge called the spins wobbled at once. The
scenes are the ones of ``test_tracker_faint_top.py``, tracked here with the tracker the judge builds.
"""

from __future__ import annotations

import numpy as np

from controller.judge import SpinJudge
from tests.vision.test_tracker_faint_top import _empty, _scene, assert_top_at_head
from tests.vision.tracker_scenes import track_scenes
from vision.tracker import DreidelTracker


def test_the_judges_tracker_reads_a_felt_coloured_top_not_its_shadow() -> None:
    judge = SpinJudge(None, imu=False)
    assert judge.tracker.faint_body
    rng = np.random.default_rng(11)
    assert_top_at_head(track_scenes(DreidelTracker(), lambda: _empty(rng), lambda: _scene(rng, False), 4))


def test_a_felt_coloured_dreidel_lying_with_its_letter_up_is_still_read_whole() -> None:
    rng = np.random.default_rng(11)
    seen = track_scenes(DreidelTracker(), lambda: _empty(rng), lambda: _scene(rng, True), 4)
    rng = np.random.default_rng(11)
    plain = track_scenes(DreidelTracker(faint_body=False), lambda: _empty(rng), lambda: _scene(rng, True), 4)
    assert all(d is not None for d in seen)
    assert seen == plain


def test_the_blob_says_when_it_was_read_as_a_faint_top() -> None:
    """The judge needs to know: nothing in such a top's box changes while it sleeps (altsim 960013 spin 1 sat
    still for 6 s), so its stillness is no sign of rest; a dreidel lying with its letter up is no faint top."""
    rng = np.random.default_rng(11)
    upright = track_scenes(DreidelTracker(), lambda: _empty(rng), lambda: _scene(rng, False), 4)
    lying = track_scenes(DreidelTracker(), lambda: _empty(rng), lambda: _scene(rng, True), 4)
    assert all(d is not None and d.faint for d in upright)
    assert all(d is not None and not d.faint for d in lying)
