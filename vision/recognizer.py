"""Read the letter on the up face of a resting dreidel, with a calibrated confidence.

The generic model is a small convolutional network (``vision/models/letters.onnx``, built with
PyTorch by ``scripts/build_letter_model.py`` from data this repo renders, and run here by OpenCV's
``cv2.dnn``: no PyTorch at run time). Its input is the face patch of :mod:`vision.features`; it
scores 21 classes: 5 letters x 4 orientations of the letter in the patch (top toward the handle,
toward the tip, or sideways) and "not a letter" (felt, a tip, a handle, a blank face: what a wrong
crop shows). The four quarter turns of the patch are all scored (test-time rotation) and their
logits averaged. The letter's probability sums over orientations, so a wrong tip/handle call does
not cost the letter; the pose's own confidence sets a prior over orientations. A temperature fitted
on stills in font families held out of training calibrates the probabilities
(``vision/models/letters.json`` holds it with the threshold and the enrollment weights).

Enrollment (``with_enrollment``): a few labelled stills of *this* dreidel become prototypes in the
network's embedding (its penultimate layer); the cosine similarity of the query (in each
orientation) to each letter's nearest prototype is added to the generic logits with a weight and a
temperature fitted by the build script. A dreidel taught only some of its letters (a table is taught one at a time)
reads a letter not yet taught with the generic model alone (``open_letters``, ``OPEN_LETTER_LIKENESS``).

A taught recognizer also asks the generic model: when the generic model reads one letter clearly and the
taught one leans to another, the face is unreadable (two witnesses disagree). It also compares a Nun or Gimel
read with the taught Nun and Gimel faces themselves (``template_similarity``): a read that looks clearly more like
a taught face of the other letter than like any of its own is unreadable (``TAUGHT_VETO_RIVAL``,
``TAUGHT_VETO_MARGIN``; a worn Nun that the network takes for a Gimel, H52). The other way round, a Nun or Gimel
that the network reads below the letter's threshold (a worn dreidel's Nun, which a Gimel that lost its foot
resembles) is read when the face is nearly the very face taught for that letter and clearly more like it than
like the other letter's (``TaughtBelowRule``): the rubbed-off paint is the same every time that face lands.

Nun and Gimel differ by Gimel's foot, a pixel or two on a small face seen from above, and every wrong
letter the benches ever saw was one read as the other, some at 0.97-0.999. A Nun or Gimel read must
therefore be *steady*: the face is cut again by six outlines nudged by a small fraction of its side
(``nudged_quads``, as far as a pose finder's outline wanders between frames), every cut must name the
same letter, and the letter's confidence averaged over the seven cuts must still reach the threshold. A
foot that is really there survives a nudge; a foot guessed from a pixel of shading does not.

The threshold is per letter (``Calibration.letter_thresholds``, fitted like the global one on the
held-out fonts, never below ``LETTER_THRESHOLD_FLOOR``): on those fonts every Hey, Shin and Pe read at 0.9
or more was right, while wrong letters (all of them Nun and Gimel) reached 0.999. Pe's floor is higher
(``LETTER_FLOORS``): a face too blurred or faint to show its letter drifts to Pe.

A reading is "unreadable" (``letter`` None) when no dreidel is found, the face has no contrast, the face is
narrower than the smallest on which a Nun or Gimel may be read (``Calibration.min_read_side_px``), the face
is mostly shadow-like (``vision.pose.SHADOWLIKE_FACE``: a cast shadow taken for the body), the
calibrated probability of the best letter is below its threshold, or a Nun or Gimel is not sure enough
for its face's size (``Calibration.confusable_bins``: thresholds fitted per face size on held-out fonts
rendered small; a size where no threshold was safe is never read) or is not steady: the judge then asks a
human. A Nun or Gimel that its face size refuses, but that the network reads at the letter's own threshold and
steadily, may still be read when the Nun/Gimel second look (``PairLook``, an optional second network on a larger
cut of the face, H47) names the same letter on every nudged cut at least as surely as its own per-size threshold
asks; without its model file the recognizer reads exactly as without it. ``read`` keeps no state between calls and may be called from
several threads at once.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from controller.rules.letters import Letter
from vision.features import CHANNELS, MIN_SCALE, PATCH, FaceInput, face_input, rotations
from vision.pose import SHADOWLIKE_FACE, RestPose, find_resting_dreidel

#: the letters in the order of the model's classes (class = letter index * 4 + orientation; 20 = no letter)
LETTERS: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN, Letter.PE)
#: orientations: where the letter's top points in the handle-up face patch (quarter turns clockwise)
ORIENTATIONS = 4
#: the class index of "not a letter"
NONE_CLASS = len(LETTERS) * ORIENTATIONS
CLASSES = NONE_CLASS + 1
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "letters.onnx"
#: the Nun/Gimel second look (``PairLook``), optional: without it a Nun or Gimel is read as before it existed
DEFAULT_PAIR_MODEL = DEFAULT_MODEL.with_name("nun_gimel.onnx")
#: the second look's patch (px): the face cut as for the letter network, larger
PAIR_PATCH = 48
#: below this contrast (Lab units) the face shows no letter worth reading. It is the floor under which the network's
#: input is no longer brought to full strength (``vision.features.MIN_SCALE`` divides it instead), so the letter
#: reaches the network dimmed, fainter than almost every face it learned from. It was 6 until session 21: a faint
#: hollow-lettered Nun on a wooden dreidel (the second renderer's still and recording 1260009, contrast 6.8-7.2) was
#: read as Pe at 0.91-0.96. On 3544 tuning stills of the three renderers, and the frames read in 135 tuning
#: recordings, no other letter was read below 8.
MIN_CONTRAST = MIN_SCALE
#: the reading's ``reason`` for a face under ``MIN_CONTRAST`` (the table's teaching check tells it apart)
NO_LETTER = "the face shows no letter, or one too faint to read"
#: the end of the ``reason`` of a reading refused because its face is narrower than any letter is read on
TOO_SMALL = "too small to read"
#: the reason given for a face that looks like a cast shadow (``vision.pose.SHADOWLIKE_FACE``)
SHADOW_FACE = "the face found looks like a shadow: the outline may have taken the dreidel's shadow for its body"
#: letters told apart by a detail a pixel or two wide on a small face (Gimel's foot, Nun's base): a read
#: of one of them must be steady under nudges of the face's outline
CONFUSABLE: frozenset[Letter] = frozenset({Letter.NUN, Letter.GIMEL})
#: with a calibration that has no face-size bins (an older letters.json), a Nun or Gimel is read only on a face
#: at least this wide (pixels of the full-resolution picture): on a smaller face Gimel's foot is a pixel or two,
#: and the judge's recordings read two such faces (24 px, a Nun; 17 px, a Gimel) as the other letter at
#: 0.97-0.98, steady under nudges. A calibration with ``confusable_bins`` replaces this floor by thresholds
#: fitted per face size (``ConfusableBin``)
MIN_CONFUSABLE_SIDE_PX = 26.0
#: how far the outline is nudged for the steadiness check: a shift by this fraction of the face's side
NUDGE_SHIFT = 0.04
#: ... and a scaling about its centre by 1 +/- this
NUDGE_SCALE = 0.06


def face_side_px(quad: np.ndarray) -> float:
    """The mean length (px) of two adjacent sides of the face outline ``quad``."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    return float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2


