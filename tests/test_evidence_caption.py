"""The words on the evidence still: what a judge reads first when the table asks for help."""

from controller.evidence import Marks, stable_text, still_caption, verdict_text


def marks(letter: str | None, conf: float | None, valid: bool = True, reasons: tuple[str, ...] = ()) -> Marks:
    return Marks(release_t=1.25, wobble_t=5.5, rest_t=6.75, stable_s=4.25, letter=letter, letter_confidence=conf,
                 valid=valid, reasons=reasons)


def test_a_read_letter_shows_its_confidence() -> None:
    lines = still_caption(marks("gimel", 0.987))
    assert lines[0] == "letter: gimel (0.99)"
    assert lines[1:] == ["release 1.25s", "wobble 5.50s", "rest 6.75s", "stable 4.25s", "VALID"]


def test_an_unreadable_letter_asks_a_judge_and_shows_no_number() -> None:
    # the vote's confidence of an unreadable letter belongs to no letter: "unreadable (1.00)" misled
    line = still_caption(marks(None, 1.0))[0]
    assert line == "letter: unreadable, a judge reads it"


def test_a_re_spin_names_its_reasons_and_unknown_times_show_as_such() -> None:
    m = Marks(release_t=None, wobble_t=None, rest_t=None, stable_s=None, letter=None, letter_confidence=None,
              valid=False, reasons=("short", "interference"))
    assert still_caption(m)[1:] == ["release ?", "wobble -", "rest ?", "stable ?", "RE-SPIN: too short, touched during the spin"]


def test_a_spin_sent_to_a_judge_says_so_and_gives_the_machine_call_only_as_a_suggestion() -> None:
    # twin 60006 spin 2 flew out of the tray and out of sight: the verdict asked a judge, and its timeline
    # still said "VALID" in green
    lost = Marks(release_t=22.26, wobble_t=27.82, rest_t=28.33, stable_s=5.56, letter=None, letter_confidence=None,
                 valid=True, reasons=(), needs_judge=True)
    assert still_caption(lost)[-1] == "JUDGE NEEDED (machine: valid)"
    short = Marks(release_t=1.0, wobble_t=2.0, rest_t=3.0, stable_s=1.0, letter=None, letter_confidence=None,
                  valid=False, reasons=("short",), needs_judge=True)
    assert verdict_text(short) == "JUDGE NEEDED (machine: re-spin: too short)"
    assert verdict_text(Marks(release_t=None, wobble_t=None, rest_t=None, stable_s=None, letter=None,
                              letter_confidence=None, valid=False, reasons=(), needs_judge=True)) == (
        "JUDGE NEEDED (machine: re-spin)")


def test_a_dreidel_put_down_not_spun_says_so_in_words_with_no_stable_time() -> None:
    # H56: the timeline's title read "RE-SPIN: no_release   stable 0.00s", a code and a stable time of a
    # dreidel that never spun
    put_down = Marks(release_t=705.05, wobble_t=None, rest_t=705.05, stable_s=0.0, letter=None,
                     letter_confidence=None, valid=False, reasons=("no_release",))
    assert verdict_text(put_down) == "RE-SPIN: no release seen"
    assert stable_text(put_down) == "stable -"
    assert still_caption(put_down)[-2:] == ["stable -", "RE-SPIN: no release seen"]


def test_a_stable_spin_ended_by_a_touch_names_the_touch_not_a_wobble() -> None:
    """A knocked spin's stable time ends at the hand's touch: the still must not call that moment a wobble."""
    knocked = Marks(release_t=2.66, wobble_t=5.15, rest_t=5.38, stable_s=2.49, letter="nun", letter_confidence=1.0,
                    valid=False, reasons=("short", "interference"), stable_end="touch")
    assert still_caption(knocked)[1:4] == ["release 2.66s", "touch 5.15s", "rest 5.38s"]
