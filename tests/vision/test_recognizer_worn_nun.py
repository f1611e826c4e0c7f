"""A worn Nun in a held-out font that both letter networks take for a Gimel (H52): twin still 8,700,000 dreidel 8
(tuning; NachlieliCLM-Bold, paint wear 0.585), its two query Nuns and a query Gimel cut to 120 x 120 px around the
dreidel, and the dreidel's taught stills cut the same way.

The wear rubs the paint off where the Nun's stem meets its base, and the base's rounded left end is left
hanging like Gimel's foot. The generic recognizer reads both Nuns as Gimel at 0.997-0.999 on 22-27 px faces,
steadily, above the face size's threshold (0.9919), and the Nun/Gimel second look agrees (p(Gimel) 0.90-0.97): no
rule of the generic recognizer refuses them, and none that was tried separates them from right reads at a cost
worth paying (see the H52 report); those two wrong reads are marked as known (strict: a fix makes them fail until
the mark goes). Taught, the network still leans to Gimel (0.989 on the first cut, below the size threshold; 0.997
on the second, whose outline the pose finder draws 22 px wide and tight on the face), but the face is 0.94 like a
taught Nun and at most 0.76-0.80 like a taught Gimel: the taught faces veto the read (``TAUGHT_VETO_RIVAL``,
``TAUGHT_VETO_MARGIN``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.rules.letters import Letter
from vision import recognizer
from vision.features import face_input
from vision.pose import find_resting_dreidel
from vision.recognizer import LETTERS, TAUGHT_VETO_MARGIN, TAUGHT_VETO_RIVAL, LetterRecognizer, face_side_px

DATA = Path(__file__).resolve().parent / "data"
GIMEL = LETTERS.index(Letter.GIMEL)
KNOWN = pytest.mark.xfail(strict=True, reason="known wrong read (H52): a worn held-out-font Nun read as Gimel; a fix "
                                              "needs networks that have seen worn letters. Drop the mark when it passes.")


@pytest.fixture(scope="module")
def generic() -> LetterRecognizer:
    return LetterRecognizer.default()


@pytest.fixture(scope="module")
def taught(generic: LetterRecognizer) -> LetterRecognizer:
    """Taught this dreidel's three Nun and three Gimel stills (the generic network reads two of the Nuns as Gimel)."""
    return LetterRecognizer.from_enroll_dir(DATA / "enroll8700000_d08", base=generic)


def worn_nun(k: int) -> np.ndarray:
    image = cv2.imread(str(DATA / f"twin8700000_d08_nun_{k}.png"), cv2.IMREAD_COLOR)
    assert image is not None
    return image


@KNOWN
@pytest.mark.parametrize("k", [0, 1])
def test_the_generic_recognizer_does_not_read_the_worn_nun_as_gimel(generic: LetterRecognizer, k: int) -> None:
    got = generic.read(worn_nun(k))
    assert got.letter is not Letter.GIMEL, (got.confidence, got.reason)


def test_taught_the_first_worn_nun_is_left_to_a_judge_for_its_size(taught: LetterRecognizer) -> None:
    image = worn_nun(0)
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    assert 24.0 < face_side_px(pose.face_quad) < 29.0
    got = taught.read(image, pose=pose)
    assert got.letter is None, (got.letter, got.confidence)
    assert max(got.scores, key=got.scores.__getitem__) is Letter.GIMEL  # it leans the wrong way all the same
    assert "not sure enough at that size" in got.reason


def test_taught_the_second_worn_nun_is_vetoed_by_the_taught_nuns(taught: LetterRecognizer,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Fails before the veto: the taught recognizer read it as Gimel at 0.997."""
    image = worn_nun(1)
    pose = find_resting_dreidel(image)
    assert pose is not None and pose.face_quad is not None
    got = taught.read(image, pose=pose)
    assert got.letter is None, (got.letter, got.confidence)
    assert "more like a taught face of the other letter" in got.reason
    compared = taught.taught_comparison(face_input(image, pose.face_quad), GIMEL, pose.confidence)
    assert compared is not None
    assert compared.rival >= TAUGHT_VETO_RIVAL and -compared.margin >= TAUGHT_VETO_MARGIN
    # what the veto overrides: without it the same recognizer reads the wrong letter
    monkeypatch.setattr(recognizer, "TAUGHT_VETO_RIVAL", 1.01)
    assert taught.read(image, pose=pose).letter is Letter.GIMEL


def test_taught_the_dreidels_gimel_is_still_read(taught: LetterRecognizer) -> None:
    image = cv2.imread(str(DATA / "twin8700000_d08_gimel_2.png"), cv2.IMREAD_COLOR)
    assert image is not None
    got = taught.read(image)
    assert got.letter is Letter.GIMEL, (got.confidence, got.reason)
