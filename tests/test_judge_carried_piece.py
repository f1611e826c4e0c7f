"""The tracker followed a piece of the hand holding the dreidel, then the dreidel (twin 57003 spin 1).

The hand held the dreidel at its fingertips for a second before letting go. The fingers and the dreidel
were told apart from the arm as one free blob, which the tracker took for a released dreidel; after the
release it followed that blob as the hand withdrew, out of the tray and to the picture's edge, and only
then took up the dreidel, spinning where the fingers had held it. The spin was dated from the fingers'
first sighting (0.75 s early) and the jump from the fingers to the dreidel was called a push.

The scene is given as the tracker's answers frame by frame (lores px, 2 full px each), so that the story
is exactly the one seen on the recording.
"""

from __future__ import annotations

from scripted_judge import run_judge, scripted_judge, verdicts_of

from vision.tracker import Blob, TrackResult

FPS = 60.0
SCALE = 2.0
COME_T = 1.0  # the hand comes in holding the dreidel
HOLD_T = 1.3  # from here it holds still at the dreidel
RELEASE_T = 2.2  # the fingers open
LAG_S = 0.08  # the hand moves off a moment after (JudgeSettings.hand_lag_s)
WITHDRAW_PX_S = 600.0
FALL_T = 6.5  # the dreidel falls over (no wobble seen first: the stable time ends at the fall)
END_T = 8.0
DREIDEL = (100.0, 100.0)
TRAY_RIGHT = 200.0  # the tray's right side (lores x); the picture is 320 wide
FINGERS_AT = 112.0  # the fingers' blob's centre while holding (it includes the dreidel)


def _blob(x: float, y: float, area: float, length: float, elongation: float, w: int, h: int,
          hand: bool = False) -> Blob:
    edge = x + w / 2 >= 319 or x - w / 2 <= 0
    return Blob(x=x, y=y, area=area, bbox=(int(x - w / 2), int(y - h / 2), w, h), elongation=elongation,
                angle_deg=0.0, length=length, width=length / elongation, edge=edge, skin=0.0, is_hand=hand)


def _hand_x(t: float) -> float:
    """How far right of its holding place the hand is at ``t``."""
    if t < HOLD_T:
        return 120.0 * (HOLD_T - t) / (HOLD_T - COME_T)
    return max(t - RELEASE_T - LAG_S, 0.0) * WITHDRAW_PX_S


def track(index: int, t: float) -> TrackResult:
    """What the tracker answered at ``t``."""
    hands: tuple[Blob, ...] = ()
    dreidel: Blob | None = None
    motion = 3.0  # a spinning body changes from frame to frame
    if t >= COME_T:
        dx = _hand_x(t)
        fx = FINGERS_AT + dx
        arm_x = fx + 50.0
        if arm_x - 30 < 320 and t < RELEASE_T + 1.0:
            hands = (_blob(arm_x, 100.0, 2400.0, 80.0, 3.0, 60, 40, hand=True),)
        if fx < 318:
            # the fingers (with the dreidel while held): a free blob touching the arm's box
            dreidel = _blob(fx, 100.0, 2200.0, 71.0, 1.7, 44, 30)
        elif fx < 318 + WITHDRAW_PX_S * 0.1:
            dreidel = None  # the track on the fingers went stale
        else:
            lying = t >= FALL_T
            x = DREIDEL[0] + (8.0 if lying else 0.0)  # it lies a little aside of where it spun
            dreidel = _blob(x, DREIDEL[1], 250.0, 30.0 if lying else 19.0, 2.0 if lying else 1.05, 19, 19)
            motion = 0.0 if lying else 3.0
    in_tray = dreidel is None or dreidel.x < TRAY_RIGHT
    return TrackResult(index=index, t=t, dreidel=dreidel, hands=hands, merged=False, motion=motion,
                       in_tray=in_tray, scale=SCALE)


def test_a_dreidel_taken_up_after_the_fingers_carried_off_is_dated_from_their_release() -> None:
    judge = scripted_judge(track, None, SCALE)
    verdicts = verdicts_of(run_judge(judge, END_T, FPS, small_hw=(240, 320), full_hw=(480, 640)))
    assert len(verdicts) == 1
    v = verdicts[0]
    assert v.release_t is not None and abs(v.release_t - RELEASE_T) < 0.1
    assert "interference" not in v.reasons  # taking up the dreidel after the fingers is no push
    assert v.stable_s is not None and abs(v.stable_s - (FALL_T - RELEASE_T)) < 0.15
    assert v.valid
