"""Speech runs espeak-ng in the background through an injected runner."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from controller.speech import Speaker


def test_phrases_are_spoken_in_order_without_blocking() -> None:
    said: list[list[str]] = []
    done = threading.Event()

    def runner(argv: Sequence[str]) -> int:
        said.append(list(argv))
        if len(said) == 2:
            done.set()
        return 0

    speaker = Speaker(voice="en", words_per_minute=140, runner=runner, program="espeak-ng")
    speaker.say("Ann spun Gimel")
    speaker.say("Ben: re-spin")
    assert done.wait(10)
    speaker.close()
    assert said == [["espeak-ng", "-v", "en", "-s", "140", "--", "Ann spun Gimel"],
                    ["espeak-ng", "-v", "en", "-s", "140", "--", "Ben: re-spin"]]


def test_a_failing_espeak_is_a_fault_not_a_crash() -> None:
    faults: list[str] = []
    done = threading.Event()

    def on_fault(text: str) -> None:
        faults.append(text)
        done.set()

    speaker = Speaker(runner=lambda argv: 1, program="espeak-ng", on_fault=on_fault)
    speaker.say("hello")
    assert done.wait(10)
    speaker.close()
    assert "espeak-ng failed" in faults[0]


def test_missing_program_disables_speech() -> None:
    faults: list[str] = []
    speaker = Speaker(program="", on_fault=faults.append)
    assert not speaker.enabled and "not installed" in faults[0]
    speaker.say("nothing")  # no thread, no error
    assert speaker.command("x")[0] == "espeak-ng"


def test_disabled_speaker_says_nothing() -> None:
    said: list[Sequence[str]] = []
    speaker = Speaker(enabled=False, runner=lambda a: said.append(a) or 0, program="espeak-ng")
    speaker.say("quiet")
    speaker.close()
    assert said == []