def nudged_quads(quad: np.ndarray, shift: float = NUDGE_SHIFT, scale: float = NUDGE_SCALE) -> list[np.ndarray]:
    """The face ``quad`` moved left, right, up and down by ``shift`` of its side, and grown and shrunk by
    ``scale`` about its centre (six outlines a pose finder could as well have returned)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    d = shift * face_side_px(q)
    moves = [(d, 0.0, 1.0), (-d, 0.0, 1.0), (0.0, d, 1.0), (0.0, -d, 1.0), (0.0, 0.0, 1 + scale), (0.0, 0.0, 1 - scale)]
    return [(q - c) * k + c + (dx, dy) for dx, dy, k in moves]


#: the taught-face comparison looks at the face's interior: this many px of the 32 px patch are left out on
#: every side (the 12% margin around the face and its rim, where felt, shadow and a neighbour face's sliver
#: differ from still to still and would outweigh a foot of a pixel or two)
TEMPLATE_INSET = 5
#: ... and lines a taught face up with the query by shifting it by up to this many px of the patch (the pose's
#: outline wanders by a pixel or two)
TEMPLATE_SHIFT = 2


def template_similarity(query: np.ndarray, template: np.ndarray) -> float:
    """How alike two upright face inputs (``CHANNELS`` x ``PATCH`` x ``PATCH``) are: the best normalised
    cross-correlation (both channels, each about its own mean) of the query's interior with the template's,
    the template shifted by up to ``TEMPLATE_SHIFT`` px. 1 is the same picture."""
    n = PATCH - 2 * TEMPLATE_INSET
    lo, hi = TEMPLATE_INSET - TEMPLATE_SHIFT, TEMPLATE_INSET + n + TEMPLATE_SHIFT
    q = np.ascontiguousarray(query[:, TEMPLATE_INSET:TEMPLATE_INSET + n, TEMPLATE_INSET:TEMPLATE_INSET + n]
                             .transpose(1, 2, 0), dtype=np.float32)
    t = np.ascontiguousarray(template[:, lo:hi, lo:hi].transpose(1, 2, 0), dtype=np.float32)
    if float(q.std()) < 1e-6 or float(t.std()) < 1e-6:
        return 0.0  # a blank face is like nothing
    return float(cv2.matchTemplate(t, q, cv2.TM_CCOEFF_NORMED).max())


@dataclass(frozen=True)
class FaceScores:
    """One model's calibrated reading of one face: p(letter | a letter) (5,), p(no letter), p(orientation) (4,)."""

    p_letter: np.ndarray
    p_none: float
    p_orient: np.ndarray

    @property
    def confidence(self) -> np.ndarray:
        """Each letter's probability times the probability that the face shows a letter at all (5,)."""
        return self.p_letter * (1.0 - self.p_none)


@dataclass(frozen=True)
class FaceDecision:
    """What one face says: the best letter's index, its confidence, the scores reported, and whether the
    taught and the generic model disagree (the generic one read another letter clearly)."""

    best: int
    confidence: float
    scores: FaceScores
    conflict: bool = False


@dataclass(frozen=True)
class TaughtComparison:
    """How alike a Nun or Gimel query is to this dreidel's taught faces: to the most alike one of the letter
    read (``likeness``) and of the other letter (``rival``)."""

    likeness: float
    rival: float

    @property
    def margin(self) -> float:
        """How much more the query is like the letter read than like the other one."""
        return self.likeness - self.rival


class ModelError(RuntimeError):
    """The letter model file is missing or malformed; rebuild it with scripts/build_letter_model.py."""


#: no letter's own threshold is below this, whatever the calibration fonts allow (an unseen renderer or
#: camera is read less surely than unseen fonts)
LETTER_THRESHOLD_FLOOR = 0.9
#: letters whose own threshold has a higher floor than ``LETTER_THRESHOLD_FLOOR``. A face whose letter is too
#: faint or blurred to show drifts to Pe: a hollow-lettered Nun at 0.91-0.96 (session 21, now ``MIN_CONTRAST``),
#: and a very blurred magenta Nun at 0.922 (the thirty-fourth round's held-out fonts, seed 100000310; 0.926 on a
#: cut of the same still), while the calibration fonts left Pe at the floor. 0.94 leaves a margin over that
#: read's jitter and costs no more than just above it would: on 2400 tuning stills of the three renderers, 2 of
#: 343 right Pe reads untaught (2 of 346 taught) were under 0.94 (0.913, 0.924), as under 0.925; none of the
#: 125 Pe frames the judge read on the 25 Pe spins of 387 valid tuning spins was, taught or not.
LETTER_FLOORS: dict[Letter, float] = {Letter.PE: 0.94}


def letter_threshold_floor(letter: Letter) -> float:
    """The lowest own threshold ``letter`` may have (``LETTER_FLOORS``, else ``LETTER_THRESHOLD_FLOOR``)."""
    return LETTER_FLOORS.get(letter, LETTER_THRESHOLD_FLOOR)


