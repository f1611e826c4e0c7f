"""Logged events in words, for the judge's log of who did what."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.table_ports import reason_text


def describe_event(p: Mapping[str, Any]) -> str:
    """One logged event in words, for the judge's log of who did what."""
    name = str(p.get("event", ""))
    who = p.get("player")
    by = f" (spun by {p['spun_by']})" if p.get("spun_by") else ""
    match name:
        case "open":
            return f"table opened: {', '.join(p.get('players', []))}; stack {p.get('stack')}, ante {p.get('ante')}"
        case "spin":
            return f"{who or 'spinner'} spun {p.get('letter')}{by}"
        case "invalid_spin":
            return f"{who or 'spinner'} re-spins: {reason_text(str(p.get('reason', '')).split(','))}"
        case "raise_ante":
            return f"ante raised to {p['to']}" if p.get("to") is not None else f"ante raised by {p.get('by')}"
        case "away" | "back":
            return f"{who} is {name}"
        case "spin_off":
            letters = p.get("letters") or {}
            return "spin-off round: " + ", ".join(f"{k} {v}" for k, v in letters.items())
        case "void_spin":
            return f"last spin voided: {p.get('reason')}"
        case "replace_letter":
            return f"last spin re-settled as {p.get('letter')}: {p.get('reason')}"
        case "adjust_stack":
            return f"{who} stack {int(p.get('delta', 0)):+d}: {p.get('reason')}"
        case "set_first":
            return f"{who} spins first"
        case "note:verdict":
            v = p.get("verdict") or {}
            if v.get("manual"):
                return f"{who or 'spinner'}: {v.get('letter')} entered by hand"
            letter = v.get("letter") or "letter unreadable"
            stable = f", stable {v['stable_s']} s" if v.get("stable_s") is not None else ""
            verdict = "judge needed" if p.get("needs_judge") else ("valid" if v.get("valid") else "invalid")
            why = f" ({v['reason_text']})" if v.get("reason_text") else ""
            return f"machine: {who or 'opening spin'} — {letter}{stable}, {verdict}{why}"
        case "note:resolved":
            what = p.get("letter") or p.get("player") or ""
            why = f": {p['reason']}" if p.get("reason") else ""
            return f"judge decided: {p.get('decision')} {what}".strip() + why
        case "note:spin_off_letter":
            return f"spin-off: {who} spun {p.get('letter')}"
        case "note:clock":
            return f"ante clock {p.get('action')}"
        case "note:fault":
            return f"{'recovered' if p.get('recovered') else 'FAULT'} {p.get('device')}: {p.get('message')}"
        case "note:login":
            return f"judge login {'ok' if p.get('ok') else 'FAILED'} from {p.get('addr')}"
        case "note:nominate":
            return f"{p.get('spun_by') or who} spins for {who}" if p.get("spun_by") else f"{who} spins themselves"
        case "note:launch":
            return f"launcher started for {who or 'the opening spin'}"
        case "note:dreidel":
            return f"dreidel in use: {p.get('dreidel')}"
        case "note:enroll":
            return f"recognizer taught: {p.get('letter')} ({p.get('file')})"
        case "note:unenroll":
            return f"taught still removed: {p.get('letter')} ({p.get('file')})"
        case "note:calibrate":
            return "tray and seat directions calibrated"
        case "note:respin":
            return f"{who or 'spinner'} spins again: {p.get('reason')}"
    return name
