"""The simulated people of the digital-twin table, as a part of :class:`TableSession`.

Simulated players spin when it is their turn (through the launcher when they nominated it). A
simulated judge (actor ``judge:sim``) settles what waits for a judge, and enters by hand a spin the
machine missed or could not see, by looking at the twin's ground truth as a person looks at the dreidel.
A human judge can step in at any time.
"""

from __future__ import annotations

import contextlib
from typing import Any

from controller.table_model import CommandError, Stage

#: a person who acted as judge within this many (real) seconds counts as present
HUMAN_JUDGE_ACTIVE_S = 300.0
#: the simulated judge then waits this many times longer before deciding for them
HUMAN_JUDGE_PATIENCE = 6.0


class SimulatedPeople:
    """Players and a judge for the simulated table (a part of ``TableSession``, not used alone)."""

    # ------------------------------------------------------------------------------- the simulated table

    def _simulated_people(self) -> None:
        """Simulated players spin when it is their turn; a simulated judge settles what waits for a judge."""
        world = self.world
        sim = self.config.sim
        now = self.clock.monotonic()
        if self.stage is Stage.FINISHED:
            if sim.new_table_after_s > 0 and self._finished_at is not None and now - self._finished_at >= sim.new_table_after_s:
                self._new_table("machine")
            return
        if self._awaiting is not None:
            delay = sim.judge_delay_s
            if self.wall_clock.wall() - self.human_judge_at < HUMAN_JUDGE_ACTIVE_S:
                delay *= HUMAN_JUDGE_PATIENCE  # a person is judging: give them the time to look
            if sim.judge_delay_s > 0 and now - self._awaiting.since >= delay:
                self._sim_judge_decides()
            return
        if self._manual_spin is not None:
            self._sim_judge_enters_manual(now)
            return
        if not sim.autoplay or bool(getattr(world, "busy", False)):
            return
        if now - self._last_settled < sim.pause_s:
            return
        player = self.expected_spinner()
        if player is None and self.stage is not Stage.CHOOSING_FIRST:
            return  # everybody is away
        if self.camera.ok and self._judge is None and self._judge_dirty:
            return  # the judge is about to be rebuilt
        nominee = self._nominees.get(player or "")
        if nominee == "launcher" and self.launcher is not None:
            with contextlib.suppress(CommandError):
                self.launch(f"player:{player}")
            return
        index = len(list(getattr(world, "truths", []) or []))
        world.launch()
        self._launched = (player, nominee, now)
        self._manual_spin = (player, nominee, now, index)
        self._last_settled = now

    def _truth(self, index: int | None = None) -> Any | None:
        truths = list(getattr(self.world, "truths", []) or [])
        if not truths:
            return None
        if index is not None:
            return truths[index] if 0 <= index < len(truths) else None
        return truths[-1]

    def _truth_near(self, release_t: float | None) -> Any | None:
        """The twin's spin whose release is nearest ``release_t`` (the latest spin when unknown)."""
        truths = list(getattr(self.world, "truths", []) or [])
        if not truths or release_t is None:
            return truths[-1] if truths else None
        return min(truths, key=lambda t: abs(float(getattr(t, "release_t", 0.0)) - float(release_t)))

    @staticmethod
    def _truth_bearing(truth: Any) -> float | None:
        """The twin's tip angle (counter-clockwise from +x, up = 90) as a seat bearing (clockwise from up)."""
        angle = getattr(truth, "tip_angle_deg", None) if truth is not None else None
        return None if angle is None else (90.0 - float(angle)) % 360.0

    def _sim_judge_decides(self) -> None:
        """The simulated judge looks at the dreidel (the twin's ground truth) and decides."""
        a = self._awaiting
        assert a is not None
        truth = self._truth_near(a.verdict.get("release_t"))
        try:
            if a.purpose == "first":
                bearing = self._truth_bearing(truth)
                seat = self._seat_for(bearing) if bearing is not None else None
                in_play = [p.name for p in self.state.players if p.in_play] if self.state else []
                self.command("first", {"player": seat or (in_play[0] if in_play else "")}, "judge:sim")
                return
            valid = bool(getattr(truth, "valid", False)) if truth is not None else False
            letter = getattr(truth, "letter", None) if truth is not None else None
            if valid and letter:
                # with the console's "teach the table this face" box left ticked, as a judge would leave it
                self.command("confirm", {"spin_id": a.spin_id, "letter": str(getattr(letter, "value", letter)),
                                         "teach": "yes"}, "judge:sim")
            else:
                reasons = list(getattr(truth, "reasons", []) or ["judge"]) if truth is not None else ["judge"]
                self.command("reject", {"spin_id": a.spin_id, "reason": ",".join(reasons)}, "judge:sim")
        except CommandError as e:
            self._record_fault("sim", f"simulated judge could not decide {a.spin_id}: {e}", False)
            self._awaiting = None

    def _sim_judge_enters_manual(self, now: float) -> None:
        """Without a camera the simulated judge watches the spin and enters it by hand."""
        assert self._manual_spin is not None
        player, nominee, started, index = self._manual_spin
        truth = self._truth(index)
        rest = getattr(truth, "rest_t", None) if truth is not None else None
        delay = self.config.sim.judge_delay_s or 1.0
        if truth is None or rest is None:
            if now - started > 60.0:  # the twin never produced the spin: try again
                self._manual_spin = None
            return
        machine = self.camera.ok and self._judge is not None
        # With a working judge the machine gets its chance first; a judge only steps in for a missed spin.
        wait = max(delay, 5.0) + 5.0 if machine else min(delay, 3.0)
        if now < float(rest) + wait or bool(getattr(self.world, "busy", False)):
            return
        self._manual_spin = None
        self._launched = None
        if machine:
            self._record_fault("judge", f"the spin judge gave no verdict for {player or 'the opening spin'}'s spin; "
                                        "the simulated judge entered it", False)
        try:
            if self.stage is Stage.CHOOSING_FIRST:
                bearing = self._truth_bearing(truth)
                seat = self._seat_for(bearing) if bearing is not None else None
                if seat is None and self.state is not None:
                    seat = self.state.players[0].name
                self.command("first", {"player": seat}, "judge:sim")
            elif bool(getattr(truth, "valid", False)) and getattr(truth, "letter", None):
                letter = truth.letter
                self.command("spin", {"letter": str(getattr(letter, "value", letter)), "spun_by": nominee or ""},
                             "judge:sim")
            else:
                self.command("respin", {"reason": ",".join(getattr(truth, "reasons", []) or ["judge"])}, "judge:sim")
        except CommandError as e:
            self._record_fault("sim", f"simulated judge could not enter the spin: {e}", False)
