"""The live table: camera and IMU feed the judge, verdicts feed the rules engine through the event log.

One :class:`TableSession` runs one physical (or simulated) table all day::

    camera frames --+
    IMU samples ----+--> spin judge --> verdict --> event log (durable) --> rules state --> display (SSE),
                                                                                        LED, buzzer, speech
    judge console and buttons ----------------------> commands --^

The session is split by capability: this module keeps the loop, the log, the verdicts and what the web
reads; :mod:`controller.table_commands` holds the judge's commands, :mod:`controller.sim_people` the
simulated players and judge of the digital-twin table, and :mod:`controller.table_model` the shared
vocabulary (``Stage``, ``CommandError``, ``Awaiting``, ``Fault``, ``Calibration``, ``JudgeSetup``).

Decisions, where the issue leaves room:

- **The log first.** Every change is checked against the rules engine, appended to the event log
  (durable on return) and only then shown. So a spin that was shown is never lost, and a restart
  replays the log to the same state. A command the rules refuse changes nothing and logs nothing.
- **Notes.** What is not a rules event (verdict details, faults, logins, nominations, the clock's pauses,
  the dreidel in use, spin-off letters collected so far) is logged as a ``note:<kind>`` event, so a
  restart also restores a verdict still waiting for a judge, who spins for whom, and a paused clock.
- **Verdicts.** A valid verdict with a letter becomes a ``spin``; an invalid one an ``invalid_spin``
  (the same spinner re-spins; the reason is shown and spoken); "judge needed" waits for a judge, who
  confirms it (with the machine's letter or another) or rejects it (a re-spin).
- **First spinner.** When the configuration names none, the table opens and waits for an opening spin:
  the seat the dreidel's tip points at (on the calibrated seat directions) spins first. Without a
  reading a judge picks the seat.
- **Degraded modes.** No camera (or a failing one): a judge enters spins by hand, and the camera is
  retried until it answers. No IMU: the judge runs camera-only. A banner says what is missing.
- **Ante clock.** Each raise it reports is a ``raise_ante`` by the actor ``clock``. After a restart a
  running clock starts a full interval again (the time the table was down is not counted against the
  players), and a paused clock stays paused with the time it had left.
- **Accessible spinning.** A player may nominate the launcher or a person. The spin button, the
  assistive switch or the judge console then runs the launcher for the current spinner, and the spin
  is judged like any other and logged with ``spun_by``.
- **The simulated table** (the digital twin): simulated players spin when it is their turn, through
  the launcher when they nominated it; a simulated judge (actor ``judge:sim``) settles "judge needed"
  after a delay by looking at the twin's ground truth, as a person would look at the dreidel; a human
  judge can step in at any time.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sys
import threading
import traceback
from collections import deque
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.anteclock import AnteClock
from controller.clock import Clock, PacedClock, SystemClock
from controller.config import Config
from controller.devices import CameraSlot, ImuSlot
from controller.event_words import describe_event
from controller.eventlog import EventLog, LoggedEvent
from controller.evidence_store import EvidenceStore
from controller.fairness import FairnessReport, fairness_by_dreidel
from controller.rules.errors import RuleError
from controller.rules.events import (
    Event,
    InvalidSpin,
    OpenTable,
    RaiseAnte,
    SetFirst,
    Spin,
    SpinOff,
    VoidSpin,
    event_to_json,
    parse_event,
)
from controller.rules.letters import Letter
from controller.rules.table import TableConfig, TableState, apply, state_to_json
from controller.sim_people import SimulatedPeople
from controller.speech import Speaker
from controller.table_commands import TableCommands
from controller.table_model import (
    BUSY_PHASES,
    Awaiting,
    Calibration,
    CommandError,
    Fault,
    JudgeBuilder,
    JudgeSetup,
    Stage,
    even_seat_bearings,
    verdict_json,
)
from controller.table_ports import (
    IndicatorPort,
    JudgePort,
    LauncherPort,
    VerdictView,
    is_verdict,
    near_rule,
    phase_of,
    reason_text,
)
from web.sse import SseBroker

#: the same fault is recorded again only after this many seconds
FAULT_REPEAT_S = 60.0


class TableSession(TableCommands, SimulatedPeople):
    """One table, live. Thread-safe: the loop thread and web request threads share one lock."""

    def __init__(
        self,
        config: Config,
        log: EventLog,
        clock: Clock,
        *,
        data_dir: Path,
        camera: CameraSlot,
        imu: ImuSlot,
        judge_builder: JudgeBuilder | None,
        broker: SseBroker | None = None,
        launcher: LauncherPort | None = None,
        indicator: IndicatorPort | None = None,
        speaker: Speaker | None = None,
        world: Any | None = None,
        speed: float = 1.0,
        wall_clock: Clock | None = None,
    ) -> None:
        self.config = config
        self.log = log
        self.clock = clock
        self.data_dir = Path(data_dir)
        self.camera = camera
        self.imu = imu
        self.broker = broker or SseBroker()
        self.launcher = launcher
        self.indicator = indicator
        self.speaker = speaker
        self.world = world
        self.speed = speed
        #: the time people read (fault times): real time even when the table clock runs faster
        self.wall_clock: Clock = wall_clock or SystemClock()
        #: when a person last acted as judge (real time): the simulated judge then leaves decisions to them
        self.human_judge_at = float("-inf")
        self._judge_builder = judge_builder
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rules_config = TableConfig(starting_stack=config.table.stack, ante=config.table.ante)
        self.evidence_dir = self.data_dir / "evidence"
        self.evidence = EvidenceStore(self.evidence_dir, on_error=lambda text: self._fault_locked("evidence", text))
        self.enroll_dir = self.data_dir / "enroll"
        self._faults: deque[Fault] = deque(maxlen=200)
        self._fault_seen: dict[tuple[str, str], float] = {}
        self._recent: deque[dict[str, Any]] = deque(maxlen=30)
        self._judge: JudgePort | None = None
        self._judge_dirty = True
        #: (spin id, resting picture) of the last verdict whose letter went to a judge (``_teach_from_ruling``)
        self._rest_picture: tuple[str, Any] | None = None
        #: the taught stills changed: the running judge gets a new letter reader (see ``_reteach_judge``)
        self._judge_retaught = False
        #: the generic letter reader that checks a taught still (loaded at the first one: ``_generic_reader``)
        self._enroll_reader: Any = None
        self._judge_imu = False
        self._spin_phase = "ready"
        self._version = 0
        self._published = -1
        self._led = ""
        self._message_note = ""
        self._launched: tuple[str | None, str | None, float] | None = None  # player, spun_by, when
        self._manual_spin: tuple[str | None, str | None, float, int] | None = None  # sim, camera down
        self._last_settled = clock.monotonic()
        self._finished_at: float | None = None
        self.ante_clock = AnteClock(config.ante_clock.interval_s, config.ante_clock.step, clock)
        self.calibration = self._load_calibration()
        # restored from the log by _restore()
        self.table = config.table.name
        self.state: TableState | None = None
        self._first_chosen = False
        self._awaiting: Awaiting | None = None
        self._nominees: dict[str, str] = dict(config.table.spun_by)
        self.dreidel = config.table.dreidel
        self._spin_off_letters: dict[str, Letter] = {}
        self._spin_counter = 0
        #: verdicts of spins released before this (table clock) were settled by hand already
        self._ignore_before = float("-inf")
        self._verdict_info: dict[str, dict[str, Any]] = {}
        self.camera._on_change = self._device_changed
        self.imu._on_change = self._device_changed
        self._restore()

    # ------------------------------------------------------------------------------- start-up

    def _table_ids(self) -> list[str]:
        base = self.config.table.name
        pattern = re.compile(re.escape(base) + r"(?:-(\d+))?$")
        found = []
        for t in self.log.tables():
            m = pattern.match(t)
            if m:
                found.append((int(m.group(1) or 1), t))
        return [t for _, t in sorted(found)]

    def _restore(self) -> None:
        """Rebuild the table from the event log (or open a new one)."""
        tables = self._table_ids()
        if not tables:
            self._open_table(self.config.table.name)
            return
        self.table = tables[-1]
        self._replay_log()
        if self.state is None:
            self._open_table(self.table)

    def _replay_log(self) -> None:
        state: TableState | None = None
        first_chosen = False
        awaiting: Awaiting | None = None
        clock_note: dict[str, Any] | None = None
        spin_off_letters: dict[str, Letter] = {}
        resolved: set[str] = set()
        spins = 0
        for e in self.log.events(self.table):
            if e.spin_id:
                m = re.search(r"-(\d+)$", e.spin_id)
                spins = max(spins, int(m.group(1)) if m else 0)
            if not e.is_note:
                event = parse_event(e.payload)
                state = apply(state, event, self.rules_config)
                spin_off_letters = {}
                if e.spin_id:
                    resolved.add(e.spin_id)
                if isinstance(event, OpenTable) and event.first is not None or isinstance(event, SetFirst | Spin):
                    first_chosen = True
                self._remember_rules_event(e, event, state)
                continue
            kind = e.name[len("note:"):]
            p = e.payload
            if kind == "verdict" and e.spin_id:
                self._verdict_info[e.spin_id] = dict(p.get("verdict") or {})
                if p.get("needs_judge"):
                    awaiting = Awaiting(e.spin_id, p.get("player"), p.get("spun_by"), str(p.get("purpose", "spin")),
                                        dict(p.get("verdict", {})), self.clock.monotonic())
            elif kind in ("resolved", "spin_off_letter") and e.spin_id:
                resolved.add(e.spin_id)
                if kind == "spin_off_letter":
                    spin_off_letters[str(p["player"])] = Letter.parse(str(p["letter"]))
            elif kind == "nominate":
                who = str(p.get("spun_by") or "")
                if who:
                    self._nominees[str(p["player"])] = who
                else:
                    self._nominees.pop(str(p["player"]), None)
            elif kind == "dreidel":
                self.dreidel = str(p["dreidel"])
            elif kind == "clock":
                clock_note = dict(p)
            elif kind == "fault":
                self._faults.append(Fault(e.t, str(p.get("device")), str(p.get("message")), bool(p.get("recovered"))))
        if awaiting is not None and awaiting.spin_id in resolved:
            awaiting = None
        self.state = state
        self._first_chosen = first_chosen or bool(self.config.table.first)
        self._awaiting = awaiting
        self._spin_off_letters = spin_off_letters if state is not None and state.spin_off else {}
        self._spin_counter = spins
        if state is None:
            return
        if state.finished:
            self.ante_clock.stop()
            self._finished_at = self.clock.monotonic()
            return
        if clock_note is not None and clock_note.get("action") == "pause":
            self.ante_clock.start_paused(clock_note.get("remaining_s"))
        elif self.config.ante_clock.autostart or (clock_note and clock_note.get("action") in ("start", "resume")):
            self.ante_clock.start()  # a full interval: the time the table was down is not counted

    def _remember_rules_event(self, e: LoggedEvent, event: Event, state: TableState) -> None:
        """Keep the recent spins for the judge page."""
        if isinstance(event, Spin | InvalidSpin):
            info = self._verdict_info.get(e.spin_id or "", {})
            entry = {"seq": e.seq, "t": e.t, "spin_id": e.spin_id, "event": event.KIND, "actor": e.actor,
                     "stable_s": info.get("stable_s"), "reason_text": reason_text(str(event.reason).split(","))
                     if isinstance(event, InvalidSpin) else "",
                     **{k: v for k, v in e.payload.items() if k != "event"}}
            self._recent.appendleft(entry)

    def _open_table(self, name: str) -> None:
        t = self.config.table
        first = t.first or None
        event = OpenTable(players=t.players, stack=t.stack, ante=t.ante, first=first)
        self.table = name
        self.state = None
        self._awaiting = None
        self._spin_off_letters = {}
        self._recent.clear()
        self._finished_at = None
        self._first_chosen = first is not None
        self._commit(event, "machine")
        self._note("dreidel", {"dreidel": self.dreidel}, "machine")
        if self.config.ante_clock.autostart:
            self.ante_clock.start()
            self._note("clock", {"action": "start", "remaining_s": self.ante_clock.interval_s}, "clock")
        else:
            self.ante_clock.start_paused()
            self._note("clock", {"action": "pause", "remaining_s": self.ante_clock.interval_s}, "clock")
        self._say(f"New table. {'Spin to choose the first spinner.' if first is None else first + ' spins first.'}")

    def _load_calibration(self) -> Calibration:
        path = self.data_dir / "calibration.json"
        seats: dict[str, float] = {}
        tray = None
        if path.is_file():
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
                seats = {str(k): float(v) for k, v in (raw.get("seats") or {}).items()}
                tray = tuple(float(x) for x in raw["tray"]) if raw.get("tray") else None
            except (ValueError, KeyError, TypeError) as e:
                self._faults.append(Fault(self.wall_clock.wall(), "calibration", f"{path} ignored: {e}", False))
        if not seats and self.world is not None:
            seats = even_seat_bearings(self.config.table.players)
        return Calibration(tray if tray and len(tray) == 3 else None, seats)  # type: ignore[arg-type]

    # ------------------------------------------------------------------------------- log and state

    def _commit(self, event: Event, actor: str, spin_id: str | None = None) -> TableState:
        """Check ``event`` against the rules, append it durably, then make it the state."""
        try:
            new = apply(self.state, event, self.rules_config)
        except RuleError as e:
            raise CommandError(str(e)) from None
        logged = self.log.append(self.table, event_to_json(event), actor, spin_id=spin_id)
        old = self.state
        self.state = new
        self._remember_rules_event(logged, event, new)
        if isinstance(event, SetFirst | Spin) or (isinstance(event, OpenTable) and event.first):
            self._first_chosen = True
        if isinstance(event, Spin | InvalidSpin | SpinOff | VoidSpin):
            self._last_settled = self.clock.monotonic()
        if new.spin_off is None or (old is not None and old.spin_off != new.spin_off):
            self._spin_off_letters = {}
        if new.finished and (old is None or not old.finished):
            self.ante_clock.stop()
            self._note("clock", {"action": "stop", "remaining_s": None}, "clock")
            self._finished_at = self.clock.monotonic()
            self._show_led("idle")
            self._say(f"{new.winner} wins the table!")
        self._changed()
        return new

    def _note(self, kind: str, data: Mapping[str, Any], actor: str, spin_id: str | None = None) -> None:
        if kind == "verdict" and spin_id:
            self._verdict_info[spin_id] = dict(data.get("verdict") or {})
        self.log.append(self.table, {"event": f"note:{kind}", **data}, actor, spin_id=spin_id)

    def _changed(self) -> None:
        self._version += 1

    def _say(self, text: str) -> None:
        if self.speaker is not None:
            self.speaker.say(text)

    def _show_led(self, state: str) -> None:
        if state != self._led:
            self._led = state
            if self.indicator is not None:
                try:
                    self.indicator.show(state)
                except Exception as e:  # noqa: BLE001 - a broken LED never stops the table
                    self._record_fault("indicator", f"status LED failed: {e}", False)

    def _device_changed(self, device: str, message: str, recovered: bool) -> None:
        with self._lock:
            self._record_fault(device, message, recovered)
            if device == "camera":
                self._judge_dirty = True  # a new judge learns the empty tray again
                self._show_led("ready" if recovered else "fault")
                if not recovered and self._judge is not None:
                    with contextlib.suppress(Exception):
                        self._handle_judge_events(self._judge.camera_failed(self.clock.monotonic()))
            if device == "imu":
                self._judge_dirty = True

    def _fault_locked(self, device: str, message: str) -> None:
        with self._lock:
            self._record_fault(device, message, False)

    def _record_fault(self, device: str, message: str, recovered: bool) -> None:
        now = self.wall_clock.wall()
        last = self._fault_seen.get((device, message))
        if last is not None and now - last < FAULT_REPEAT_S:
            return  # the same trouble again (every frame, say): it is already on the judge page
        self._fault_seen[(device, message)] = now
        fault = Fault(now, device, message, recovered)
        self._faults.append(fault)
        with contextlib.suppress(Exception):
            self._note("fault", {"device": device, "message": message, "recovered": recovered}, "machine")
        self._changed()

    # ------------------------------------------------------------------------------- who spins

    @property
    def stage(self) -> Stage:
        """What the table waits for."""
        s = self.state
        if s is None or s.finished:
            return Stage.FINISHED
        if s.spin_off is not None:
            return Stage.SPIN_OFF
        if not self._first_chosen and s.spins == 0:
            return Stage.CHOOSING_FIRST
        return Stage.PLAYING

    def expected_spinner(self) -> str | None:
        """Who spins next: the current spinner, the next tied player of a spin-off, or None."""
        s = self.state
        stage = self.stage
        if s is None or stage is Stage.FINISHED:
            return None
        if stage is Stage.SPIN_OFF:
            for name in s.spin_off or ():
                if name not in self._spin_off_letters:
                    return name
            return None
        if stage is Stage.CHOOSING_FIRST:
            return None
        return s.current

    def _spun_by_for(self, player: str | None) -> str | None:
        if self._launched is not None:
            who, by, _ = self._launched
            if who == player:
                return by
        nominee = self._nominees.get(player or "")
        return nominee if nominee and nominee != "launcher" else None

    def _next_spin_id(self) -> str:
        self._spin_counter += 1
        return f"{self.table}-{self._spin_counter:04d}"

    # ------------------------------------------------------------------------------- the loop

    def start(self) -> None:
        """Run the loop in a background thread."""
        self._thread = threading.Thread(target=self.run_forever, name="table", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the loop and release the devices."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self.camera.close()
        self.imu.close()
        self.evidence.close()
        if self.speaker is not None:
            self.speaker.close(wait=False)

    def run_forever(self) -> None:
        """Step until :meth:`stop`. Paces itself to the camera's frame rate on the injected clock.

        On the simulated table's :class:`PacedClock` these waits (the camera's for its next frame, the
        idle poll's without one) are the only thing that moves simulated time, so the twin never runs
        ahead of the judge: every frame is judged, and a slow host makes a slower table, not a blind one.
        """
        idle = 0.02 * self.speed  # 20 ms of real time, on the (possibly scaled) table clock
        while not self._stop.is_set():
            if not self.step():
                # No camera frame (the camera waits for its next frame itself): poll at 50 Hz.
                self.clock.sleep(idle)

    def step(self) -> bool:
        """One turn of the loop: devices, judge, clock, simulated people, display. Never raises.

        Returns True when a camera frame was judged.
        """
        try:
            return self._step()
        except Exception as e:  # noqa: BLE001 - nothing may crash the table
            traceback.print_exc(file=sys.stderr)
            with self._lock:
                self._record_fault("table", f"internal error (the table carries on): {type(e).__name__}: {e}", False)
                self._publish()
            return False

    def _step(self) -> bool:
        self.camera.poll()
        self.imu.poll()
        if self._judge_dirty and self._spin_phase not in BUSY_PHASES:
            self._rebuild_judge()
        elif self._judge_retaught and self._spin_phase not in BUSY_PHASES:
            self._reteach_judge()
        events: list[Any] = []
        frame = self.camera.read()
        judge = self._judge
        batch = self.imu.read()
        try:
            if frame is not None and judge is not None:
                events += judge.feed_frame(frame)
            if batch is not None and judge is not None and self._judge_imu and (batch.samples or batch.gaps):
                events += judge.feed_imu(batch)
        except Exception as e:  # noqa: BLE001 - a judge that trips is replaced, the table goes on
            traceback.print_exc(file=sys.stderr)
            with self._lock:
                self._record_fault("judge", f"the spin judge failed ({type(e).__name__}: {e}); starting a new one", False)
                self._judge = None
                self._judge_dirty = True
                self._spin_phase = "ready"
        with self._lock:
            if events:
                self._handle_judge_events(events)
            self._tick_clock()
            if self.world is not None:
                self._simulated_people()
            self._publish()
        return frame is not None

    def _judge_setup(self) -> JudgeSetup:
        enroll = self.enroll_dir if any(self.enroll_dir.glob("*.png")) else None
        source = self.camera.source
        size = tuple(source.size) if source is not None and getattr(source, "size", None) else None
        return JudgeSetup(imu=self.imu.ok, enroll_dir=enroll, tray=self.calibration.tray,
                          frame_size=size)  # type: ignore[arg-type]

    def _reteach_judge(self) -> None:
        """Give the running judge the letter reader of the taught stills as they are now.

        Why not a new judge: a new judge learns the empty tray again from the pictures it sees first, and
        a dreidel is taught lying in the tray. Learned into the "empty" tray, it hid the next spins: after
        one taught still, a simulated table missed about one spin in five (H56). So the judge that knows
        the tray keeps it; only its reader changes (built as a new judge would build it).
        """
        self._judge_retaught = False
        judge = self._judge
        if judge is None or self._judge_builder is None or not hasattr(judge, "recognizer"):
            self._judge_dirty = True  # nothing to keep (or a judge without a reader): build one
            return
        try:
            fresh = self._judge_builder(self._judge_setup())
        except Exception as e:  # noqa: BLE001 - a reader that cannot be built leaves the old one reading
            with self._lock:
                self._record_fault("judge", f"the taught stills could not be used ({e}); reading as before", False)
            return
        judge.recognizer = getattr(fresh, "recognizer", judge.recognizer)

    def _rebuild_judge(self) -> None:
        self._judge_dirty = False
        self._judge_retaught = False
        if self._judge_builder is None or not self.camera.ok:
            self._judge = None
            return
        setup = self._judge_setup()
        try:
            self._judge = self._judge_builder(setup)
            self._judge_imu = setup.imu
            self._spin_phase = "ready"
        except Exception as e:  # noqa: BLE001 - a judge that cannot start degrades to manual entry
            self._judge = None
            with self._lock:
                self._record_fault("judge", f"the spin judge could not start ({e}); enter spins by hand", False)

    def _tick_clock(self) -> None:
        due = self.ante_clock.poll()
        if due and self.state is not None and not self.state.finished:
            by = due * self.ante_clock.step
            with contextlib.suppress(CommandError):
                self._commit(RaiseAnte(by=by), "clock")
                self._say(f"The ante rises to {self.state.ante_after_turn} after this turn.")

    # ------------------------------------------------------------------------------- verdicts

    def _handle_judge_events(self, events: list[Any]) -> None:
        for ev in events:
            if is_verdict(ev):
                self._on_verdict(VerdictView.from_any(ev))
                continue
            phase = phase_of(ev)
            if phase and phase != self._spin_phase:
                self._spin_phase = phase
                self._changed()
                if phase == "spinning":
                    self._show_led("spinning")
                elif phase == "ready" and self._awaiting is None and self.stage is not Stage.FINISHED:
                    self._show_led("ready")

    def _on_verdict(self, v: VerdictView) -> None:
        if v.release_t is not None and v.release_t < self._ignore_before:
            return  # a judge already entered this spin by hand; counting it again would be wrong
        spin_id = self._next_spin_id()
        stage = self.stage
        player = self.expected_spinner()
        spun_by = self._spun_by_for(player)
        self._launched = None
        self._manual_spin = None
        self._store_evidence(spin_id, v)
        summary = {"spin_id": spin_id, "player": player, "spun_by": spun_by, "verdict": verdict_json(v),
                   "dreidel": self.dreidel}
        if stage is Stage.FINISHED or self._awaiting is not None:
            # A spin nobody asked for (after the win, or while a judge decides another): keep the evidence.
            self._note("verdict", {**summary, "purpose": "ignored", "needs_judge": False}, "machine", spin_id)
            return
        if stage is Stage.CHOOSING_FIRST:
            self._opening_spin(spin_id, v, summary)
            return
        if v.needs_judge:
            self._wait_for_judge(spin_id, player, spun_by, "spin_off" if stage is Stage.SPIN_OFF else "spin", v, summary)
            return
        self._note("verdict", {**summary, "purpose": stage.value, "needs_judge": False}, "machine", spin_id)
        if not v.valid and stage is Stage.SPIN_OFF:
            # A spin-off spin that does not count: the same tied player spins again (nothing to log as rules).
            self._last_settled = self.clock.monotonic()
            self._message_note = f"{player}: spin again"
            self._say(f"{player}, spin again: {reason_text(v.reasons)}.")
            self._show_led("respin")
            self._changed()
            return
        if not v.valid:
            self._commit(InvalidSpin(reason=",".join(v.reasons) or "invalid", player=player, spin_id=spin_id),
                         "machine", spin_id)
            self._message_note = f"{player or 'Spinner'}: spin again"
            self._say(f"{player or 'Spinner'}, spin again: {reason_text(v.reasons)}.")
            self._show_led("respin")
            return
        assert v.letter is not None
        self._settle_letter(spin_id, player, spun_by, v.letter, "machine")

    def _settle_letter(self, spin_id: str, player: str | None, spun_by: str | None, letter: Letter, actor: str) -> None:
        """A valid spin's letter: a table spin, or one letter of a spin-off round."""
        if self.stage is Stage.SPIN_OFF:
            if player is None:
                raise CommandError("no tied player is left to spin in this spin-off round")
            self._spin_off_letters[player] = letter
            self._note("spin_off_letter", {"player": player, "letter": letter.value}, actor, spin_id)
            self._changed()
            state = self.state
            assert state is not None and state.spin_off is not None
            if all(p in self._spin_off_letters for p in state.spin_off):
                letters = dict(self._spin_off_letters)
                self._commit(SpinOff(letters=letters), actor)
            self._say(f"Spin-off: {player}, {letter.value}.")
            return
        try:
            self._commit(Spin(letter=letter, player=player, spun_by=spun_by, spin_id=spin_id), actor, spin_id)
        except CommandError as e:
            if actor != "machine":
                raise
            # The rules refused the machine's spin (the turn changed under it): a judge decides.
            v = {"letter": letter.value, "hebrew": letter.hebrew, "valid": True, "reasons": ["rules"],
                 "reason_text": str(e), "stable_s": None, "confidence": 0.0, "needs_judge": True}
            self._awaiting = Awaiting(spin_id, player, spun_by, "spin", v, self.clock.monotonic())
            self._note("verdict", {"spin_id": spin_id, "player": player, "spun_by": spun_by, "verdict": v,
                                   "purpose": "spin", "needs_judge": True, "dreidel": self.dreidel}, "machine", spin_id)
            self._changed()
            return
        self._message_note = ""
        self._show_led("valid")
        last = self.state.last_spin if self.state else None
        if last is not None:
            self._say(self._spin_phrase(last.player, letter, last.stack_change))

    @staticmethod
    def _spin_phrase(player: str, letter: Letter, change: int) -> str:
        rule = letter.plays_as
        if rule is Letter.NUN:
            effect = "nothing"
        elif rule is Letter.SHIN:
            effect = f"puts in {-change}"
        else:
            effect = f"takes {change}"
        return f"{player}, {letter.value}: {effect}."

    def _wait_for_judge(self, spin_id: str, player: str | None, spun_by: str | None, purpose: str,
                        v: VerdictView, summary: dict[str, Any]) -> None:
        self._awaiting = Awaiting(spin_id, player, spun_by, purpose, verdict_json(v), self.clock.monotonic())
        self._note("verdict", {**summary, "purpose": purpose, "needs_judge": True}, "machine", spin_id)
        self._show_led("judge_needed")
        self._say("Judge needed.")
        self._changed()

    def _opening_spin(self, spin_id: str, v: VerdictView, summary: dict[str, Any]) -> None:
        bearing = v.seat_bearing_deg if "left_tray" not in v.reasons else None
        seat = self._seat_for(bearing) if bearing is not None else None
        if seat is None:
            reason = "tip direction not read" if self.calibration.seats else "seat directions not calibrated"
            v2 = replace(v, needs_judge=True, reasons=v.reasons + ("tip_unread",))
            summary = {**summary, "verdict": {**verdict_json(v2), "reason_text": reason}}
            self._wait_for_judge(spin_id, None, None, "first", v2, summary)
            return
        self._note("verdict", {**summary, "purpose": "first", "needs_judge": False, "bearing": round(bearing, 1)},
                   "machine", spin_id)
        self._commit(SetFirst(seat), "machine", spin_id)
        self._say(f"The dreidel points at {seat}. {seat} spins first.")

    def _seat_for(self, bearing: float) -> str | None:
        seats = {p: b for p, b in self.calibration.seats.items() if self.state and p in self.state.names()
                 and self.state.player(p).in_play}
        if not seats:
            return None
        # the nearest seat direction, going round the circle
        return min(seats, key=lambda p: abs((seats[p] - bearing + 180.0) % 360.0 - 180.0))

    def _store_evidence(self, spin_id: str, v: VerdictView) -> None:
        if v.raw_evidence is not None:
            self.evidence.save(spin_id, v.raw_evidence)
            rest = getattr(v.raw_evidence, "rest_image", None)
            # the last unread letter's resting picture, at hand for the ruling (its file is written later)
            self._rest_picture = (spin_id, rest) if rest is not None else None
        if not v.evidence:
            return
        target = self.evidence_dir / spin_id
        try:
            target.mkdir(parents=True, exist_ok=True)
            for path in v.evidence:
                shutil.copy2(path, target / path.name)
        except OSError as e:
            self._record_fault("evidence", f"evidence of {spin_id} not saved: {e}", False)

    def evidence_files(self, spin_id: str) -> list[str]:
        """The names of a spin's evidence files."""
        folder = self.evidence_dir / spin_id
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", spin_id) or not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if p.is_file())

    # ------------------------------------------------------------------------------- what the web reads

    def note_login(self, actor: str, ok: bool, addr: str) -> None:
        """Log a judge's login (or a failed attempt) in the log of who did what."""
        with self._lock:
            self._note("login", {"ok": ok, "addr": addr}, actor if ok else "machine")
            if ok:
                self.human_judge_at = self.wall_clock.wall()

    def _banner(self) -> str | None:
        parts = []
        if not self.camera.ok:
            why = "no camera" if not self.camera.configured else "camera not working"
            parts.append(f"{why}: a judge enters spins by hand")
        elif self._judge is None and not self._judge_dirty:
            parts.append("no spin judge: a judge enters spins by hand")
        if not self.imu.ok:
            why = "no IMU" if not self.imu.configured else "IMU not answering"
            parts.append(f"{why}: judging by camera only")
        return "; ".join(parts) or None

    def display_phase(self) -> str:
        """The phase shown on the display."""
        stage = self.stage
        if stage is Stage.FINISHED:
            return "finished"
        if self._awaiting is not None:
            return "judge_needed"
        if not self.camera.ok or self._judge is None:
            return "spinning" if self._manual_spin is not None else "manual"
        return self._spin_phase or "ready"

    def _message(self) -> str:
        s = self.state
        stage = self.stage
        if s is None:
            return "Opening the table"
        if stage is Stage.FINISHED:
            prize = f" Prize: {self.config.table.prize}." if self.config.table.prize else ""
            return f"{s.winner} wins the table!{prize}"
        if self._awaiting is not None:
            a = self._awaiting
            if a.verdict.get("close_call"):
                # the machine's "too short" or "valid" is only its suggestion: say what is in doubt
                return "Judge needed: a close call, near 3 s"
            return f"Judge needed: {a.verdict.get('reason_text') or 'the machine is unsure'}"
        if stage is Stage.CHOOSING_FIRST:
            if not self.camera.ok or self._judge is None or not self.calibration.seats:
                return "A judge picks the first spinner"
            return "Spin the dreidel: its tip points at the first spinner"
        if stage is Stage.SPIN_OFF:
            return f"Spin-off: {' vs '.join(s.spin_off or ())} — {self.expected_spinner()} to spin"
        if s.current is None:
            return "Everybody still in is away"
        if self._message_note:
            return self._message_note
        who = self._nominees.get(s.current)
        if self._spin_phase in ("spinning", "wobbling", "falling"):
            # a spin is under way: asking for the button now reads as "spin again" (H56, at 800x480)
            by = " (the launcher)" if who == "launcher" else (f" ({who} for them)" if who else "")
            return f"{s.current} is spinning{by}"
        if who == "launcher":
            return f"{s.current}: press the button for the launcher"
        if who:
            return f"{s.current} to spin — {who} spins for them"
        return f"{s.current} to spin"

    def snapshot(self) -> dict[str, Any]:
        """Everything the display shows: the replay output plus phase, clock, health and more."""
        with self._lock:
            s = self.state
            base: dict[str, Any] = state_to_json(s) if s is not None else {
                "players": [], "pot": 0, "ante": self.config.table.ante, "next": None, "winner": None,
                "spins": 0, "pending": None}
            current = self.expected_spinner()
            seats = []
            if s is not None:
                for i, p in enumerate(s.players):
                    seats.append({"seat": i + 1, "name": p.name, "stack": p.stack, "status": p.status.value,
                                  "place": p.place, "current": p.name == current, "wild_card": p.wild_card,
                                  "spun_by": self._nominees.get(p.name),
                                  "spin_off_letter": (self._spin_off_letters[p.name].value
                                                      if p.name in self._spin_off_letters else None)})
            last = s.last_spin if s is not None else None
            last_json = None
            if last is not None:
                last_json = {"number": last.number, "player": last.player, "letter": last.letter.value,
                             "hebrew": last.letter.hebrew, "spun_by": last.spun_by, "spin_id": last.spin_id,
                             "ante": last.ante, "pot_before": last.pot_before, "pot_after": last.pot_after,
                             "stack_change": last.stack_change, "all_ante": last.all_ante,
                             "knocked_out": list(last.knocked_out), "stable_s": self._stable_of(last.spin_id),
                             "evidence": self.evidence_files(last.spin_id) if last.spin_id else []}
            recent = list(self._recent)[:12]
            return {
                **base,
                "table": self.table,
                "version": self._version,
                "stage": self.stage.value,
                "phase": self.display_phase(),
                "spin_phase": self._spin_phase,
                "message": self._message(),
                "banner": self._banner(),
                "seats": seats,
                "spinner": current,
                "pending_raise": s.pending_raise if s else 0,
                "ante_after_turn": s.ante_after_turn if s else self.config.table.ante,
                "clock": {**self.ante_clock.view().to_json(), "speed": self.sim_rate()},
                "last_spin": last_json,
                "recent": recent,
                "invalid_spins": s.invalid_spins if s else 0,
                "standings": [{"name": p.name, "stack": p.stack, "status": p.status.value, "place": p.place}
                              for p in (s.standings() if s else ())],
                "eliminations": [{"player": e.player, "place": e.place, "cause": e.cause.value,
                                  "after_spins": e.after_spins, "stack_before": e.stack_before}
                                 for e in (s.eliminations if s else ())],
                "awaiting_judge": self._awaiting.to_json() if self._awaiting else None,
                "health": {"camera": self.camera.health.to_json(), "imu": self.imu.health.to_json(),
                           "launcher": {"status": "ok" if self.launcher else "absent",
                                        "detail": "ready" if self.launcher else "no launcher"},
                           "judge": {"status": "ok" if self._judge else "absent",
                                     "detail": "judging spins" if self._judge else "manual entry"}},
                "faults": [f.to_json() for f in list(self._faults)[-10:]],
                "led": self._led or "ready",
                "mode": "sim" if self.world is not None else "live",
                "dreidel": self.dreidel,
                "nominees": dict(self._nominees),
                "prize": self.config.table.prize,
                "spectators": self.broker.clients,
            }

    def sim_rate(self) -> float:
        """Table seconds per real second lately (the display counts the ante clock down at this rate).

        A simulated table's :class:`PacedClock` runs at most at ``speed``, slower when the table cannot
        judge its frames that fast; any other clock runs at ``speed`` exactly.
        """
        clock = self.clock
        return round(clock.rate(), 3) if isinstance(clock, PacedClock) else self.speed

    def _stable_of(self, spin_id: str | None) -> float | None:
        value = self._verdict_info.get(spin_id or "", {}).get("stable_s")
        return None if value is None else float(value)

    def _publish(self) -> None:
        if self._version != self._published or self._phase_published != self.display_phase():
            self._published = self._version
            self._phase_published = self.display_phase()
            self.broker.publish("state", self.snapshot())

    _phase_published = ""

    def faults(self) -> list[Fault]:
        """Every fault since start-up (and those logged before), oldest first."""
        with self._lock:
            return list(self._faults)

    def log_entries(self, limit: int = 200) -> list[LoggedEvent]:
        """The latest events of this table (rules events and notes), newest first."""
        events = self.log.events(self.table)
        return list(reversed(events[-limit:]))

    def spins(self) -> list[dict[str, Any]]:
        """Every judged spin of this table with its verdict, what was decided, and its evidence; newest first."""
        out: list[dict[str, Any]] = []
        decided: dict[str, dict[str, Any]] = {}
        for e in self.log.events(self.table):
            if not e.spin_id:
                continue
            if e.name == "note:verdict":
                out.append({"spin_id": e.spin_id, "t": e.t, "actor": e.actor,
                            **{k: v for k, v in e.payload.items() if k not in ("event", "evidence")},
                            "evidence": self.evidence_files(e.spin_id)})
            elif e.name in ("spin", "invalid_spin", "set_first", "note:spin_off_letter") or (
                    e.name == "note:resolved" and e.payload.get("decision") == "reject"):
                decided[e.spin_id] = {"by": e.actor, "text": describe_event(e.payload)}
        for entry in out:
            entry["decided"] = decided.get(entry["spin_id"])
            verdict = entry.get("verdict") or {}
            stable = verdict.get("stable_s")
            entry["near_3s"] = (not verdict.get("manual") and isinstance(stable, int | float)
                                and near_rule(float(stable)))
        return list(reversed(out))

    def spin(self, spin_id: str) -> dict[str, Any] | None:
        """One spin's verdict, evidence and what the table did with it."""
        for entry in self.spins():
            if entry["spin_id"] == spin_id:
                entry["events"] = [{"seq": e.seq, "t": e.t, "actor": e.actor, "payload": e.payload}
                                   for e in self.log.events(self.table) if e.spin_id == spin_id]
                return entry
        return None

    def fairness(self) -> list[FairnessReport]:
        """Letter counts per dreidel over every table in the log, with the chi-square bias test."""
        pairs: list[tuple[str, Letter]] = []
        for table in self.log.tables():
            dreidel = self.config.table.dreidel
            spins: list[tuple[str, Letter]] = []
            for e in self.log.events(table):
                name = e.name
                if name == "note:dreidel":
                    dreidel = str(e.payload.get("dreidel"))
                elif name == "spin":
                    spins.append((dreidel, Letter.parse(str(e.payload["letter"]))))
                elif name == "replace_letter" and spins:
                    spins[-1] = (spins[-1][0], Letter.parse(str(e.payload["letter"])))
                elif name == "void_spin" and spins:
                    spins.pop()
            pairs += spins
        return fairness_by_dreidel(pairs)

    def camera_jpeg(self) -> bytes | None:
        """The latest camera picture as JPEG (for calibration and teaching)."""
        frame = self.camera.last_frame
        if frame is None:
            return None
        import cv2

        ok, buf = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return bytes(buf) if ok else None
