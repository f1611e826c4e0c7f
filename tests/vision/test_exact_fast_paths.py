"""The judge's speed-ups (session 8) compute exactly what the plain code they replaced computed: the learned
background, its noise and the full-size empty tray are numpy's medians; the shadow test is the written-out
float32 formula; a component the tracker does not measure could not have been a hand; the circling is the
same sums. Each plain version is kept here as the reference, so a difference of one bit fails."""

from __future__ import annotations

import math
from collections import deque

import cv2
import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vision.background import DEEP_SHADOW, DEEPEST_SHADOW, BackgroundModel, middle_values
from vision.observation import ObservationBuilder
from vision.tracker import _may_be_big, _shape


def _frames(seed: int, n: int, shape: tuple[int, int, int], spread: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 256, shape)
    return [np.clip(base + rng.integers(-spread, spread + 1, shape), 0, 255).astype(np.uint8) for _ in range(n)]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 17), seed=st.integers(0, 10_000), spread=st.integers(0, 128))
def test_middle_values_are_numpys_median(n: int, seed: int, spread: int) -> None:
    planes = _frames(seed, n, (6, 7, 3), spread)
    lower, upper = middle_values(planes)
    want = np.median(np.stack(planes).astype(np.float32), axis=0)
    got = (lower.astype(np.float32) + upper) / np.float32(2.0)
    assert np.array_equal(got, want)
    if n % 2:
        assert lower is upper


def _plain_learning(small: list[np.ndarray], full: list[np.ndarray]) -> tuple[np.ndarray, float, np.ndarray]:
    """What BackgroundModel._finish_learning computed before session 8 (model, noise, full picture)."""
    stack = np.stack(small).astype(np.float32)
    med = np.median(stack, axis=0)
    dev = np.abs(stack - med).max(axis=3)
    noise = float(max(1.5, np.median(dev) * 1.4826))
    pick = np.linspace(0, len(full) - 1, min(5, len(full))).round().astype(int)
    full_med = np.median(np.stack([full[i] for i in pick]), axis=0).astype(np.uint8)
    return med.astype(np.float32), noise, full_med


@settings(max_examples=25, deadline=None)
@given(keep=st.integers(3, 16), seed=st.integers(0, 10_000), spread=st.sampled_from([0, 1, 3, 8, 60]))
@example(keep=4, seed=1, spread=3)  # an even count of full pictures: numpy's mean of the middle two, floored
@example(keep=15, seed=2, spread=1)
def test_the_learned_background_is_numpys_median(keep: int, seed: int, spread: int) -> None:
    small = _frames(seed, 40, (24, 32, 3), spread)
    full = _frames(seed + 1, 40, (48, 64, 3), 90)
    model = BackgroundModel(learn_s=1.0, max_learn_frames=keep)
    kept_small: list[np.ndarray] = []
    kept_full: list[np.ndarray] = []
    for i in range(40):
        n_before = len(kept_full)

        def fetch(i: int = i) -> np.ndarray:
            kept_full.append(full[i])
            return full[i]

        if model.observe(small[i], i / 30, fetch):
            if len(kept_full) > n_before:
                kept_small.append(small[i])
            break
        if len(kept_full) > n_before:
            kept_small.append(small[i])
    assert model.ready
    want_bg, want_noise, want_full = _plain_learning(kept_small, kept_full)
    assert model.noise == want_noise
    assert model._bg is not None and model._bg.dtype == np.float32 and np.array_equal(model._bg, want_bg)
    assert np.array_equal(model.image, np.clip(want_bg + 0.5, 0, 255).astype(np.uint8))
    assert model.full_image is not None and np.array_equal(model.full_image, want_full)


