"""The heavy top: each kind of spin behaves as the rules' cases need, and lands on the face it says."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hardware.sim.dreidel import random_style, style_named
from hardware.sim.physics import (
    WOBBLE_TILT_DEG,
    SpinKind,
    TopConstants,
    parse_kinds,
    plan_spin,
    simulate_spin,
    up_face,
)

STABLE_KINDS = {
    SpinKind.VALID: (3.0, 12.0),
    SpinKind.SHORT: (0.5, 3.0),
    SpinKind.NEAR_3S: (2.7, 3.3),
    SpinKind.WOBBLE_AT_ONCE: (0.0, 0.5),
}


@pytest.mark.parametrize("kind", list(STABLE_KINDS))
@pytest.mark.parametrize("seed", [1, 2])
def test_stable_time_lands_in_the_kinds_range(kind: SpinKind, seed: int) -> None:
    style = random_style(seed)
    traj = simulate_spin(style, plan_spin(style, kind, seed, 170.0))
    lo, hi = STABLE_KINDS[kind]
    assert traj.wobble_t is not None
    assert lo <= traj.wobble_t < hi
    assert traj.wobble_t < traj.fall_t < traj.land_t < traj.rest_t


def test_sleeping_top_stays_upright_then_wobbles_and_falls() -> None:
    style = style_named("wood")
    traj = simulate_spin(style, plan_spin(style, SpinKind.VALID, 3, 170.0))
    tilt = np.degrees(np.hypot(traj.ux, traj.uy))
    assert traj.wobble_t is not None
    sleeping = tilt[(traj.t > 0.3) & (traj.t < traj.wobble_t - 0.05)]
    assert sleeping.max() < WOBBLE_TILT_DEG
    assert np.median(sleeping) < 3.5
    # spin decays from the release rate, and the wobble comes near the sleep threshold
    c = TopConstants.of(style, False)
    assert 8.0 <= traj.omega0 / (2 * math.pi) <= 30.0
    w_at_wobble = traj.spin_rate_at(traj.wobble_t)
    assert 0.6 * c.omega_c < w_at_wobble < 1.4 * c.omega_c
    # lying on a face at rest
    assert traj.rest_pose.theta == pytest.approx(math.pi / 2, abs=1e-6)


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from([SpinKind.VALID, SpinKind.UPSIDE_DOWN, SpinKind.HAND_TOUCH, SpinKind.NO_RELEASE]),
    preset=st.sampled_from(["wood", "israeli", "plastic"]),
)
def test_the_planned_letter_is_the_face_up_at_rest(seed: int, kind: SpinKind, preset: str) -> None:
    style = style_named(preset)
    plan = plan_spin(style, kind, seed, 170.0)
    traj = simulate_spin(style, plan)
    assert style.letters[up_face(traj.rest_pose)] is plan.letter


def test_bias_follows_the_old_wooden_dreidel() -> None:
    style = style_named("old_wood")
    counts: dict[str, int] = {}
    for seed in range(800):
        letter = plan_spin(style, SpinKind.VALID, seed, 170.0).letter
        counts[letter.value] = counts.get(letter.value, 0) + 1
    # 302/800 Nun and 109/800 Gimel in the published count; allow sampling noise (~3 sigma)
    assert 250 <= counts["nun"] <= 355
    assert 75 <= counts["gimel"] <= 145


def test_left_tray_slides_beyond_the_rim() -> None:
    style = style_named("wood")
    traj = simulate_spin(style, plan_spin(style, SpinKind.LEFT_TRAY, 5, 170.0))
    rest = traj.rest_pose
    assert math.hypot(rest.x, rest.y) > 200.0


def test_parse_kinds_names_the_choices() -> None:
    assert parse_kinds("valid, short") == [SpinKind.VALID, SpinKind.SHORT]
    with pytest.raises(ValueError, match="near_3s"):
        parse_kinds("valid,bogus")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 100_000), kind=st.sampled_from([SpinKind.NEAR_3S, SpinKind.WOBBLE_AT_ONCE]))
def test_the_hard_cases_stay_inside_their_band(seed: int, kind: SpinKind) -> None:
    style = random_style(seed % 97)
    traj = simulate_spin(style, plan_spin(style, kind, seed, 170.0))
    # near_3s plans its onset 2.78-3.22 s after release; the physics moves the onset by up to about
    # 0.2 s either way (seen: 2.69-3.35 s over 400 seeds), so the band is 3 s +- 0.4 s
    lo, hi = (2.6, 3.4) if kind is SpinKind.NEAR_3S else (0.0, 0.5)
    assert traj.wobble_t is not None and lo <= traj.wobble_t < hi
