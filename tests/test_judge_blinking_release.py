"""A spinning top the colour of the felt drops out of the tracker for a frame now and then: the release must
still be found (altsim 1020009, the fifteenth round's held-out set: a brown top on olive felt was seen in runs of
5-10 frames with one-frame gaps, no release was ever confirmed, and the spin was missed in both modes)."""

from __future__ import annotations

import numpy as np
from test_judge import FakeReader

from controller.judge import JudgeSettings, SpinJudge, SpinVerdict
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin

FPS = 30.0


class BlinkingScene(SceneRenderer):
    """The sleeping top is not drawn on one frame in ``every`` (the tracker's picture of a top that blends
    with the felt); the hand, the fall and the lying dreidel are drawn as usual."""

    def __init__(self, spins: list[ScriptedSpin], every: int) -> None:
        super().__init__(spins, SceneStyle(), seed=7)
        self.every = every

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        sleeping = sp.release_t + 0.05 <= t < sp.wobble_t
        if sleeping and int(round(t * FPS)) % self.every == self.every - 1:
            return
        super()._draw_spin(img, sp, t)


def _judge(scene: SceneRenderer, duration: float, settings: JudgeSettings | None = None) -> list[SpinVerdict]:
    judge = SpinJudge(FakeReader(), settings=settings)
    events = []
    for frame in scene.frames(duration, FPS):
        events += judge.feed_frame(frame)
    events += judge.finish()
    return [e for e in events if isinstance(e, SpinVerdict)]


SPIN = ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9)


def test_a_top_missing_on_one_frame_in_four_is_still_released_on_time() -> None:
    """Before the candidate waited out a one-frame gap, the release was never confirmed while the top slept
    (runs of 3 frames, 0.1 s, against the 0.2 s needed): the spin was dated from its wobble."""
    verdicts = _judge(BlinkingScene([SPIN], every=4), 8.5)
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.release_t is not None and abs(v.release_t - SPIN.release_t) < 0.15, v.release_t
    assert v.valid and v.stable_s is not None and abs(v.stable_s - SPIN.rules_stable_s) < 0.4


def test_without_the_wait_the_blinking_top_is_not_released_on_time() -> None:
    """The same scene judged as before (no gap waited out): the sleeping top is never confirmed, so the
    release is not found where it was (what the first test guards against)."""
    verdicts = _judge(BlinkingScene([SPIN], every=4), 8.5, JudgeSettings(candidate_gap_s=0.0))
    assert all(v.release_t is None or abs(v.release_t - SPIN.release_t) > 0.15 for v in verdicts)
