"""Read the letter on the up face of a resting dreidel, with a calibrated confidence.

The generic model (``vision/models/letters.npz``, built by ``scripts/build_letter_model.py`` from
letters rendered in every installed Hebrew font) is a small two-layer network over the descriptor of
:mod:`vision.features`. It predicts 20 classes: 5 letters x 4 orientations of the letter in the face
patch (top toward the handle, toward the tip, or sideways). The letter's probability sums over
orientations, so a wrong tip/handle call does not cost the letter; the pose's own confidence sets a
prior over orientations. The four quarter-turns of the glyph are all scored (test-time rotation) and
their logits averaged. A temperature fitted on stills in font families held out of training
calibrates the probabilities.

Enrollment (``with_enrollment``): a few labelled stills of *this* dreidel become prototypes; the
cosine similarity of the query (in each orientation) to each letter's nearest prototype is added to
the generic logits with a weight fitted in the build script, which also refits the temperature.

A reading is "unreadable" (``letter`` None) when no dreidel is found, the face has no contrast, or
the calibrated top probability is below the model's threshold: the judge then asks a human.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from controller.rules.letters import Letter
from vision.features import FEATURE_DIM, Glyph, describe_rotations, glyph_from_face
from vision.pose import RestPose, find_resting_dreidel

#: the letters in the order of the model's classes (class = letter index * 4 + orientation)
LETTERS: tuple[Letter, ...] = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.SHIN, Letter.PE)
#: orientations: where the letter's top points in the handle-up face patch (quarter turns clockwise)
ORIENTATIONS = 4
DEFAULT_MODEL = Path(__file__).resolve().parent / "models" / "letters.npz"
#: below this contrast (Lab units) the face shows no letter worth reading
MIN_CONTRAST = 6.0


class ModelError(RuntimeError):
    """The letter model file is missing or malformed; rebuild it with scripts/build_letter_model.py."""


@dataclass(frozen=True)
class LetterReading:
    """What was read on a resting dreidel.

    ``letter`` is None when unreadable (ask a judge). ``confidence`` is the calibrated probability
    that ``letter`` (or, when unreadable, the best guess) is right. ``scores`` holds that probability
    for every letter (they sum to 1). ``pose`` is the dreidel's pose, with tip and handle swapped
    when the letter showed clearly that the silhouette had them the wrong way round.
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
class LetterModel:
    """The generic model's parameters (see the module docstring)."""

    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    temperature: float
    enroll_weight: float
    enroll_temperature: float
    threshold: float
    meta: dict[str, object] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> LetterModel:
        """Read a model file, or raise :class:`ModelError` saying how to rebuild it."""
        if not path.is_file():
            raise ModelError(f"letter model {path} is missing: run scripts/build_letter_model.py")
        try:
            with np.load(path, allow_pickle=False) as z:
                model = cls(
                    mean=z["mean"].astype(np.float32), std=z["std"].astype(np.float32),
                    w1=z["w1"].astype(np.float32), b1=z["b1"].astype(np.float32),
                    w2=z["w2"].astype(np.float32), b2=z["b2"].astype(np.float32),
                    temperature=float(z["temperature"]), enroll_weight=float(z["enroll_weight"]),
                    enroll_temperature=float(z["enroll_temperature"]), threshold=float(z["threshold"]),
                    meta=json.loads(str(z["meta"])),
                )
        except (KeyError, ValueError, OSError) as exc:
            raise ModelError(f"letter model {path} is malformed ({exc}): rebuild it with "
                             "scripts/build_letter_model.py") from exc
        if model.mean.shape != (FEATURE_DIM,) or model.w2.shape[1] != len(LETTERS) * ORIENTATIONS:
            raise ModelError(f"letter model {path} does not match this code's descriptor "
                             f"({model.mean.shape} features): rebuild it with scripts/build_letter_model.py")
        return model

    def save(self, path: Path) -> None:
        """Write the model (NumPy .npz, no pickles)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            path, mean=self.mean, std=self.std, w1=self.w1.astype(np.float16), b1=self.b1,
            w2=self.w2.astype(np.float16), b2=self.b2, temperature=self.temperature,
            enroll_weight=self.enroll_weight, enroll_temperature=self.enroll_temperature,
            threshold=self.threshold, meta=json.dumps(self.meta),
        )

    def standardize(self, x: np.ndarray) -> np.ndarray:
        """Features scaled as in training."""
        return (x - self.mean) / self.std

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw class scores (N x 20) for descriptors (N x D)."""
        h = np.maximum(self.standardize(x) @ self.w1 + self.b1, 0.0)
        return h @ self.w2 + self.b2


