"""The judge's (and the players') commands on the live table, as a part of :class:`TableSession`.

Every command checks its input and the rules first and raises :class:`CommandError` saying why when it
cannot be done; only then does it append to the event log. A refused command changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from controller.eventlog import check_actor
from controller.rules.events import (
    AdjustStack,
    Away,
    Back,
    InvalidSpin,
    RaiseAnte,
    ReplaceLetter,
    SetFirst,
    SpinOff,
    VoidSpin,
)
from controller.rules.letters import Letter
from controller.table_model import BUSY_PHASES, Awaiting, Calibration, CommandError, Stage


def _clean_text(value: object, what: str, max_len: int = 200) -> str:
    text = str(value if value is not None else "").strip()
    if not text:
        raise CommandError(f"{what} is required")
    if len(text) > max_len:
        raise CommandError(f"{what} is too long (at most {max_len} characters)")
    return text


def _int(value: object, what: str) -> int:
    try:
        if isinstance(value, bool):
            raise ValueError
        if isinstance(value, int):
            return value
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise CommandError(f"{what} must be a whole number, not {value!r}") from None


def _float(value: object, what: str) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        x = float(str(value).strip())
    except (TypeError, ValueError):
        raise CommandError(f"{what} must be a number, not {value!r}") from None
    if x != x or x in (float("inf"), float("-inf")):
        raise CommandError(f"{what} must be a finite number")
    return x


#: a judge's ruling teaches the table the face it gave a letter for only while that letter has fewer taught
#: stills than this: the first stills of a letter teach the most (three per letter is what ``enroll/`` holds),
#: and every still more is read again whenever the table is taught
RULING_TEACHES_UP_TO = 5


def _yes(value: object) -> bool:
    """A form's checkbox or a JSON flag: true for true, 1, "1", "yes", "on", "true"."""
    if isinstance(value, bool):
        return value
    return str(value if value is not None else "").strip().lower() in ("1", "yes", "on", "true")


def _doubt_text(doubt: tuple[str, float | None]) -> str:
    """What the generic reader says of a taught still it doubts (``_taught_still_doubt``), for a reply."""
    what, confidence = doubt
    return f"the machine {what}" if confidence is None else \
        f"the machine reads this picture as {what} ({confidence:.2f})"


def _letter(value: object) -> Letter:
    try:
        return Letter.parse(str(value or ""))
    except ValueError as e:
        raise CommandError(str(e)) from None


def _taught_still(name: str) -> tuple[Letter, int] | None:
    """The letter and n of a taught still named ``<letter>_<n>.png`` (None for any other name)."""
    head, _, rest = name.partition("_")
    if not rest.endswith(".png") or not rest[:-4].isdigit():
        return None
    try:
        return Letter.parse(head), int(rest[:-4])
    except ValueError:
        return None


