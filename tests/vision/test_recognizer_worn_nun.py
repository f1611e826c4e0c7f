"""A worn Nun in a held-out font that the letter networks take for a Gimel (H52): twin still 8,700,000 dreidel 8
(tuning; NachlieliCLM-Bold, paint wear 0.585), its two query Nuns and a query Gimel cut to 120 x 120 px around the
dreidel, and the dreidel's taught stills cut the same way.

The wear rubs the paint off where the Nun's stem meets its base, and the base's rounded left end is left
hanging like Gimel's foot. Session 15's generic network read both Nuns as Gimel at 0.997-0.999 on 22-27 px faces,
steadily, above the face size's threshold, and the second look agreed (p(Gimel) 0.90-0.97). Session 16's network
(trained on worn paint too) reads the first at 0.962, under its size's 0.9925, and the second look does not back
it (0.896): a judge. The second Nun it still reads as Gimel, at 0.9885 on a 22 px face, under the size's
threshold but over the confirm step's 0.98, and the second look backs that at 0.953 (over 0.8): a wrong read the
rate rule's 0.5% allows, marked as known (strict: a fix makes it fail until the mark goes). Taught, the network
reads both below the letter's own threshold (0.85 and 0.94): a judge. The faces are 0.94 like a taught Nun and
0.76-0.80 like a taught Gimel, so the taught faces' veto (``TAUGHT_VETO_RIVAL``, ``TAUGHT_VETO_MARGIN``) would
refuse them too."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.rules.letters import Letter
from vision import recognizer
from vision.features import face_input
from vision.pose import find_resting_dreidel
from vision.recognizer import (
    LETTERS,
    TAUGHT_VETO_MARGIN,
    TAUGHT_VETO_RIVAL,
    LetterModel,
    LetterRecognizer,
    face_side_px,
)

DATA = Path(__file__).resolve().parent / "data"
GIMEL = LETTERS.index(Letter.GIMEL)
KNOWN = pytest.mark.xfail(strict=True, reason="known wrong read (H52): a worn held-out-font Nun read as Gimel; a fix "
                                              "needs networks that have seen worn letters. Drop the mark when it passes.")


@pytest.fixture(scope="module")
def taught(generic: LetterRecognizer) -> LetterRecognizer:
    """Taught this dreidel's three Nun and three Gimel stills (the generic network reads two of the Nuns as Gimel)."""
    return LetterRecognizer.from_enroll_dir(DATA / "enroll8700000_d08", base=generic)


def worn_nun(k: int) -> np.ndarray:
    image = cv2.imread(str(DATA / f"twin8700000_d08_nun_{k}.png"), cv2.IMREAD_COLOR)
    assert image is not None
    return image


@pytest.mark.parametrize("k", [0, pytest.param(1, marks=KNOWN)])
def test_the_generic_recognizer_does_not_read_the_worn_nun_as_gimel(generic: LetterRecognizer, k: int) -> None:
    got = generic.read(worn_nun(k))
    assert got.letter is not Letter.GIMEL, (got.confidence, got.reason)


def test_the_first_worn_nun_is_left_to_a_judge_and_says_why(generic: LetterRecognizer) -> None:
    """It failed with session 15's network (read Gimel at 0.999)."""
    got = generic.read(worn_nun(0))
    assert got.letter is None
    assert "not sure enough at that size" in got.reason and "the second look does not tell" in got.reason


@pytest.mark.parametrize("k", [0, 1])
def test_taught_the_worn_nuns_are_left_to_a_judge(taught: LetterRecognizer, k: int) -> None:
    image = worn_nun(k)
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert 20.0 < face_side_px(pose.face_quad) < 29.0
    got = taught.read(image, pose=pose)
    assert got.letter is None, (got.letter, got.confidence)
    assert max(got.scores, key=got.scores.__getitem__) is Letter.GIMEL  # it leans the wrong way all the same
    # and were it surer, the taught faces would veto it: the face is clearly more like a taught Nun
    compared = taught.taught_comparison(face_input(image, pose.face_quad), GIMEL, pose.confidence)
    assert compared is not None
    assert compared.rival >= TAUGHT_VETO_RIVAL and -compared.margin >= TAUGHT_VETO_MARGIN


def test_the_taught_veto_refuses_the_worn_nun_when_the_network_is_sure(taught: LetterRecognizer,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The veto at work: with the letters' own thresholds at 0.8 the taught network's Gimel reaches it, and only
    the veto refuses it (without the veto, the same recognizer reads the wrong letter)."""
    image = worn_nun(1)
    pose = find_resting_dreidel(image)
    cal = taught.model.calibration
    assert cal.letter_thresholds is not None and cal.confusable_bins is not None
    low = replace(cal, letter_thresholds=tuple(0.8 for _ in cal.letter_thresholds),
                  confusable_bins=tuple(replace(b, threshold=None if b.threshold is None else 0.8)
                                        for b in cal.confusable_bins))
    sure = LetterRecognizer(LetterModel(taught.model._net, low, taught.model.path), taught.protos,
                            taught.proto_letters, faces=taught.faces)
    got = sure.read(image, pose=pose)
    assert got.letter is None and "more like a taught face of the other letter" in got.reason, got.reason
    monkeypatch.setattr(recognizer, "TAUGHT_VETO_RIVAL", 1.01)
    assert sure.read(image, pose=pose).letter is Letter.GIMEL


def test_taught_the_dreidels_gimel_is_still_read(taught: LetterRecognizer) -> None:
    image = cv2.imread(str(DATA / "twin8700000_d08_gimel_2.png"), cv2.IMREAD_COLOR)
    assert image is not None
    got = taught.read(image)
    assert got.letter is Letter.GIMEL, (got.confidence, got.reason)
