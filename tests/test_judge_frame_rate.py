"""The stable time of a spin does not depend on how long its letter took to read.

The judge gives its verdict when the letter vote ends: after two agreeing frames for a clear letter,
after five for one it cannot read. The camera's wobble onset is measured in frames, so it needs the
frame rate; a real camera's timestamps jitter, and a frame-rate estimate taken at the moment of the
verdict followed that jitter, so the same spin got a different onset with a legible and an illegible
letter (twin 58004 spin 1: 14.749 against 14.733 s).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import numpy as np

from controller.judge import SpinJudge, SpinVerdict
from controller.rules.letters import Letter
from hardware.camera import Frame
from tests.test_judge import FPS, FakeReader
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin

SPINS = [ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9), ScriptedSpin(release_t=9.5, stable_s=3.2, wobble_s=1.2)]


def jittered(frames: Iterator[Frame], seed: int) -> Iterator[Frame]:
    """The frames with capture times off by up to 4 ms, as a real camera's are (order kept)."""
    rng = np.random.default_rng(seed)
    for f in frames:
        yield dataclasses.replace(f, t=f.t + float(rng.uniform(-0.004, 0.004)))


def judged(reader: FakeReader, seed: int) -> list[SpinVerdict]:
    scene = SceneRenderer(SPINS, SceneStyle(), seed=7)
    judge = SpinJudge(reader)
    verdicts: list[SpinVerdict] = []
    for frame in jittered(scene.frames(17.0, FPS), seed):
        verdicts += [e for e in judge.feed_frame(frame) if isinstance(e, SpinVerdict)]
    verdicts += [e for e in judge.finish() if isinstance(e, SpinVerdict)]
    return verdicts


def test_a_legible_and_an_illegible_letter_give_the_same_stable_times() -> None:
    legible = FakeReader(Letter.GIMEL, 0.99)
    illegible = FakeReader(None)
    clear, unclear = judged(legible, seed=1), judged(illegible, seed=1)
    assert legible.calls < illegible.calls, "the illegible letter kept the vote open for more frames"
    assert len(clear) == len(unclear) == 2
    assert [v.letter for v in clear] == [Letter.GIMEL, Letter.GIMEL]
    assert [v.letter for v in unclear] == [None, None]
    for a, b in zip(clear, unclear, strict=True):
        assert (a.release_t, a.wobble_t, a.rest_t, a.stable_s) == (b.release_t, b.wobble_t, b.rest_t, b.stable_s)