class TableCommands:
    """The commands of a :class:`~controller.table_session.TableSession` (a part of it, not used alone)."""

    # ------------------------------------------------------------------------------- commands

    def launch(self, actor: str) -> str:
        """Run the launcher for the player whose turn it is (spin button, assistive switch or console)."""
        with self._lock:
            if self.launcher is None:
                raise CommandError("this table has no launcher")
            if self._awaiting is not None:
                raise CommandError("a verdict is waiting for a judge; decide it before the next spin")
            stage = self.stage
            player = self.expected_spinner()
            if stage is Stage.FINISHED:
                raise CommandError("the table is finished")
            if player is None and stage is not Stage.CHOOSING_FIRST:
                raise CommandError("nobody may spin now (every player still in is away)")
            if self._spin_phase in BUSY_PHASES or self.launcher.busy:
                raise CommandError("a spin is already under way")
            problem = self.launcher.launch()
            if problem:
                self._record_fault("launcher", problem, False)
                raise CommandError(f"the launcher did not spin: {problem}")
            now = self.clock.monotonic()
            self._launched = (player, "launcher", now)
            if self.world is not None:  # the simulated judge watches every simulated spin
                self._manual_spin = (player, "launcher", now, len(list(getattr(self.world, "truths", []) or [])) - 1)
            self._note("launch", {"player": player}, check_actor(actor))
            self._last_settled = now
            self._changed()
            self._publish()
            return f"the launcher spins for {player or 'the opening spin'}"

    def command(self, action: str, params: Mapping[str, Any], actor: str) -> str:
        """Do a judge's (or player's) command. Returns what was done; raises :class:`CommandError`."""
        try:
            check_actor(actor)
        except Exception as e:  # noqa: BLE001 - an unknown actor is a bad request
            raise CommandError(str(e)) from None
        handler = getattr(self, f"_cmd_{action}", None)
        if handler is None:
            raise CommandError(f"unknown action {action!r}; known: {', '.join(sorted(self.actions()))}")
        with self._lock:
            if actor.startswith("judge:") and actor != "judge:sim":
                self.human_judge_at = self.wall_clock.wall()
            result = str(handler(params, actor))
            self._publish()
            return result

    @classmethod
    def actions(cls) -> list[str]:
        """The names of every command."""
        return [name[len("_cmd_"):] for name in dir(cls) if name.startswith("_cmd_")]

    def _player(self, params: Mapping[str, Any], key: str = "player") -> str:
        name = _clean_text(params.get(key), key, 40)
        if self.state is None or name not in self.state.names():
            seated = ", ".join(self.state.names()) if self.state else "nobody"
            raise CommandError(f"{name!r} is not seated at this table (players: {seated})")
        return name

    def _resolve_awaiting(self, spin_id: str | None) -> Awaiting | None:
        a = self._awaiting
        if spin_id and (a is None or a.spin_id != spin_id):
            raise CommandError(f"spin {spin_id} is not waiting for a judge")
        return a

    def _cmd_spin(self, params: Mapping[str, Any], actor: str) -> str:
        """Enter a spin by hand (manual mode), or settle the waiting verdict with this letter."""
        letter = _letter(params.get("letter"))
        if self._awaiting is not None:
            return self._cmd_confirm({"spin_id": self._awaiting.spin_id, "letter": letter.value}, actor)
        if self.stage is Stage.CHOOSING_FIRST:
            raise CommandError("choose the first spinner before entering a spin")
        player = self.expected_spinner()
        if "player" in params and params.get("player"):
            named = self._player(params)
            if named != player:
                raise CommandError(f"it is {player}'s turn, not {named}'s")
        if player is None:
            raise CommandError("nobody may spin now")
        spun_by = str(params.get("spun_by") or "").strip() or self._spun_by_for(player)
        spin_id = self._next_spin_id()
        self._note("verdict", {"spin_id": spin_id, "player": player, "spun_by": spun_by, "purpose": "manual",
                               "needs_judge": False, "dreidel": self.dreidel,
                               "verdict": {"letter": letter.value, "valid": True, "reasons": [], "manual": True}},
                   actor, spin_id)
        self._launched = None
        self._manual_spin = None
        self._ignore_before = self.clock.monotonic()
        self._settle_letter(spin_id, player, spun_by, letter, actor)
        return f"{player}: {letter.value} entered"

    def _cmd_respin(self, params: Mapping[str, Any], actor: str) -> str:
        """A judge calls a spin invalid: the same spinner spins again."""
        reason = _clean_text(params.get("reason"), "reason")
        if self._awaiting is not None:
            return self._cmd_reject({"spin_id": self._awaiting.spin_id, "reason": reason}, actor)
        player = self.expected_spinner()
        self._ignore_before = self.clock.monotonic()
        if self.stage in (Stage.CHOOSING_FIRST, Stage.SPIN_OFF):
            self._launched = None
            self._manual_spin = None
            self._last_settled = self.clock.monotonic()
            self._note("respin", {"player": player, "reason": reason}, actor)
            self._changed()
            return "spin again"
        if player is None:
            raise CommandError("nobody may spin now")
        self._launched = None
        self._manual_spin = None
        self._commit(InvalidSpin(reason=reason, player=player), actor)
        self._say(f"{player}, spin again.")
        return f"{player} spins again"

    def _cmd_confirm(self, params: Mapping[str, Any], actor: str) -> str:
        """Settle the verdict waiting for a judge, with the machine's letter or another."""
        a = self._resolve_awaiting(str(params.get("spin_id") or "") or None)
        if a is None:
            raise CommandError("no verdict is waiting for a judge")
        if a.purpose == "first":
            raise CommandError("this was an opening spin: choose the first spinner (action 'first')")
        raw = params.get("letter") or a.verdict.get("letter")
        if not raw:
            raise CommandError("the machine could not read the letter: say which letter is up")
        letter = _letter(raw)
        self._awaiting = None
        try:
            self._settle_letter(a.spin_id, a.player, a.spun_by, letter, actor)
        except CommandError:
            self._awaiting = a
            raise
        reason = str(params.get("reason") or "").strip()[:200]
        self._note("resolved", {"decision": "confirm", "letter": letter.value,
                                **({"reason": reason} if reason else {})}, actor, a.spin_id)
        reply = f"{a.player}: {letter.value} confirmed"
        if not a.verdict.get("letter") and _yes(params.get("teach")):
            reply += "; " + self._teach_from_ruling(a.spin_id, letter, actor)
        return reply

    def _teach_from_ruling(self, spin_id: str, letter: Letter, actor: str) -> str:
        """The judge gave ``letter`` for a spin whose letter the machine could not read: teach the table that
        face, from the spin's resting picture (``rest.png`` of its evidence), so that the next time it lands
        it is read. Not when the letter has ``RULING_TEACHES_UP_TO`` taught stills already, nor when the
        generic reader clearly reads another letter, or no dreidel or letter, in the picture (a wrong face
        taught costs more than a face not taught). Returns what was done, for the judge's reply."""
        held = self._rest_picture
        image = held[1] if held is not None and held[0] == spin_id else None
        if image is None:  # restarted since: the picture the evidence writer saved
            import cv2

            path = self.evidence.folder(spin_id) / "rest.png"
            image = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if image is None:
            return "not learned: this spin has no resting picture"
        kept = len(list(self.enroll_dir.glob(f"{letter.value}_*.png"))) if self.enroll_dir.is_dir() else 0
        if kept >= RULING_TEACHES_UP_TO:
            return f"not learned: {kept} {letter.value} stills are taught already"
        doubt = self._taught_still_doubt(letter, image)
        if doubt is not None:
            return f"not learned: {_doubt_text(doubt)}; teach it under Teach if you are sure"
        try:
            name, n = self._save_taught_still(letter, image)
        except CommandError as e:  # the ruling itself stands: only the teaching failed
            return f"not learned: {e}"
        self._note("enroll", {"letter": letter.value, "file": name, "dreidel": self.dreidel, "spin_id": spin_id},
                   actor)
        return f"learned {letter.value} from this spin ({n} still{'s' if n > 1 else ''}; remove it under Teach: {name})"

    def _cmd_reject(self, params: Mapping[str, Any], actor: str) -> str:
        """The waiting verdict does not count: the same spinner spins again."""
        a = self._resolve_awaiting(str(params.get("spin_id") or "") or None)
        if a is None:
            raise CommandError("no verdict is waiting for a judge")
        reason = _clean_text(params.get("reason"), "reason")
        self._awaiting = None
        if a.purpose == "spin":
            try:
                self._commit(InvalidSpin(reason=reason, player=a.player, spin_id=a.spin_id), actor, a.spin_id)
            except CommandError:
                self._awaiting = a
                raise
        else:
            self._note("resolved", {"decision": "reject", "reason": reason}, actor, a.spin_id)
            self._changed()
        self._last_settled = self.clock.monotonic()
        self._say(f"{a.player or 'Spinner'}, spin again.")
        return f"{a.player or 'the opening spin'}: spin again ({reason})"

    def _cmd_void(self, params: Mapping[str, Any], actor: str) -> str:
        """Void the most recent settled spin; the same spinner re-spins."""
        reason = _clean_text(params.get("reason"), "reason")
        last = self.state.last_spin if self.state else None
        self._commit(VoidSpin(reason=reason), actor, last.spin_id if last else None)
        self._say("The last spin is void.")
        return f"spin of {last.player if last else '?'} voided"

    def _cmd_replace(self, params: Mapping[str, Any], actor: str) -> str:
        """Re-settle the most recent spin with another letter."""
        letter = _letter(params.get("letter"))
        reason = _clean_text(params.get("reason"), "reason")
        last = self.state.last_spin if self.state else None
        self._commit(ReplaceLetter(letter=letter, reason=reason), actor, last.spin_id if last else None)
        return f"last spin now {letter.value}"

    def _cmd_away(self, params: Mapping[str, Any], actor: str) -> str:
        player = self._player(params)
        self._commit(Away(player), actor)
        return f"{player} is away"

    def _cmd_back(self, params: Mapping[str, Any], actor: str) -> str:
        player = self._player(params)
        self._commit(Back(player), actor)
        return f"{player} is back"

    def _cmd_raise_ante(self, params: Mapping[str, Any], actor: str) -> str:
        to = params.get("to")
        by = params.get("by")
        if (to in (None, "")) == (by in (None, "")):
            raise CommandError('give exactly one of "to" (the new ante) or "by" (the step)')
        event = RaiseAnte(to=_int(to, "to")) if to not in (None, "") else RaiseAnte(by=_int(by, "by"))
        new = self._commit(event, actor)
        return f"the ante becomes {new.ante_after_turn} when the turn passes"

    def _cmd_clock(self, params: Mapping[str, Any], actor: str) -> str:
        """Pause or resume the ante clock."""
        what = str(params.get("do") or params.get("action") or "").strip().lower()
        if what == "pause":
            if not self.ante_clock.pause():
                raise CommandError("the ante clock is not running")
        elif what == "resume":
            if not self.ante_clock.resume():
                raise CommandError("the ante clock is not paused")
        else:
            raise CommandError('say "pause" or "resume"')
        self._note("clock", {"action": what, "remaining_s": self.ante_clock.remaining_s()}, actor)
        self._changed()
        return f"ante clock {what}d"

    def _cmd_spin_off(self, params: Mapping[str, Any], actor: str) -> str:
        """Settle a spin-off round by hand: one letter per tied player."""
        state = self.state
        if state is None or state.spin_off is None:
            raise CommandError("no spin-off is pending")
        raw = params.get("letters")
        if isinstance(raw, Mapping):
            letters = {str(k): _letter(v) for k, v in raw.items() if str(v).strip()}
        else:
            letters = {p: _letter(params.get(f"letter_{p}")) for p in state.spin_off if params.get(f"letter_{p}")}
        missing = [p for p in state.spin_off if p not in letters]
        if missing:
            raise CommandError(f"give a letter for every tied player: missing {', '.join(missing)}")
        self._awaiting = None
        self._commit(SpinOff(letters=letters), actor)
        return "spin-off round settled"

    def _cmd_adjust_stack(self, params: Mapping[str, Any], actor: str) -> str:
        player = self._player(params)
        delta = _int(params.get("delta"), "delta")
        if delta == 0:
            raise CommandError("delta must not be 0")
        reason = _clean_text(params.get("reason"), "reason")
        self._commit(AdjustStack(player=player, delta=delta, reason=reason), actor)
        return f"{player} {delta:+d}"

    def _cmd_first(self, params: Mapping[str, Any], actor: str) -> str:
        """A judge picks the first spinner."""
        player = self._player(params)
        a = self._awaiting
        spin_id = a.spin_id if a is not None and a.purpose == "first" else None
        self._commit(SetFirst(player), actor, spin_id)
        if spin_id:
            self._awaiting = None
            self._note("resolved", {"decision": "first", "player": player}, actor, spin_id)
        self._manual_spin = None
        self._launched = None
        self._last_settled = self.clock.monotonic()
        self._say(f"{player} spins first.")
        return f"{player} spins first"

    def _cmd_nominate(self, params: Mapping[str, Any], actor: str) -> str:
        """A player names the launcher or a person to spin for them ("" to spin themselves again)."""
        player = self._player(params)
        who = str(params.get("spun_by") or "").strip()
        if len(who) > 40:
            raise CommandError("spun_by is too long (at most 40 characters)")
        if who == player:
            who = ""
        if who:
            self._nominees[player] = who
        else:
            self._nominees.pop(player, None)
        self._note("nominate", {"player": player, "spun_by": who}, actor)
        self._changed()
        return f"{who} spins for {player}" if who else f"{player} spins themselves"

    def _cmd_launch(self, params: Mapping[str, Any], actor: str) -> str:
        return self.launch(actor)

    def _cmd_dreidel(self, params: Mapping[str, Any], actor: str) -> str:
        """Say which dreidel is in use (for the fairness statistics)."""
        name = _clean_text(params.get("dreidel"), "dreidel", 40)
        self.dreidel = name
        self._note("dreidel", {"dreidel": name}, actor)
        self._changed()
        return f"dreidel {name} in use"

    def _cmd_new_table(self, params: Mapping[str, Any], actor: str) -> str:
        """Open the next table once this one has a winner."""
        if self.state is not None and not self.state.finished:
            raise CommandError("this table is still playing; it needs a winner first")
        return self._new_table(actor)

    def _new_table(self, actor: str) -> str:
        ids = self._table_ids()
        n = len(ids) + 1
        name = f"{self.config.table.name}-{n}"
        self._open_table(name)
        return f"table {name} opened"

    def _cmd_reconnect(self, params: Mapping[str, Any], actor: str) -> str:
        """Try the camera and the IMU again now."""
        self.camera.retry_now()
        self.imu.retry_now()
        return "retrying the devices"

    def _cmd_enroll(self, params: Mapping[str, Any], actor: str) -> str:
        """Teach the recognizer: save the live picture as a labelled still of this dreidel.

        The still is read first by the machine's generic reader (what ``sevivon classify`` says of it). When
        that reads another letter clearly, or finds no dreidel or no letter, the still is kept (the judge
        may know better) but the reply says so plainly, and names the file to remove (``unenroll``).
        """
        letter = _letter(params.get("letter"))
        frame = self.camera.last_frame
        if frame is None or not self.camera.ok:
            raise CommandError("no live camera picture to learn from")
        name, n = self._save_taught_still(letter, frame.image)
        doubt = self._taught_still_doubt(letter, frame.image)
        payload: dict[str, Any] = {"letter": letter.value, "file": name, "dreidel": self.dreidel}
        if doubt is not None:
            payload["machine_reads"] = doubt[0]
            if doubt[1] is not None:
                payload["machine_confidence"] = round(doubt[1], 3)
        self._note("enroll", payload, actor)
        reply = f"learned {letter.value} ({n} still{'s' if n > 1 else ''})"
        if doubt is not None:
            reply += f"; note: {_doubt_text(doubt)}: check the letter, or remove it ({name})"
        return reply

    def _save_taught_still(self, letter: Letter, image: Any) -> tuple[str, int]:
        """Write ``image`` as the next taught still of ``letter`` (``<letter>_<n>.png`` in enroll/) and have the
        judge taught again; returns the file's name and how many stills of that letter are taught now."""
        import cv2

        try:
            self.enroll_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CommandError(f"could not make the taught stills' folder {self.enroll_dir} ({e})") from None
        taken = [_taught_still(p.name) for p in self.enroll_dir.glob(f"{letter.value}_*.png")]
        number = max([k[1] for k in taken if k is not None] + [0]) + 1  # never over a kept still after a removal
        path = self.enroll_dir / f"{letter.value}_{number}.png"
        if not cv2.imwrite(str(path), image):
            raise CommandError(f"could not write {path}")
        self._judge_retaught = True
        return path.name, len(taken) + 1

    def _taught_still_doubt(self, letter: Letter, image: Any) -> tuple[str, float | None] | None:
        """What the generic reader says of a still taught as ``letter`` when it disagrees clearly: (another
        letter's name, its confidence), or (what the machine finds instead: no dreidel, no letter; None).
        None when it agrees, is merely unsure, or there is no reader to ask (a judge without one)."""
        reader = self._generic_reader()
        if reader is None:
            return None
        from vision.recognizer import (  # with the reader: a table without one never loads vision
            NO_LETTER,
            TOO_SMALL,
        )

        try:
            reading = reader.read(image)
        except Exception:  # noqa: BLE001 - a check that trips must not lose the taught still
            return None
        got = getattr(reading, "letter", None)
        if got is not None:
            return None if got is letter else (got.value, float(reading.confidence))
        if getattr(reading, "pose", None) is None or reading.reason == "no dreidel found":
            return ("finds no dreidel in this picture", None)
        if reading.reason == NO_LETTER:
            return ("sees no letter, or one too faint to read, on this picture's dreidel", None)
        if reading.reason.endswith(TOO_SMALL):
            return (f"finds {reading.reason} (a camera nearer the tray, or a larger dreidel, reads it)", None)
        return None

    def _generic_reader(self) -> Any:
        """The generic letter reader (``LetterRecognizer.default()``, without the taught stills), loaded once;
        None when the running judge reads no letters (no judge, or one without a reader).

        Its own copy, not the running judge's: the judge reads on the table's thread, and an OpenCV network
        is not to be used from two threads at once."""
        reader = self._enroll_reader
        if reader is not None or getattr(self._judge, "recognizer", None) is None:
            return reader
        try:
            from vision.recognizer import LetterRecognizer

            reader = LetterRecognizer.default()
        except Exception:  # noqa: BLE001 - without the model files nothing is checked
            return None
        self._enroll_reader = reader
        return reader

    def _cmd_unenroll(self, params: Mapping[str, Any], actor: str) -> str:
        """Remove a taught still (``<letter>_<n>.png`` in the data folder's enroll/); the judge is taught again."""
        name = _clean_text(params.get("file"), "file", 60)
        stem = name[:-4] if name.lower().endswith(".png") else name
        still = _taught_still(f"{stem}.png")
        if still is None:
            raise CommandError(f"{name!r} is not a taught still (they are named <letter>_<n>.png)")
        letter = still[0]
        path = self.enroll_dir / f"{stem}.png"
        if not path.is_file():
            kept = ", ".join(sorted(p.name for p in self.enroll_dir.glob("*.png"))) if self.enroll_dir.is_dir() else ""
            raise CommandError(f"no taught still {path.name} (taught: {kept or 'none'})")
        path.unlink()
        left = len(list(self.enroll_dir.glob(f"{letter.value}_*.png")))
        self._note("unenroll", {"letter": letter.value, "file": path.name, "dreidel": self.dreidel}, actor)
        self._judge_retaught = True
        return f"removed {path.name} ({left} {letter.value} still{'' if left == 1 else 's'} left)"

    def taught_stills(self) -> list[dict[str, str]]:
        """The taught stills in the data folder's enroll/ (file and letter), for the console."""
        if not self.enroll_dir.is_dir():
            return []
        out = []
        for p in sorted(self.enroll_dir.glob("*.png")):
            still = _taught_still(p.name)
            out.append({"file": p.name, "letter": still[0].value if still else p.stem.rsplit("_", 1)[0]})
        return out

    def _cmd_calibrate(self, params: Mapping[str, Any], actor: str) -> str:
        """Set the tray circle (pixels) and/or seat bearings (degrees, 0 = top, clockwise)."""
        tray = before = self.calibration.tray
        if any(params.get(k) not in (None, "") for k in ("tray_cx", "tray_cy", "tray_r")):
            cx, cy, r = (_float(params.get(k), k) for k in ("tray_cx", "tray_cy", "tray_r"))
            if r <= 0:
                raise CommandError("tray_r must be positive")
            frame = self.camera.last_frame
            if frame is not None:
                h, w = frame.image.shape[:2]
                if not (0 <= cx < w and 0 <= cy < h):
                    raise CommandError(f"the tray centre must lie in the {w}x{h} picture")
            tray = (cx, cy, r)
        seats = dict(self.calibration.seats)
        raw = params.get("seats")
        if isinstance(raw, Mapping):
            items = list(raw.items())
        else:
            items = [(k[len("seat_"):], v) for k, v in params.items() if k.startswith("seat_") and str(v).strip()]
        for name, value in items:
            if self.state is None or name not in self.state.names():
                raise CommandError(f"{name!r} is not seated at this table")
            seats[name] = _float(value, f"bearing of {name}") % 360.0
        self.calibration = Calibration(tray, seats)
        path = self.data_dir / "calibration.json"
        path.write_text(json.dumps(self.calibration.to_json(), indent=1), encoding="utf-8")
        self._note("calibrate", self.calibration.to_json(), actor)
        if tray != before:
            # a new tray outline needs a new judge (it learns the tray again: mark the tray with it empty);
            # the seats' bearings are the table's, so marking only them keeps the judge that knows the tray
            self._judge_dirty = True
        self._changed()
        return "calibration saved"
