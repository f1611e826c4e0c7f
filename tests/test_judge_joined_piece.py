"""A piece of a hand that the hand never let go of is no spin (altsim 1480014).

A hand came to lift the resting dreidel. Its fingers, the felt's brightness, were not foreground; the tip of its
thumb was, as a blob on its own 3-4 of its lengths from the rest of the hand. The tracker took it up as the dreidel,
it moved with the hand and went into it as the hand left: the judge, which saw it clear of every hand, judged a spin
that never was ("wobbled at once", a hand pushing it). The tracker now says when such a blob and a hand are one patch
of faint change (``TrackResult.joined_to_hand``), and a blob so joined is not let go.

The scene is given as the tracker's answers frame by frame (lores px).
"""

from __future__ import annotations

from collections.abc import Callable

from scripted_judge import run_judge, scripted_judge, verdicts_of

from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 4.0
COME_T = 1.0  # the hand comes in
TIP_T = 1.3  # the thumb's tip is seen on its own
LEAVE_T = 2.0  # the hand moves off, the tip with it
GONE_T = 2.3  # the tip goes into the hand
END_T = 4.0


def _blob(x: float, y: float, area: float, length: float, w: int, h: int, hand: bool = False) -> Blob:
    return Blob(x=x, y=y, area=area, bbox=(int(x - w / 2), int(y - h / 2), w, h), elongation=1.1,
                angle_deg=0.0, length=length, width=length / 1.1, edge=False, skin=0.0, is_hand=hand)


def _scene(joined: bool) -> Callable[[int, float], TrackResult]:
    def track(index: int, t: float) -> TrackResult:
        hands: tuple[Blob, ...] = ()
        dreidel: Blob | None = None
        merged = False
        if t >= COME_T:
            up = max(t - LEAVE_T, 0.0) * 150.0  # the hand leaves upwards, 150 lores px/s, out of the picture
            if 60.0 - up + 45.0 > 0.0:
                hands = (_blob(100.0, 60.0 - up, 6000.0, 120.0, 70, 90, hand=True),)  # its box ends at x = 135
            if TIP_T <= t < GONE_T:
                # the tip, 8 px long, 30 px right of the hand's box: 3.7 of its lengths
                dreidel = _blob(165.0, 80.0 - up, 45.0, 8.0, 7, 7)
            merged = t >= GONE_T and t < GONE_T + 0.05
        return TrackResult(index=index, t=t, dreidel=dreidel, hands=hands, merged=merged,
                           motion=2.0 if dreidel is not None else 0.0, in_tray=True, scale=SCALE,
                           joined_to_hand=joined and dreidel is not None)

    return track


def test_a_thumb_tip_joined_to_its_hand_that_goes_with_it_is_no_spin() -> None:
    judge = scripted_judge(_scene(joined=True), None, SCALE)
    assert verdicts_of(run_judge(judge, END_T, FPS, small_hw=(240, 320), full_hw=(960, 1280))) == []


def test_the_same_tip_not_joined_was_judged_as_a_spin() -> None:
    """Without the faint patch to tell, the tip looks like a dreidel let go: the bug this guards against."""
    judge = scripted_judge(_scene(joined=False), None, SCALE)
    verdicts = verdicts_of(run_judge(judge, END_T, FPS, small_hw=(240, 320), full_hw=(960, 1280)))
    assert len(verdicts) == 1
