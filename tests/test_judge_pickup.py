"""A resting dreidel carried out of the tray is a pick-up, not a spin (no verdict, and no number used up).

Held-out twin 55002 and altsim 820005 (fifth session): a hand took the judged dreidel from where it lay and
carried it out of the tray; the tracker did not see the hand (a pale hand mostly outside the tray), saw the
dreidel in its fingers on its own, moving, and judged a spin that left the tray.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from controller.judge import PhaseChange, TablePhase
from tests.test_judge import run
from vision.synthetic import SceneRenderer, SceneStyle, ScriptedSpin, _hand

SPIN = ScriptedSpin(release_t=1.5, stable_s=3.6, wobble_s=0.9, pickup=False)
CARRY_T = SPIN.rest_t + 1.5  # the hand covers the lying dreidel for 0.4 s, then it is carried off
CARRY_PX_S = 700.0  # to the right, out of the picture in under half a second


class CarriedAwayScene(SceneRenderer):
    """The dreidel lies at rest; a hand covers it, then it slides out of the picture with no hand drawn
    (the hand the tracker missed)."""

    def _draw_spin(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        if sp != SPIN:
            super()._draw_spin(img, sp, t)
            return
        if CARRY_T - 0.4 <= t < CARRY_T:
            return  # under the hand
        if t >= CARRY_T:
            sp = replace(sp, x=sp.x + CARRY_PX_S * (t - CARRY_T))
        super()._draw_spin(img, sp, t)

    def _hands(self, img: np.ndarray, sp: ScriptedSpin, t: float) -> None:
        super()._hands(img, sp, t)
        if sp == SPIN and CARRY_T - 0.4 <= t < CARRY_T:
            a = math.radians(sp.slide_deg)
            rx = sp.x + sp.drift[0] * (sp.fall_t - sp.release_t) + sp.slide * math.cos(a)
            ry = sp.y + sp.drift[1] * (sp.fall_t - sp.release_t) + sp.slide * math.sin(a)
            _hand(img, (rx, ry + 10), self.style)


def test_a_resting_dreidel_carried_out_of_the_tray_is_no_spin() -> None:
    verdicts, events = run([SPIN], CARRY_T + 2.0, scene=CarriedAwayScene([SPIN], SceneStyle(), seed=7))
    assert [v.spin_id for v in verdicts] == [1]  # the spin itself, and nothing for the pick-up
    assert verdicts[0].valid
    phases = [(e.t, e.phase) for e in events if isinstance(e, PhaseChange)]
    last_t, last_phase = phases[-1]
    assert last_phase in (TablePhase.READY, TablePhase.HAND) and last_t > CARRY_T


def test_the_next_spin_after_a_pick_up_takes_the_next_number() -> None:
    second = ScriptedSpin(release_t=CARRY_T + 3.5, stable_s=3.6, wobble_s=0.9, x=300.0, y=250.0)
    scene = CarriedAwayScene([SPIN, second], SceneStyle(), seed=7)
    verdicts, _ = run([SPIN, second], second.rest_t + 2.0, scene=scene)
    assert [v.spin_id for v in verdicts] == [1, 2]
    assert verdicts[1].release_t is not None and abs(verdicts[1].release_t - second.release_t) < 0.1