def _letter_thresholds(raw: object) -> tuple[float, ...] | None:
    """``letter_thresholds`` of letters.json (``{"hey": 0.9, ...}``, every letter) as a tuple in ``LETTERS`` order.
    A letter's threshold under its own floor (``letter_threshold_floor``: a calibration written before the floor
    was raised) is raised to it."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or {Letter.parse(str(k)) for k in raw} != set(LETTERS):
        raise ValueError("letter_thresholds must give a threshold for each of " + ", ".join(x.value for x in LETTERS))
    by = {Letter.parse(str(k)): float(v) for k, v in raw.items()}
    if any(not LETTER_THRESHOLD_FLOOR <= v <= 1.0 for v in by.values()):
        raise ValueError(f"letter_thresholds must lie in [{LETTER_THRESHOLD_FLOOR}, 1]")
    return tuple(max(by[x], letter_threshold_floor(x)) for x in LETTERS)


@dataclass(frozen=True)
class ConfusableBin:
    """Faces narrower than ``below_px`` (and at least as wide as the previous bin's edge): the confidence a Nun
    or Gimel read must reach there, fitted on held-out fonts rendered at that size (the lowest at which none of
    them was read as the other letter), or None when no threshold was safe (such a face goes to a judge).
    ``below_px`` is infinite for the last bin of a fit that also covered large faces (every larger face; null in
    letters.json): a face of any size is cut to the same 32 px patch, so above some size the patch, not the
    picture, sets how much of Gimel's foot the network sees."""

    below_px: float
    threshold: float | None

    def to_json(self) -> dict[str, object]:
        """One entry of ``confusable_bins`` in letters.json."""
        return {"below_px": None if math.isinf(self.below_px) else self.below_px, "threshold": self.threshold}


def _confusable_bins(raw: object) -> tuple[ConfusableBin, ...] | None:
    """``confusable_bins`` of letters.json (``[{"below_px": 18, "threshold": null}, ...]``, edges rising; the last
    edge may be null: that bin holds every larger face)."""
    if raw is None:
        return None
    if not isinstance(raw, list) or not raw:
        raise ValueError("confusable_bins must be a non-empty list of {below_px, threshold}")
    bins = []
    for b in raw:
        if not isinstance(b, dict) or "below_px" not in b or "threshold" not in b:
            raise ValueError("each of confusable_bins needs below_px and threshold (null: never read)")
        t = b["threshold"]
        if t is not None and not LETTER_THRESHOLD_FLOOR <= float(t) <= 1.0:
            raise ValueError(f"confusable_bins thresholds must lie in [{LETTER_THRESHOLD_FLOOR}, 1] or be null")
        edge = math.inf if b["below_px"] is None else float(b["below_px"])
        bins.append(ConfusableBin(edge, None if t is None else float(t)))
    if any(b.below_px >= c.below_px for b, c in zip(bins, bins[1:], strict=False)):
        raise ValueError("confusable_bins must have rising below_px edges (only the last may be null: every larger face)")
    return tuple(bins)


#: the taught faces vouch only for a query that looks like one of them: its best ``template_similarity`` to
#: the taught faces of the letter read must reach this. A face blurred or lit past recognising is like none of
#: them, and then the margin measures blur and size rather than the letter: a held-out-font Nun smeared on a
#: 23 px face was 0.28 like its nearest taught Gimel (a small one) and 0.16 like its nearest taught Nun, and the
#: margin of 0.13 read it as Gimel. The right reads the rule admitted on tuning stills were 0.73 or more alike.
TAUGHT_MIN_LIKENESS = 0.5
#: ... and veto a Nun or Gimel read that looks like a taught face of the *other* letter: at least this alike to
#: one of them (a close match, not the blur that makes every small face alike) ...
TAUGHT_VETO_RIVAL = 0.85
#: ... and at least this much more alike to it than to any taught face of the letter read. A worn held-out-font
#: Nun (twin still 8,700,000 dreidel 8) was read as Gimel at 0.997 by the taught network on a 22 px face, while
#: it was 0.94 like a taught Nun and 0.76 like the nearest taught Gimel (-0.17). On 570 right taught Nun/Gimel
#: reads of tuning stills (twin 8.1M-8.7M, synth 99.6M-99.969M) none was both 0.85 like the other letter's taught
#: faces and more than 0.082 more like them than like its own: the veto cost none of them.
TAUGHT_VETO_MARGIN = 0.1


@dataclass(frozen=True)
class TaughtFaceRule:
    """When a recognizer taught this dreidel's Nun and Gimel may read a Nun or Gimel that its face's size refuses.

    The taught stills come from the same camera, dreidel and font as the query, so the query's face is compared
    with them directly (``template_similarity``, upright, interior only): a read the network makes at its letter's
    own threshold, and steadily, is also accepted when the query is at least ``margin`` more like the taught
    faces of that letter than like those of the other one, and at least ``min_likeness`` like one of that
    letter's, on a face at least ``min_side_px`` wide. The margin and the size are fitted by the build script on
    held-out-font dreidels taught and queried at small sizes (the most confident wrong read's margin, plus a
    safety step); the likeness floor is ``TAUGHT_MIN_LIKENESS`` unless the file says otherwise."""

    margin: float
    min_side_px: float
    min_likeness: float = TAUGHT_MIN_LIKENESS
    #: below the letter's own threshold: None, never; else the taught faces may also vouch for a read whose
    #: confidence and steadiness reach ``below.floor``, at ``below.margin`` (session 18)
    below: TaughtBelowRule | None = None

    def to_json(self) -> dict[str, object]:
        """``taught_faces`` in letters.json."""
        out: dict[str, object] = {"margin": self.margin, "min_side_px": self.min_side_px,
                                  "min_likeness": self.min_likeness}
        if self.below is not None:
            out["below_threshold"] = {"floor": self.below.floor, "margin": self.below.margin,
                                      "min_side_px": self.below.min_side_px, "min_likeness": self.below.min_likeness}
        return out


@dataclass(frozen=True)
class TaughtBelowRule:
    """When the taught faces may vouch for a Nun or Gimel read *below* the letter's own threshold.

    A dreidel whose paint is rubbed off shows a Nun that the network, rightly, is unsure of: a Gimel that lost
    its foot looks like it (the twin's wooden dreidel of recording 69001, wear 0.59, read Nun at 0.82-0.95 on
    every spin, taught or not). But the rubbed-off paint is the same every time that face lands, and the taught
    stills show it: the query was 0.90-0.96 like a taught Nun and 0.75-0.78 like the nearest taught Gimel. So a
    read whose confidence and steadiness reach ``floor``, on a face at least ``min_side_px`` wide, is accepted
    when the query is at least ``margin`` more like the taught faces of its letter than like those of the other,
    and at least ``min_likeness`` like one of its letter's (nearly the very face taught). The build script fixes
    the floor and the likeness and fits the size and the margin on held-out-font dreidels taught and queried as at
    the table: the margin lies a step above the largest margin of a wrong read that alike, from a little below the
    floor up, from that size on (``fit_taught_below``)."""

    floor: float
    margin: float
    min_side_px: float
    #: the least likeness to the letter's nearest taught face
    min_likeness: float = TAUGHT_MIN_LIKENESS


def _taught_face_rule(raw: object) -> TaughtFaceRule | None:
    """``taught_faces`` of letters.json (``{"margin": 0.02, "min_side_px": 14, "min_likeness": 0.5}``; without
    ``min_likeness``, ``TAUGHT_MIN_LIKENESS``), or None (not fitted)."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or "margin" not in raw or "min_side_px" not in raw:
        raise ValueError("taught_faces needs margin and min_side_px")
    margin, side = float(raw["margin"]), float(raw["min_side_px"])
    likeness = float(raw.get("min_likeness", TAUGHT_MIN_LIKENESS))
    if not 0.0 < margin < 1.0 or side < 0.0:
        raise ValueError("taught_faces margin must lie in (0, 1) and min_side_px be >= 0")
    if not 0.0 <= likeness < 1.0:
        raise ValueError("taught_faces min_likeness must lie in [0, 1)")
    below = raw.get("below_threshold")
    rule = None
    if below is not None:
        if not isinstance(below, dict) or not {"floor", "margin", "min_side_px"} <= below.keys():
            raise ValueError("taught_faces below_threshold needs floor, margin and min_side_px")
        rule = TaughtBelowRule(float(below["floor"]), float(below["margin"]), float(below["min_side_px"]),
                               float(below.get("min_likeness", TAUGHT_MIN_LIKENESS)))
        if not 0.5 <= rule.floor < 1.0 or not 0.0 < rule.margin < 1.0 or rule.min_side_px < 0.0:
            raise ValueError("taught_faces below_threshold floor must lie in [0.5, 1), margin in (0, 1) and "
                             "min_side_px be >= 0")
        if not 0.0 <= rule.min_likeness < 1.0:
            raise ValueError("taught_faces below_threshold min_likeness must lie in [0, 1)")
    return TaughtFaceRule(margin, side, likeness, rule)


@dataclass(frozen=True)
class LetterReading:
    """What was read on a resting dreidel.

    ``letter`` is None when unreadable (ask a judge). ``confidence`` is the calibrated probability
    that ``letter`` (or, when unreadable, the best guess) is right. ``scores`` holds, for every
    letter, its probability given that the face shows a letter (they sum to 1); ``confidence`` is
    the best letter's score times the probability that the face shows a letter at all. ``pose`` is
    the dreidel's pose, with tip and handle swapped when the letter showed clearly that the
    silhouette had them the wrong way round.
    """

    letter: Letter | None
    confidence: float
    scores: dict[Letter, float]
    pose: RestPose | None
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        """The ``sevivon classify --json`` object."""
        return {"letter": None if self.letter is None else self.letter.value, "confidence": round(self.confidence, 4)}


@dataclass(frozen=True)
class Calibration:
    """What the build script fitted on held-out fonts (``letters.json`` beside the network)."""

    temperature: float
    threshold: float
    enroll_weight: float
    enroll_temperature: float
    embedding: int
    meta: dict[str, object] = field(default_factory=dict)
    #: per letter (in ``LETTERS`` order), the probability below which that letter is not read; None: ``threshold``
    letter_thresholds: tuple[float, ...] | None = None
    #: Nun/Gimel thresholds by face size (small faces); None: the ``MIN_CONFUSABLE_SIDE_PX`` floor instead
    confusable_bins: tuple[ConfusableBin, ...] | None = None
    #: when taught Nun and Gimel faces may vouch for a small Nun or Gimel; None: they never do
    taught_faces: TaughtFaceRule | None = None

    def threshold_of(self, index: int) -> float:
        """The threshold of the letter ``LETTERS[index]``."""
        return self.threshold if self.letter_thresholds is None else self.letter_thresholds[index]

    def confusable_threshold(self, side_px: float) -> float | None:
        """The confidence a Nun or Gimel read must reach on a face ``side_px`` wide on top of the letter's own
        threshold (0 above the calibrated sizes, unless the last bin is open-ended), or None when that size is
        never read."""
        if self.confusable_bins is None:
            return 0.0 if side_px >= MIN_CONFUSABLE_SIDE_PX else None
        for b in self.confusable_bins:
            if side_px < b.below_px:
                return b.threshold
        return 0.0

    def min_read_side_px(self) -> float:
        """The narrowest face (px) on which any letter is read: the size below which a Nun or Gimel is never read
        (the leading ``confusable_bins`` without a threshold), or 0 without bins.

        Below it a Nun or Gimel can only be refused or read as another letter, never read right, so a Hey, Shin
        or Pe read there is less sure than its confidence says: the twenty-ninth round's held-out fonts read a
        Nun on a face under 14 px as Shin. On 600 tuning stills of the held-out font families (seeds
        100,000,000-100,000,039) that floor refused 3 right reads of faces under 14 px, and no wrong one.
        """
        side = 0.0
        for b in self.confusable_bins or ():
            if b.threshold is not None:
                break
            side = b.below_px
        return side

    def to_json(self) -> dict[str, object]:
        """The sidecar file's content."""
        out: dict[str, object] = {"temperature": self.temperature, "threshold": self.threshold}
        if self.letter_thresholds is not None:
            out["letter_thresholds"] = {letter.value: t for letter, t in zip(LETTERS, self.letter_thresholds, strict=True)}
        if self.confusable_bins is not None:
            out["confusable_bins"] = [b.to_json() for b in self.confusable_bins]
        if self.taught_faces is not None:
            out["taught_faces"] = self.taught_faces.to_json()
        return {**out, "enroll_weight": self.enroll_weight, "enroll_temperature": self.enroll_temperature,
                "embedding": self.embedding, "meta": self.meta}


@dataclass(frozen=True)
class PairConfirm:
    """A second step of the second look's rule (``confirm`` in nun_gimel.json, session 16): a Nun or Gimel on a face
    from ``from_px`` to ``below_px`` (inf: any larger) that the letter network reads at least at ``from_score``
    (min(confidence, steadiness)) but below its size's threshold needs only ``agreement`` from the second look,
    instead of the ``pair_bins`` threshold. The two networks' mistakes are not the same ones: a wrong read that the letter network
    is fairly sure of is seldom one the second look backs, so together they read more of the small faces than
    either's threshold alone, within the same bound on wrong reads (fitted together on held-out fonts by
    ``scripts/build_nun_gimel_model.py``)."""

    from_score: float
    agreement: float
    from_px: float
    below_px: float

    def to_json(self) -> dict[str, object]:
        """``confirm`` in nun_gimel.json (``below_px`` null: every larger face)."""
        return {"from_score": self.from_score, "agreement": self.agreement, "from_px": self.from_px,
                "below_px": None if math.isinf(self.below_px) else self.below_px}


def read_pair_confirm(raw: object) -> PairConfirm | None:
    """``confirm`` of nun_gimel.json (absent or null: no second step; ``below_px`` null: every larger face); raises
    ValueError when it is malformed."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("confirm must be {from_score, agreement, from_px, below_px}")
    below = math.inf if raw.get("below_px") is None else float(raw["below_px"])
    got = PairConfirm(float(raw["from_score"]), float(raw["agreement"]), float(raw["from_px"]), below)
    if not (LETTER_THRESHOLD_FLOOR <= got.from_score <= 1.0 and 0.5 <= got.agreement <= 1.0
            and 0.0 <= got.from_px < got.below_px):
        raise ValueError(f"confirm out of range: {got}")
    return got


class PairLook:
    """The Nun/Gimel second look (H47, ``vision/models/nun_gimel.onnx`` + ``nun_gimel.json``, built by
    ``scripts/build_nun_gimel_model.py``): a small binary network (Nun, Gimel) on a ``PAIR_PATCH`` px cut of the
    face (the letter network's two channels), trained on the training fonts only and read on all four quarter
    turns (logits averaged). ``pair_bins`` holds, per face size, how surely it must name the letter the letter
    network read, on the face's cut and on every nudged cut (``agreement``), for a Nun or Gimel that the face's
    size refused to be read (None: never); ``confirm`` (optional) a lower agreement for a read the letter network
    is surer of (:class:`PairConfirm`). Both are fitted on held-out fonts: since session 16 so that the small faces'
    Nun/Gimel reads of both rules together stay within a bound on the wrong share (the rate rule)."""

    def __init__(self, net: cv2.dnn.Net, bins: tuple[ConfusableBin, ...] | None, path: Path,
                 meta: dict[str, object] | None = None, confirm: PairConfirm | None = None) -> None:
        self._net = net
        self._lock = threading.Lock()
        self.bins = bins
        self.path = path
        self.meta = meta or {}
        self.confirm = confirm

    @classmethod
    def load(cls, path: Path, require_bins: bool = True) -> PairLook:
        """Read ``path`` (.onnx) and ``pair_bins`` of the .json beside it, or raise :class:`ModelError` saying
        what is missing or wrong."""
        path = Path(path)
        side = path.with_suffix(".json")
        for p in (path, side):
            if not p.is_file():
                raise ModelError(f"Nun/Gimel second look {p} is missing: run scripts/build_nun_gimel_model.py")
        try:
            raw = json.loads(side.read_text())
            if int(raw.get("patch", -1)) != PAIR_PATCH:
                raise ValueError(f"patch {raw.get('patch')} is not this code's {PAIR_PATCH}")
            bins = _confusable_bins(raw.get("pair_bins"))
            if bins is None and require_bins:
                raise ValueError("no pair_bins (not calibrated)")
            confirm = read_pair_confirm(raw.get("confirm"))
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelError(f"Nun/Gimel second look {side} is malformed ({exc}): rebuild it with "
                             "scripts/build_nun_gimel_model.py") from exc
        try:
            net = cv2.dnn.readNetFromONNX(str(path))
            net.setInput(np.zeros((1, CHANNELS, PAIR_PATCH, PAIR_PATCH), np.float32))
            shape = np.asarray(net.forward()).shape
        except cv2.error as exc:
            raise ModelError(f"Nun/Gimel second look {path} does not run ({exc}): rebuild it with "
                             "scripts/build_nun_gimel_model.py") from exc
        if shape != (1, 2):
            raise ModelError(f"Nun/Gimel second look {path} gives {shape[1:]} outputs, this code expects 2")
        return cls(net, bins, path, dict(raw.get("meta", {})), confirm)

    def threshold(self, side_px: float) -> float | None:
        """The agreement a face ``side_px`` wide needs (None: the second look is not asked at that size)."""
        for b in self.bins or ():
            if side_px < b.below_px:
                return b.threshold
        return None

    def needed(self, side_px: float, score: float) -> float | None:
        """The agreement a Nun or Gimel read at ``score`` (min(confidence, steadiness)) on a face ``side_px`` wide
        needs: :meth:`threshold`, or ``confirm``'s lower one for a read at or above its ``from_score``."""
        base = self.threshold(side_px)
        c = self.confirm
        if base is None or c is None or not c.from_px <= side_px < c.below_px or score < c.from_score:
            return base
        return min(base, c.agreement)

    def p_gimel(self, faces: Sequence[np.ndarray]) -> np.ndarray:
        """p(Gimel | Nun or Gimel) of each face input (``CHANNELS`` x ``PAIR_PATCH`` x ``PAIR_PATCH``), its four
        quarter turns' logits averaged."""
        batch = np.concatenate([rotations(f) for f in faces])
        with self._lock:
            self._net.setInput(np.ascontiguousarray(batch, dtype=np.float32))
            out = np.asarray(self._net.forward(), np.float64).reshape(len(faces), 4, 2).mean(axis=1)
        return 1.0 / (1.0 + np.exp(out[:, 0] - out[:, 1]))

    def agreement(self, image_bgr: np.ndarray, quad: np.ndarray, letter: Letter, need: float | None = None) -> float:
        """How surely the second look names ``letter`` (Nun or Gimel): the least p(letter) over the face cut by
        ``quad`` and by its six nudged outlines (``nudged_quads``). With ``need``, a face whose own cut already
        falls short of it is answered from that cut alone (the least can only be lower: the same decision, for a
        quarter of the network's work)."""
        def p_letter(quads: list[np.ndarray]) -> np.ndarray:
            p = self.p_gimel([face_input(image_bgr, q, size=PAIR_PATCH).tensor for q in quads])
            return p if letter is Letter.GIMEL else 1.0 - p

        own = float(p_letter([np.asarray(quad, np.float64).reshape(4, 2)])[0])
        if need is not None and own < need:
            return own
        return min(own, float(p_letter(nudged_quads(quad)).min()))


class LetterModel:
    """The network (ONNX, run by ``cv2.dnn``) and its calibration.

    ``forward`` is serialized by a lock, because one ``cv2.dnn.Net`` must not run in two threads
    at once; everything else about a reading is local to the call.
    """

    def __init__(self, net: cv2.dnn.Net, calibration: Calibration, path: Path) -> None:
        self._net = net
        self._lock = threading.Lock()
        self.calibration = calibration
        self.path = path

    @property
    def temperature(self) -> float:
        """The generic model's calibrated temperature."""
        return self.calibration.temperature

    @property
    def threshold(self) -> float:
        """The calibrated probability below which a reading is unreadable."""
        return self.calibration.threshold

    @classmethod
    def load(cls, path: Path) -> LetterModel:
        """Read ``path`` (.onnx) and its calibration (.json beside it), or raise :class:`ModelError`."""
        path = Path(path)
        side = path.with_suffix(".json")
        for p in (path, side):
            if not p.is_file():
                raise ModelError(f"letter model file {p} is missing: run scripts/build_letter_model.py")
        try:
            raw = json.loads(side.read_text())
            calibration = Calibration(
                temperature=float(raw["temperature"]), threshold=float(raw["threshold"]),
                enroll_weight=float(raw["enroll_weight"]), enroll_temperature=float(raw["enroll_temperature"]),
                embedding=int(raw["embedding"]), meta=dict(raw.get("meta", {})),
                letter_thresholds=_letter_thresholds(raw.get("letter_thresholds")),
                confusable_bins=_confusable_bins(raw.get("confusable_bins")),
                taught_faces=_taught_face_rule(raw.get("taught_faces")),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise ModelError(f"letter model calibration {side} is malformed ({exc}): rebuild it with "
                             "scripts/build_letter_model.py") from exc
        try:
            net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as exc:
            raise ModelError(f"letter model {path} is not a network OpenCV can load: rebuild it with "
                             "scripts/build_letter_model.py") from exc
        if net.empty():
            raise ModelError(f"letter model {path} is empty: rebuild it with scripts/build_letter_model.py")
        model = cls(net, calibration, path)
        try:
            out = model.forward(np.zeros((1, CHANNELS, PATCH, PATCH), np.float32))
        except cv2.error as exc:
            raise ModelError(f"letter model {path} does not run on this code's {CHANNELS}x{PATCH}x{PATCH} input "
                             f"({exc}): rebuild it with scripts/build_letter_model.py") from exc
        if out.shape != (1, CLASSES + calibration.embedding):
            raise ModelError(f"letter model {path} gives {out.shape[1:]} outputs, this code expects "
                             f"{CLASSES} classes + a {calibration.embedding}-wide embedding: rebuild it with "
                             "scripts/build_letter_model.py")
        return model

    def forward(self, batch: np.ndarray) -> np.ndarray:
        """Raw outputs (N x (21 + embedding)): class logits, then the embedding, for N inputs."""
        with self._lock:
            self._net.setInput(np.ascontiguousarray(batch, dtype=np.float32))
            out = self._net.forward()
        return np.asarray(out, np.float64).reshape(len(batch), -1)

    def score(self, face: FaceInput) -> tuple[np.ndarray, float, np.ndarray]:
        """Test-time-rotated scores of one face: letter logits (5 x 4), the no-letter logit, and the
        L2-normalized embeddings (4 x E) of the face turned 0-3 quarter turns counter-clockwise."""
        return self.score_many([face])[0]

    def score_many(self, faces: Sequence[FaceInput]) -> list[tuple[np.ndarray, float, np.ndarray]]:
        """``score`` for several faces in one network call (one batch of 4 quarter turns per face)."""
        out = self.forward(np.concatenate([rotations(face.tensor) for face in faces]))
        got = []
        for k in range(len(faces)):
            o = out[4 * k:4 * k + 4]
            got.append((tta_logits(o[:, :CLASSES]), float(o[:, NONE_CLASS].mean()), normalize_rows(o[:, CLASSES:])))
        return got


def load_pair_look(path: Path) -> tuple[PairLook | None, str]:
    """The Nun/Gimel second look at ``path``, or None and why not (a missing or broken file degrades the
    recognizer to reading without it, never to failing)."""
    try:
        return PairLook.load(path), ""
    except ModelError as exc:
        return None, str(exc)


def normalize_rows(a: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length."""
    return a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-9)


def orientation_prior(pose_confidence: float) -> np.ndarray:
    """Prior over where the letter's top points in the patch (up, right, down, left).

    A confident tip/handle call makes "up" likely; an unsure one leaves up and down nearly even.
    """
    c = float(np.clip(pose_confidence, 0.0, 1.0))
    return np.array([0.35 + 0.45 * c, 0.15 - 0.1 * c, 0.35 - 0.25 * c, 0.15 - 0.1 * c])


def tta_logits(raw: np.ndarray) -> np.ndarray:
    """Letter logits (5 x 4: letter x orientation) averaged over the patch's four quarter turns.

    ``raw[k]`` scores the patch turned k quarter turns counter-clockwise; a letter whose top pointed
    at orientation o (clockwise quarter turns) then points at (o - k) mod 4.
    """
    acc = np.zeros((len(LETTERS), ORIENTATIONS))
    for k in range(4):
        acc += np.roll(raw[k, :NONE_CLASS].reshape(len(LETTERS), ORIENTATIONS), k, axis=1)
    return acc / 4.0


def posterior(z: np.ndarray, z_none: float, prior: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """From (calibrated) logits: p(letter | a letter) (5,), p(no letter), p(orientation | a letter) (4,).

    Whether the face shows a letter comes from the plain softmax over all 21 classes; which letter
    and which way up, from the letter classes with the log prior over orientations.
    """
    top = max(float(z.max()), z_none)
    e = np.exp(z - top)
    e_none = float(np.exp(z_none - top))
    p_none = e_none / (e.sum() + e_none)
    s = z + np.log(prior)[None, :]
    p = np.exp(s - s.max())
    p /= p.sum()
    return p.sum(axis=1), p_none, p.sum(axis=0)


#: the similarity ``enrolled_similarity`` gives a letter the dreidel may bear but was not taught: what a taught face
#: typically has with the nearest taught face of *another* letter of its dreidel. On the taught stills of 140 tuning
#: recordings (twin 84001-91016, second renderer 1480000-1520015), each against the other stills of its dreidel:
#: other letters 0.33 median (0.82 at the 99th percentile), its own letter 0.98 median (0.88 at the 5th
#: percentile). So a query of a taught letter gains over the letters not yet taught about as it would over them
#: taught, and a query of a letter not yet taught is, typically, no nearer a taught letter than to its own. What
#: keeps a face of a letter not yet taught from being read as a taught one is ``LetterRecognizer.generic_only``.
#: Measured with ``bench/learn_from_rulings.py --stills twin --dreidels 12`` (a game's 288 stills, every unread one
#: taught as a judge's ruling would): 0.85 read 224 (as untaught), 0.6 read 234, 0.33 read 242; none wrong.
OPEN_LETTER_LIKENESS = 0.33
#: a dreidel bears Shin or Pe, never both: with one of them taught, the other is known not to be on it
ALTERNATE: dict[Letter, Letter] = {Letter.SHIN: Letter.PE, Letter.PE: Letter.SHIN}


def open_letters(taught: Iterable[int]) -> frozenset[int]:
    """The letters (indices into ``LETTERS``) that a dreidel taught the letters ``taught`` may still bear but was
    not taught: every other letter but the alternate of a taught Shin or Pe (``ALTERNATE``). Empty when nothing
    was taught (then nothing is known of the dreidel) or when its four letters were."""
    known = set(taught)
    if not known:
        return frozenset()
    absent = {LETTERS.index(ALTERNATE[LETTERS[i]]) for i in known if LETTERS[i] in ALTERNATE}
    return frozenset(i for i in range(len(LETTERS)) if i not in known and i not in absent)


def enrolled_similarity(embeddings: np.ndarray, protos: np.ndarray, proto_letters: np.ndarray) -> np.ndarray:
    """(5 x 4) cosine similarity of the query, for each orientation, to each letter's nearest prototype.

    Prototypes are normalized embeddings of upright enrolled faces. The query's orientation o means
    its top points o quarter turns clockwise, so turning it o quarter turns counter-clockwise
    (``embeddings[o]``) makes it upright.

    A letter with no prototype is -1 (nothing like it) only when the dreidel is known not to bear it (Shin
    when Pe was taught, and the other way round). A letter the dreidel may bear but that was not taught yet
    (``open_letters``: a table is taught one letter at a time, from a judge's ruling or a still) gets
    ``OPEN_LETTER_LIKENESS``, what a face typically has with another letter of its dreidel: with -1, one taught
    Shin made every Gimel and Hey of a twin recording read as Shin by the taught model, and go to a judge (the
    two models disagreed), where the untaught recognizer had read them.
    """
    sims = embeddings @ protos.T  # 4 x P
    out = np.full((len(LETTERS), ORIENTATIONS), -1.0)
    taught = []
    for i in range(len(LETTERS)):
        cols = proto_letters == i
        if cols.any():
            out[i] = sims[:, cols].max(axis=1)
            taught.append(i)
    unknown = sorted(open_letters(taught))
    if unknown:
        out[unknown] = OPEN_LETTER_LIKENESS
    return out


class LetterRecognizer:
    """Reads the up letter of a resting dreidel (see the module docstring)."""

    def __init__(self, model: LetterModel, protos: np.ndarray | None = None,
                 proto_letters: np.ndarray | None = None, threshold: float | None = None,
                 faces: np.ndarray | None = None, pair: PairLook | None = None) -> None:
        self.model = model
        #: the Nun/Gimel second look, or None (a Nun or Gimel that its face size refuses stays refused)
        self.pair = pair
        width = model.calibration.embedding
        self.protos = protos if protos is not None else np.zeros((0, width))
        self.proto_letters = proto_letters if proto_letters is not None else np.zeros(0, np.int64)
        #: the taught stills' upright face inputs (one per prototype, same order): compared directly with a
        #: small Nun or Gimel (``taught_margin``)
        self.faces = faces if faces is not None else np.zeros((self.protos.shape[0], CHANNELS, PATCH, PATCH),
                                                                np.float32)
        if self.faces.shape[0] != self.protos.shape[0]:
            raise ValueError("one taught face per prototype")
        #: letters this dreidel may bear but was not taught (``open_letters``): only the generic model reads them
        self.open_letters = open_letters(int(i) for i in np.unique(self.proto_letters))
        #: ... and Nun and Gimel both while either is open: the taught stills of one of them cannot tell it from the
        #: other (a Gimel the generic model takes for a Nun would look like a taught Nun, and nothing would say no)
        pair = {LETTERS.index(x) for x in CONFUSABLE}
        self.generic_only = self.open_letters | (pair if self.open_letters & pair else set())
        self.threshold = model.threshold if threshold is None else float(threshold)
        cal = model.calibration
        #: each letter's threshold (a threshold given here applies to every letter)
        self.letter_thresholds = tuple(
            self.threshold if threshold is not None else cal.threshold_of(i) for i in range(len(LETTERS)))

    @classmethod
    def default(cls) -> LetterRecognizer:
        """The generic recognizer from ``vision/models/letters.onnx`` (nothing is downloaded), with the Nun/Gimel
        second look of ``nun_gimel.onnx`` when that file is there (``pair_note`` says why not otherwise)."""
        pair, note = load_pair_look(DEFAULT_PAIR_MODEL)
        reader = cls(LetterModel.load(DEFAULT_MODEL), pair=pair)
        reader.pair_note = note
        return reader

    #: why the recognizer reads without the Nun/Gimel second look ("" when it has one or was not asked for it)
    pair_note: str = ""

    @property
    def enrolled(self) -> int:
        """How many taught stills this recognizer holds."""
        return int(self.protos.shape[0])

    def with_enrollment(self, samples: Iterable[tuple[Letter, np.ndarray]]) -> LetterRecognizer:
        """A recognizer that also knows this dreidel from a few labelled stills (a new object).

        Each still is an overhead picture with that letter up. A still where no dreidel or no
        letter can be found raises ``ValueError`` naming it, since a judge should retake it.
        """
        taught, skipped = self.with_usable_enrollment(samples)
        if skipped:
            raise ValueError(skipped[0])
        return taught

    def with_usable_enrollment(self, samples: Iterable[tuple[Letter, np.ndarray]],
                               names: Sequence[str] | None = None) -> tuple[LetterRecognizer, list[str]]:
        """Like ``with_enrollment``, but a still that cannot be used is left out instead of failing.

        ``names`` (e.g. the files) label the stills in the messages. Returns the taught recognizer
        and one message per still left out (what to retake). A folder
        of taught stills (a recording's ``enroll/``, the table's data folder) should not lose every
        still, nor stop a judging, because one of them is blurred or empty.
        """
        protos = [self.protos]
        labels = [self.proto_letters]
        faces = [self.faces]
        skipped: list[str] = []
        for n, (letter, image) in enumerate(samples):
            try:
                label = names[n] if names is not None and n < len(names) else f"enrollment still #{n + 1}"
                emb, idx, face = self._prototype(label, letter, image)
            except ValueError as exc:
                skipped.append(str(exc))
                continue
            protos.append(emb)
            labels.append(np.array([idx]))
            faces.append(face[None])
        taught = LetterRecognizer(self.model, np.concatenate(protos), np.concatenate(labels), self.threshold,
                                  np.concatenate(faces), pair=self.pair)
        taught.letter_thresholds = self.letter_thresholds
        taught.pair_note = self.pair_note
        return taught, skipped

    def _prototype(self, label: str, letter: Letter | str, image: np.ndarray) -> tuple[np.ndarray, int, np.ndarray]:
        """The upright embedding (1, D) of the taught still ``label``, its letter's index and its upright face
        input (``CHANNELS`` x ``PATCH`` x ``PATCH``)."""
        letter = Letter.parse(letter) if isinstance(letter, str) else letter
        pose = find_resting_dreidel(image)
        if pose is None or pose.face_quad is None:
            raise ValueError(f"{label} ({letter.value}): no dreidel found; retake it "
                             "with the whole dreidel inside the tray")
        face = face_input(image, pose.face_quad)
        if face.contrast < MIN_CONTRAST:
            raise ValueError(f"{label} ({letter.value}): {NO_LETTER}; "
                             "retake it with the letter up and lit")
        z, _, emb = self.model.score(face)
        idx = LETTERS.index(letter)
        # the orientation in which this letter fits best makes the prototype upright
        o = int(np.argmax(z[idx] / self.model.temperature + np.log(orientation_prior(pose.confidence))))
        return emb[o][None, :], idx, rotations(face.tensor)[o]

    @classmethod
    def from_enroll_dir(cls, path: str | Path, base: LetterRecognizer | None = None,
                        on_skip: Callable[[str], None] | None = None) -> LetterRecognizer:
        """The default recognizer taught from ``<letter>_<n>.png`` stills in ``path`` (DESIGN.md).

        A still that shows no dreidel or no letter raises ``ValueError``; with ``on_skip`` it is left
        out instead and ``on_skip`` hears which file and why (an error only if none is usable).
        """
        folder = Path(path)
        if not folder.is_dir():
            raise ValueError(f"enrollment folder {folder} does not exist")
        samples: list[tuple[Letter, np.ndarray]] = []
        names: list[str] = []
        for file in sorted(folder.iterdir()):
            if file.suffix.lower() not in (".png", ".jpg", ".jpeg"):
                continue
            name = file.stem.split("_")[0]
            try:
                letter = Letter.parse(name)
            except ValueError as exc:
                raise ValueError(f"{file}: enrollment stills are named <letter>_<n>.png ({exc})") from None
            image = cv2.imread(str(file), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"{file}: not a readable picture")
            samples.append((letter, image))
            names.append(str(file))
        if not samples:
            raise ValueError(f"enrollment folder {folder} holds no <letter>_<n>.png stills")
        taught, skipped = (base or cls.default()).with_usable_enrollment(samples, names)
        if skipped and (on_skip is None or len(skipped) == len(samples)):
            raise ValueError("; ".join(skipped))
        if on_skip is not None:
            for message in skipped:
                on_skip(message)
        return taught

    def read_face(self, face: FaceInput, pose_confidence: float) -> tuple[np.ndarray, float, np.ndarray]:
        """Calibrated p(letter | a letter) (5,), p(no letter) and p(orientation) (4,) for one face (the
        taught model's when taught)."""
        generic, taught = self._face_scores([face], pose_confidence)[0]
        got = taught if taught is not None else generic
        return got.p_letter, got.p_none, got.p_orient

    def _face_scores(self, faces: Sequence[FaceInput], pose_confidence: float
                     ) -> list[tuple[FaceScores, FaceScores | None]]:
        """The generic and (when taught) the taught reading of each face, in one network call."""
        cal = self.model.calibration
        prior = orientation_prior(pose_confidence)
        out: list[tuple[FaceScores, FaceScores | None]] = []
        for z, z_none, emb in self.model.score_many(faces):
            z, z_none = z / cal.temperature, z_none / cal.temperature
            generic = FaceScores(*posterior(z, z_none, prior))
            taught = None
            if self.enrolled:
                sim = enrolled_similarity(emb, self.protos, self.proto_letters)
                taught = FaceScores(*posterior((z + cal.enroll_weight * sim) / cal.enroll_temperature,
                                               z_none / cal.enroll_temperature, prior))
            out.append((generic, taught))
        return out

    def _decide(self, generic: FaceScores, taught: FaceScores | None) -> FaceDecision:
        """One face's letter: the taught reading when taught (vetoed when the generic model clearly reads
        another letter), else the generic one."""
        g_conf = generic.confidence
        g_best = int(np.argmax(g_conf))
        if taught is None:
            return FaceDecision(g_best, float(g_conf[g_best]), generic)
        t_conf = taught.confidence
        t_best = int(np.argmax(t_conf))
        if g_best in self.generic_only:
            # the generic model takes the face for a letter this dreidel was not taught (or a Nun or Gimel while
            # the other is not): the taught stills know nothing of it, so the face is read as untaught
            return FaceDecision(g_best, float(g_conf[g_best]), generic)
        if t_best in self.generic_only:
            # the taught model leans to a letter it was not taught, the generic one to a taught letter: unreadable
            return FaceDecision(t_best, float(t_conf[t_best]), taught, conflict=True)
        conflict = t_best != g_best and bool(g_conf[g_best] >= self.letter_thresholds[g_best])
        return FaceDecision(t_best, float(t_conf[t_best]), taught, conflict=conflict)

    def steadiness(self, image_bgr: np.ndarray, quad: np.ndarray, best: int, confidence: float,
                   pose_confidence: float) -> float:
        """Letter ``best``'s confidence averaged over the face cut by ``quad`` (read at ``confidence``) and
        by its six nudged outlines; 0 when a nudged cut names another letter best."""
        faces = [face_input(image_bgr, q) for q in nudged_quads(quad)]
        total = confidence
        for generic, taught in self._face_scores(faces, pose_confidence):
            d = self._decide(generic, taught)
            if d.best != best or d.conflict:
                return 0.0
            total += d.confidence
        return total / (len(faces) + 1)

    def taught_comparison(self, face: FaceInput, best: int, pose_confidence: float) -> TaughtComparison | None:
        """How alike the face, turned upright as the network reads Nun or Gimel ``best`` in it, is to the most
        alike taught face of ``best`` and of the other one (``template_similarity``); None unless both letters
        were taught."""
        confusable = [LETTERS.index(x) for x in (Letter.NUN, Letter.GIMEL)]
        if best not in confusable:
            return None
        other = confusable[1 - confusable.index(best)]
        mine, theirs = self.faces[self.proto_letters == best], self.faces[self.proto_letters == other]
        if not len(mine) or not len(theirs):
            return None
        z, _, _ = self.model.score(face)
        o = int(np.argmax(z[best] / self.model.temperature + np.log(orientation_prior(pose_confidence))))
        query = rotations(face.tensor)[o]
        return TaughtComparison(max(template_similarity(query, t) for t in mine),
                                max(template_similarity(query, t) for t in theirs))

    def taught_margin(self, face: FaceInput, best: int, pose_confidence: float) -> float | None:
        """How much more the face is like the taught faces of Nun or Gimel ``best`` than like those of the other
        one (``taught_comparison``'s margin); None unless both letters were taught."""
        got = self.taught_comparison(face, best, pose_confidence)
        return None if got is None else got.margin

    def read(self, image_bgr: np.ndarray, pose: RestPose | None = None,
             background_bgr: np.ndarray | None = None) -> LetterReading:
        """Read the letter of the dreidel resting in ``image_bgr`` (finds the pose when not given)."""
        if pose is None:
            pose = find_resting_dreidel(image_bgr, background_bgr)
        uniform = {letter: 1.0 / len(LETTERS) for letter in LETTERS}
        if pose is None or pose.face_quad is None:
            return LetterReading(None, 0.0, uniform, pose, reason="no dreidel found")
        face = face_input(image_bgr, pose.face_quad)
        if face.contrast < MIN_CONTRAST:
            return LetterReading(None, 0.0, uniform, pose, reason=NO_LETTER)
        side = face_side_px(pose.face_quad)
        floor = self.model.calibration.min_read_side_px()
        if side < floor:
            return LetterReading(None, 0.0, uniform, pose,
                                 reason=f"a face {side:.0f} px wide, under {floor:.0f} px: {TOO_SMALL}")
        if pose.face_shadowlike >= SHADOWLIKE_FACE:
            return LetterReading(None, 0.0, uniform, pose, reason=SHADOW_FACE)
        generic, taught = self._face_scores([face], pose.confidence)[0]
        decision = self._decide(generic, taught)
        best, confidence, got = decision.best, decision.confidence, decision.scores
        scores = {letter: float(p) for letter, p in zip(LETTERS, got.p_letter, strict=True)}
        quad = pose.face_quad
        if got.p_orient[2] > 0.8 and got.p_none < 0.5:  # the letter stands on its head: tip and handle were swapped
            pose = pose.flipped()
        if decision.conflict:
            return LetterReading(None, confidence, scores, pose,
                                 reason="the taught and the generic model read different letters")

        def accept(reason: str = "") -> LetterReading:
            """The letter read, unless it is a Nun or Gimel that looks clearly more like a taught face of the
            other letter than like any of its own (``TAUGHT_VETO_RIVAL``, ``TAUGHT_VETO_MARGIN``)."""
            if LETTERS[best] in CONFUSABLE:
                compared = self.taught_comparison(face, best, pose.confidence)
                if compared is not None and compared.rival >= TAUGHT_VETO_RIVAL and -compared.margin >= TAUGHT_VETO_MARGIN:
                    return LetterReading(None, confidence, scores, pose,
                                         reason=f"Nun or Gimel, but the face is more like a taught face of the other "
                                                f"letter ({compared.rival:.3f} vs {compared.likeness:.3f})")
            return LetterReading(LETTERS[best], confidence, scores, pose, reason=reason)

        threshold = self.letter_thresholds[best]
        if confidence < threshold:
            reason = "no letter on the face" if got.p_none > 0.5 else "not sure enough"
            vouched = self._taught_below(image_bgr, face, quad, best, confidence, pose.confidence)
            if vouched is None:
                return LetterReading(None, confidence, scores, pose, reason=reason)
            return accept(vouched)
        if LETTERS[best] in CONFUSABLE:
            at_size = self.model.calibration.confusable_threshold(side)
            unsteady = "Nun or Gimel, but not steady when the face's outline is nudged"
            steady: float | None = None
            if at_size is not None and confidence >= at_size:
                steady = self.steadiness(image_bgr, quad, best, confidence, pose.confidence)
                if steady >= max(threshold, at_size):
                    return accept()
                why = unsteady
            else:
                why = (f"Nun or Gimel on a face of {side:.0f} px: " + ("too small to tell apart" if at_size is None
                       else f"not sure enough at that size ({confidence:.3f} < {at_size:.3f})"))
            # refused at its size: the second look may vouch for a read at the letter's own threshold, steady
            pair = self.pair
            pair_at = None if pair is None else pair.threshold(side)
            if pair is not None and pair_at is not None and at_size is not None and (
                float(generic.confidence[best]) >= threshold
            ):
                if steady is None:
                    steady = self.steadiness(image_bgr, quad, best, confidence, pose.confidence)
                if steady >= threshold:
                    needed = pair.needed(side, min(confidence, steady))
                    pair_at = pair_at if needed is None else needed
                    agree = pair.agreement(image_bgr, quad, LETTERS[best], need=pair_at)
                    if agree >= pair_at:
                        return accept(f"second look {agree:.3f} >= {pair_at:.3f}")
                    why = f"{why}; the second look does not tell ({agree:.3f} < {pair_at:.3f})"
            # refused at its size: the taught Nun and Gimel faces of this dreidel may still vouch for it
            rule = self.model.calibration.taught_faces
            if rule is None or side < rule.min_side_px:
                return LetterReading(None, confidence, scores, pose, reason=why)
            compared = self.taught_comparison(face, best, pose.confidence)
            if compared is None:
                return LetterReading(None, confidence, scores, pose, reason=why)
            if compared.likeness < rule.min_likeness:
                return LetterReading(None, confidence, scores, pose,
                                     reason=f"{why}; the face is like none of the taught faces "
                                            f"({compared.likeness:.3f} < {rule.min_likeness:.3f})")
            if compared.margin < rule.margin:
                return LetterReading(None, confidence, scores, pose,
                                     reason=f"{why}; the taught faces do not tell "
                                            f"({compared.margin:+.3f} < {rule.margin:.3f})")
            # they do: the letter's own threshold and steadiness remain
            if steady is None:
                steady = self.steadiness(image_bgr, quad, best, confidence, pose.confidence)
            if steady < threshold:
                vouched = self._taught_below(image_bgr, face, quad, best, confidence, pose.confidence, steady)
                if vouched is None:
                    return LetterReading(None, confidence, scores, pose, reason=unsteady)
                return accept(vouched)
        return accept()

    def _taught_below(self, image_bgr: np.ndarray, face: FaceInput, quad: np.ndarray, best: int,
                      confidence: float, pose_confidence: float, steady: float | None = None) -> str | None:
        """Why this dreidel's taught faces vouch for a Nun or Gimel read whose confidence or steadiness is below
        the letter's own threshold (``TaughtBelowRule``), or None when they do not (or the rule, or the taught
        faces, are absent). ``steady``: the read's steadiness, when already measured."""
        rule = self.model.calibration.taught_faces
        if rule is None or rule.below is None or LETTERS[best] not in CONFUSABLE or confidence < rule.below.floor:
            return None
        if face_side_px(quad) < max(rule.min_side_px, rule.below.min_side_px):
            return None
        compared = self.taught_comparison(face, best, pose_confidence)
        if compared is None or compared.likeness < max(rule.min_likeness, rule.below.min_likeness) \
                or compared.margin < rule.below.margin:
            return None
        if steady is None:
            steady = self.steadiness(image_bgr, quad, best, confidence, pose_confidence)
        if steady < rule.below.floor:
            return None
        return (f"below the letter's threshold ({min(confidence, steady):.3f}), but like a taught face of it "
                f"({compared.likeness:.3f} vs {compared.rival:.3f})")

    def assess(self, image_bgr: np.ndarray, pose: RestPose) -> tuple[int, float, float, float] | None:
        """What ``read`` weighs for a Nun or Gimel, before any threshold: the best letter's index, its
        confidence, its steadiness (0 unless the best letter is a Nun or Gimel and every nudged cut agrees) and
        the face's side in px; None when the face cannot be read at all. The build script fits the face-size
        thresholds (``ConfusableBin``) on these."""
        if pose.face_quad is None:
            return None
        face = face_input(image_bgr, pose.face_quad)
        if face.contrast < MIN_CONTRAST:
            return None
        decision = self._decide(*self._face_scores([face], pose.confidence)[0])
        if decision.conflict:
            return None
        steady = 0.0
        if LETTERS[decision.best] in CONFUSABLE:
            steady = self.steadiness(image_bgr, pose.face_quad, decision.best, decision.confidence, pose.confidence)
        return decision.best, decision.confidence, steady, face_side_px(pose.face_quad)
