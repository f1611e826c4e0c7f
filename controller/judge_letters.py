"""Reading the resting dreidel's letter on several frames and voting.

One frame is a fragile witness: the dreidel may still be settling when it is first still, JPEG noise and
the light differ from frame to frame, and the recognizer abstains when it is unsure. The judge therefore
reads a few frames spread over the first moments of rest (:class:`LetterVote`) and gives a letter only
when the readings agree, none read another letter, and the letter's probability averaged over every
reading is at least ``min_mean``. Agreeing means either that at least ``min_agree`` frames read the letter
(each above the recognizer's calibrated threshold), or that one frame read it, at least ``min_support``
more frames had it as their best guess (at ``support_p`` or more) without reaching the threshold, and no
frame's best guess was another letter at ``support_p`` or more. Otherwise the letter is unreadable and a
judge is asked (RULES.md: the machine asks rather than guesses).

Why the second way: on recordings the face's crop moves by a pixel or two from frame to frame (the pose
is found anew on each), and a small face's reading swings with it (measured on the tuning recordings:
1.00, 0.94, 0.92, 0.85, 0.54 on five frames of one resting Hey). One frame clearly read is as good a
witness as a clearly read still, which is all the recognizer's threshold was calibrated for; the other
frames are asked only not to contradict it, and to lean the same way.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.rules.letters import Letter


@dataclass(frozen=True)
class FrameReading:
    """One frame's reading: ``letter`` (None when the recognizer abstained), its ``confidence``, the
    probability of every letter (``scores``; empty when the recognizer gives none), the ``pose`` and
    when (``t``)."""

    t: float
    letter: Letter | None
    confidence: float
    scores: dict[Letter, float]
    pose: Any = None

    @classmethod
    def of(cls, t: float, reading: Any) -> FrameReading:
        """From any recognizer's reading (``letter``, ``confidence`` and optionally ``scores``, ``pose``)."""
        letter = getattr(reading, "letter", None)
        if letter is not None and not isinstance(letter, Letter):
            letter = Letter.parse(str(letter))
        conf = float(getattr(reading, "confidence", 0.0) or 0.0)
        raw = getattr(reading, "scores", None) or {}
        scores = {Letter.parse(str(k)) if not isinstance(k, Letter) else k: float(v) for k, v in raw.items()}
        if not scores and letter is not None:
            scores = {letter: conf}
        return cls(t=t, letter=letter, confidence=conf, scores=scores, pose=getattr(reading, "pose", None))


@dataclass(frozen=True)
class VoteResult:
    """The vote's outcome: ``letter`` (None: unreadable), its ``confidence``, the ``pose`` of the best
    reading of that letter, and how many frames were read and agreed."""

    letter: Letter | None
    confidence: float
    pose: Any
    frames: int
    agreeing: int


@dataclass
class LetterVote:
    """Collects readings of one resting dreidel and decides its letter.

    ``interval_s``: the spacing of the readings; ``max_reads``: at most this many; ``early_agree``: stop
    early once this many readings agree and none disagrees (a clear letter needs no more looks). See
    the module docstring for ``min_agree``, ``min_support``, ``support_p`` and ``min_mean``.
    """

    start_t: float
    interval_s: float = 0.1
    max_reads: int = 5
    early_agree: int = 2
    min_agree: int = 2
    min_support: int = 2
    support_p: float = 0.5
    min_mean: float = 0.5
    readings: list[FrameReading] = field(default_factory=list)

    def due(self, t: float) -> bool:
        """True if a frame at ``t`` should be read."""
        if self.done:
            return False
        return t >= self.start_t + len(self.readings) * self.interval_s - 1e-6

    def add(self, reading: FrameReading) -> None:
        """Add one frame's reading."""
        self.readings.append(reading)

    @property
    def done(self) -> bool:
        """Enough readings to decide."""
        if len(self.readings) >= self.max_reads:
            return True
        letters = [r.letter for r in self.readings if r.letter is not None]
        return len(letters) >= self.early_agree and len(set(letters)) == 1 and len(self.readings) == len(letters)

    def _leaning(self, r: FrameReading) -> Letter | None:
        """The letter a reading leans to without reading it: its best guess, when at ``support_p`` or more."""
        if r.letter is not None or not r.scores:
            return r.letter
        guess = max(r.scores, key=r.scores.__getitem__)
        return guess if r.scores[guess] >= self.support_p else None

    def result(self) -> VoteResult:
        """The decision on the readings so far."""
        rs = self.readings
        if not rs:
            return VoteResult(None, 0.0, None, 0, 0)
        counts = Counter(r.letter for r in rs if r.letter is not None)
        pose = next((r.pose for r in rs if r.pose is not None), None)
        if not counts:
            best_guess = max(rs, key=lambda r: r.confidence)
            return VoteResult(None, best_guess.confidence, pose, len(rs), 0)
        best = counts.most_common(1)[0][0]
        mean = sum(r.scores.get(best, 0.0) for r in rs) / len(rs)
        agree = counts[best]
        best_pose = max((r for r in rs if r.letter is best), key=lambda r: r.confidence).pose or pose
        if len(counts) > 1 or mean < self.min_mean:
            return VoteResult(None, mean, best_pose, len(rs), agree)
        if agree >= min(self.min_agree, len(rs)):
            return VoteResult(best, mean, best_pose, len(rs), agree)
        # one clear frame: the others must lean the same way, and none another way
        leaning = [self._leaning(r) for r in rs if r.letter is None]
        support = sum(1 for lt in leaning if lt is best)
        if support < self.min_support or any(lt is not None and lt is not best for lt in leaning):
            return VoteResult(None, mean, best_pose, len(rs), agree)
        return VoteResult(best, mean, best_pose, len(rs), agree + support)