def _plain_shadow_depth(model: BackgroundModel, small: np.ndarray, region: tuple[int, int, int, int]) -> np.ndarray:
    """BackgroundModel.shadow_depth as written out before session 8."""
    assert model._bg is not None
    x, y, w, h = region
    f = small[y : y + h, x : x + w].astype(np.float32) + 1.0
    b = model._bg[y : y + h, x : x + w] * model.gain + 1.0
    r = f / b
    k = (f[..., 0] + f[..., 1] + f[..., 2]) / (b[..., 0] + b[..., 1] + b[..., 2])
    off = np.abs(r - k[..., None])
    off -= np.float32(2.5 * model.noise) / b
    stray = np.maximum(np.maximum(off[..., 0], off[..., 1]), off[..., 2])
    neutral = stray < 0.06 * k + 0.02
    depth = ((k > DEEP_SHADOW) & (k < 0.93) & neutral).astype(np.uint8)
    depth[(k > DEEPEST_SHADOW) & (k <= DEEP_SHADOW) & neutral] = 2
    depth[neutral & (k >= 0.93) & (k < 1.1)] = 3
    out: np.ndarray = depth
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), gain=st.sampled_from([1.0, 0.93, 1.0371]), noise=st.floats(1.5, 8.0),
       x=st.integers(0, 60), y=st.integers(0, 40), w=st.integers(0, 40), h=st.integers(0, 40))
def test_shadow_depth_is_the_written_out_formula(seed: int, gain: float, noise: float, x: int, y: int, w: int,
                                                 h: int) -> None:
    rng = np.random.default_rng(seed)
    bg = rng.uniform(0, 255, (60, 80, 3)).astype(np.float32)
    # darkenings of every depth, some neutral (a shadow), some not (an object), plus the sensor's noise
    factor = rng.uniform(0.1, 1.2, (60, 80, 1)) * rng.uniform(0.9, 1.1, (60, 80, 3)) ** rng.integers(0, 2, (60, 80, 1))
    small = np.clip(bg * factor + rng.normal(0, 2, bg.shape), 0, 255).astype(np.uint8)
    model = BackgroundModel()
    model._bg = bg
    model.gain = gain
    model.noise = noise
    got = model.shadow_depth(small, (x, y, w, h))
    assert got.dtype == np.uint8
    assert np.array_equal(got, _plain_shadow_depth(model, small, (x, y, w, h)))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), max_len=st.floats(20.0, 120.0), min_len=st.floats(5.0, 30.0))
def test_a_component_left_unmeasured_could_not_have_been_a_hand(seed: int, max_len: float, min_len: float) -> None:
    """The tracker skips a component's moments when its size and box rule out the "big" tests: then its
    length really is under 1.6 x the largest dreidel's, and its area under both area tests."""
    rng = np.random.default_rng(seed)
    h, w = int(rng.integers(1, 140)), int(rng.integers(1, 140))
    comp = np.zeros((h, w), np.uint8)
    for _ in range(int(rng.integers(1, 4))):
        cv2.ellipse(comp, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                    (int(rng.integers(0, 90)), int(rng.integers(0, 20))), float(rng.uniform(0, 180)), 0, 360, 1, -1)
    comp[0, 0] = comp[-1, -1] = 1  # the component fills its box's extent, as a labelled one does
    shape = _shape(cv2.moments(comp, binaryImage=True))
    assert shape is not None
    area = int(np.count_nonzero(comp))
    for edge in (False, True):
        if not _may_be_big(area, w, h, edge, min_len, max_len):
            assert shape[5] <= 1.6 * max_len
            assert shape[0] <= 0.7 * max_len * max_len
            assert not (edge and shape[0] > 1.5 * min_len * min_len)


def _plain_circling(hist: deque[tuple[float, float, float]]) -> float:
    """ObservationBuilder._circling as written before session 8."""
    n = len(hist)
    if n < 4:
        return 0.0
    ts = [h[0] for h in hist]
    tm = sum(ts) / n
    dt = [t - tm for t in ts]
    var_t = sum(v * v for v in dt)
    total = 0.0
    for k in (1, 2):
        vals = [h[k] for h in hist]
        m = sum(vals) / n
        slope = sum(a * (b - m) for a, b in zip(dt, vals, strict=True)) / var_t if var_t > 0 else 0.0
        total += sum((b - m - slope * a) ** 2 for a, b in zip(dt, vals, strict=True))
    return math.sqrt(total / n)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1e4), st.floats(0, 1280), st.floats(0, 720)), max_size=40), st.booleans())
def test_circling_is_the_same_sums(points: list[tuple[float, float, float]], same_time: bool) -> None:
    hist = deque((points[0][0] if same_time and points else t, x, y) for t, x, y in points)
    builder = ObservationBuilder()
    builder._hist = hist
    assert builder._circling() == _plain_circling(hist)