def orientation_prior(pose_confidence: float) -> np.ndarray:
    """Prior over where the letter's top points in the patch (up, right, down, left).

    A confident tip/handle call makes "up" likely; an unsure one leaves up and down nearly even.
    """
    c = float(np.clip(pose_confidence, 0.0, 1.0))
    return np.array([0.35 + 0.45 * c, 0.15 - 0.1 * c, 0.35 - 0.25 * c, 0.15 - 0.1 * c])


def tta_logits(model: LetterModel, rotations: np.ndarray) -> np.ndarray:
    """Logits (5 x 4: letter x orientation) averaged over the glyph's four quarter turns.

    ``rotations[k]`` describes the glyph turned k quarter turns counter-clockwise; a letter whose top
    pointed at orientation o (clockwise quarter turns) then points at (o - k) mod 4.
    """
    raw = model.logits(rotations).reshape(4, len(LETTERS), ORIENTATIONS)
    acc = np.zeros((len(LETTERS), ORIENTATIONS))
    for k in range(4):
        acc += np.roll(raw[k], k, axis=1)  # acc[:, o] += raw[k][:, (o - k) % 4]
    return acc / 4.0


def letter_posterior(z: np.ndarray, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joint softmax of (letter x orientation) scores with a log prior; returns (p(letter), p(orientation))."""
    s = z + np.log(prior)[None, :]
    s = s - s.max()
    p = np.exp(s)
    p /= p.sum()
    return p.sum(axis=1), p.sum(axis=0)


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of a with every row of b."""
    an = a / (np.linalg.norm(a, axis=1, keepdims=True) + 1e-9)
    bn = b / (np.linalg.norm(b, axis=1, keepdims=True) + 1e-9)
    return an @ bn.T


def enrolled_similarity(model: LetterModel, rotations: np.ndarray, protos: np.ndarray,
                        proto_letters: np.ndarray) -> np.ndarray:
    """(5 x 4) similarity of the query, for each orientation, to each letter's nearest prototype.

    Prototypes are standardized descriptors of upright enrolled glyphs. The query's orientation o
    means its top points o quarter turns clockwise, so turning it o quarter turns counter-clockwise
    (``rotations[o]``) makes it upright.
    """
    q = model.standardize(rotations)
    sims = cosine_rows(q, protos)  # 4 x P
    out = np.full((len(LETTERS), ORIENTATIONS), -1.0)
    for i in range(len(LETTERS)):
        cols = proto_letters == i
        if cols.any():
            out[i] = sims[:, cols].max(axis=1)
    return out


class LetterRecognizer:
    """Reads the up letter of a resting dreidel (see the module docstring)."""

    def __init__(self, model: LetterModel, protos: np.ndarray | None = None,
                 proto_letters: np.ndarray | None = None, threshold: float | None = None) -> None:
        self.model = model
        self.protos = protos if protos is not None else np.zeros((0, FEATURE_DIM), np.float32)
        self.proto_letters = proto_letters if proto_letters is not None else np.zeros(0, np.int64)
        self.threshold = model.threshold if threshold is None else float(threshold)

    @classmethod
    def default(cls) -> LetterRecognizer:
        """The generic recognizer from ``vision/models/letters.npz`` (nothing is downloaded)."""
        return cls(LetterModel.load(DEFAULT_MODEL))

    @property
    def enrolled(self) -> int:
        """How many taught stills this recognizer holds."""
        return int(self.protos.shape[0])

    def with_enrollment(self, samples: Iterable[tuple[Letter, np.ndarray]]) -> LetterRecognizer:
        """A recognizer that also knows this dreidel from a few labelled stills (a new object).

        Each still is an overhead picture with that letter up. A still where no dreidel or no
        letter can be found raises ``ValueError`` naming it, since a judge should retake it.
        """
        protos = [self.protos]
        labels = [self.proto_letters]
        for n, (letter, image) in enumerate(samples):
            letter = Letter.parse(letter) if isinstance(letter, str) else letter
            pose = find_resting_dreidel(image)
            if pose is None or pose.face_quad is None:
                raise ValueError(f"enrollment still #{n + 1} ({letter.value}): no dreidel found; retake it "
                                 "with the whole dreidel inside the tray")
            glyph = glyph_from_face(image, pose.face_quad)
            if glyph.contrast < MIN_CONTRAST:
                raise ValueError(f"enrollment still #{n + 1} ({letter.value}): the face shows no letter; "
                                 "retake it with the letter up and lit")
            rotations = describe_rotations(glyph.image)
            idx = LETTERS.index(letter)
            z = tta_logits(self.model, rotations)[idx]  # this letter's score per orientation
            o = int(np.argmax(z / self.model.temperature + np.log(orientation_prior(pose.confidence))))
            protos.append(self.model.standardize(rotations[o])[None, :].astype(np.float32))
            labels.append(np.array([idx]))
        return LetterRecognizer(self.model, np.concatenate(protos), np.concatenate(labels), self.threshold)

    @classmethod
    def from_enroll_dir(cls, path: str | Path, base: LetterRecognizer | None = None) -> LetterRecognizer:
        """The default recognizer taught from ``<letter>_<n>.png`` stills in ``path`` (DESIGN.md)."""
        folder = Path(path)
        if not folder.is_dir():
            raise ValueError(f"enrollment folder {folder} does not exist")
        samples: list[tuple[Letter, np.ndarray]] = []
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
        if not samples:
            raise ValueError(f"enrollment folder {folder} holds no <letter>_<n>.png stills")
        return (base or cls.default()).with_enrollment(samples)

    def read_glyph(self, glyph: Glyph, pose_confidence: float) -> tuple[np.ndarray, np.ndarray]:
        """Calibrated p(letter) (5,) and p(orientation) (4,) for a normalized glyph."""
        rotations = describe_rotations(glyph.image)
        z = tta_logits(self.model, rotations) / self.model.temperature
        if self.enrolled:
            sim = enrolled_similarity(self.model, rotations, self.protos, self.proto_letters)
            z = (z + self.model.enroll_weight * sim) / self.model.enroll_temperature
        return letter_posterior(z, orientation_prior(pose_confidence))

    def read(self, image_bgr: np.ndarray, pose: RestPose | None = None,
             background_bgr: np.ndarray | None = None) -> LetterReading:
        """Read the letter of the dreidel resting in ``image_bgr`` (finds the pose when not given)."""
        if pose is None:
            pose = find_resting_dreidel(image_bgr, background_bgr)
        uniform = {letter: 1.0 / len(LETTERS) for letter in LETTERS}
        if pose is None or pose.face_quad is None:
            return LetterReading(None, 0.0, uniform, pose, reason="no dreidel found")
        glyph = glyph_from_face(image_bgr, pose.face_quad)
        if glyph.contrast < MIN_CONTRAST or glyph.mass <= 0.0:
            return LetterReading(None, 0.0, uniform, pose, reason="the face shows no letter")
        p_letter, p_orient = self.read_glyph(glyph, pose.confidence)
        best = int(np.argmax(p_letter))
        confidence = float(p_letter[best])
        scores = {letter: float(p) for letter, p in zip(LETTERS, p_letter, strict=True)}
        if p_orient[2] > 0.8:  # the letter stands on its head: the silhouette swapped tip and handle
            pose = pose.flipped()
        if confidence < self.threshold:
            return LetterReading(None, confidence, scores, pose, reason="not sure enough")
        return LetterReading(LETTERS[best], confidence, scores, pose)
