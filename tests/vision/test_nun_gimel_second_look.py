"""The Nun/Gimel second look (``PairLook``, H47): it may read a Nun or Gimel that its face size refused, only when
the letter network reads it at the letter's own threshold, steadily, and the second look agrees at its size's
threshold; without its model file the recognizer reads exactly as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.rules.letters import Letter
from vision.pose import find_resting_dreidel
from vision.recognizer import (
    DEFAULT_MODEL,
    DEFAULT_PAIR_MODEL,
    ConfusableBin,
    LetterModel,
    LetterRecognizer,
    ModelError,
    PairConfirm,
    PairLook,
    face_side_px,
    load_pair_look,
)

DATA = Path(__file__).resolve().parent / "data"


class ScriptedLook(PairLook):
    """A second look that agrees by a set amount (and counts how often it was asked)."""

    def __init__(self, agree: float, threshold: float | None, confirm: PairConfirm | None = None) -> None:
        super().__init__(None, (ConfusableBin(14.0, None), ConfusableBin(float("inf"), threshold)), Path("scripted"),
                         confirm=confirm)
        self.agree = agree
        self.asked = 0

    def agreement(self, image_bgr: np.ndarray, quad: np.ndarray, letter: Letter, need: float | None = None) -> float:
        self.asked += 1
        return self.agree


@pytest.fixture(scope="module")
def model() -> LetterModel:
    return LetterModel.load(DEFAULT_MODEL)


def still(name: str) -> np.ndarray:
    image = cv2.imread(str(DATA / f"{name}.png"), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_without_the_second_look_a_small_nun_is_refused_for_its_size(model: LetterModel) -> None:
    """Twin still 8,500,000 dreidel 3 (tuning), a 22 px Nun the network reads at 0.98, steadily: the face-size
    threshold (0.992) refuses it."""
    got = LetterRecognizer(model).read(still("twin8500000_d03_nun"))
    assert got.letter is None and "not sure enough at that size" in got.reason
    assert max(got.scores, key=got.scores.__getitem__) is Letter.NUN


def test_a_second_look_that_agrees_reads_the_nun_its_size_refused(model: LetterModel) -> None:
    look = ScriptedLook(agree=0.999, threshold=0.99)
    got = LetterRecognizer(model, pair=look).read(still("twin8500000_d03_nun"))
    assert got.letter is Letter.NUN and look.asked == 1
    assert "second look" in got.reason


def test_a_second_look_below_its_threshold_leaves_the_refusal_and_says_so(model: LetterModel) -> None:
    look = ScriptedLook(agree=0.95, threshold=0.99)
    got = LetterRecognizer(model, pair=look).read(still("twin8500000_d03_nun"))
    assert got.letter is None
    assert "not sure enough at that size" in got.reason and "second look does not tell (0.950 < 0.990)" in got.reason


def test_a_confirm_step_asks_less_agreement_of_a_read_the_letter_network_is_surer_of(model: LetterModel) -> None:
    """The same Nun (read at 0.97-0.99, steadily): with a confirm step from 0.95 an agreement of 0.85 reads it;
    with the step from 0.999 (above its read) the second look's own 0.99 applies and it stays refused."""
    image = still("twin8500000_d03_nun")
    look = ScriptedLook(agree=0.85, threshold=0.99, confirm=PairConfirm(0.95, 0.8, 14.0, 34.0))
    got = LetterRecognizer(model, pair=look).read(image)
    assert got.letter is Letter.NUN and "second look 0.850 >= 0.800" in got.reason
    strict = ScriptedLook(agree=0.85, threshold=0.99, confirm=PairConfirm(0.999, 0.8, 14.0, 34.0))
    got = LetterRecognizer(model, pair=strict).read(image)
    assert got.letter is None and "second look does not tell (0.850 < 0.990)" in got.reason
    elsewhere = ScriptedLook(agree=0.85, threshold=0.99, confirm=PairConfirm(0.95, 0.8, 30.0, 34.0))  # other sizes
    assert LetterRecognizer(model, pair=elsewhere).read(image).letter is None


def test_a_size_the_second_look_has_no_threshold_for_is_not_asked(model: LetterModel) -> None:
    look = ScriptedLook(agree=1.0, threshold=None)
    got = LetterRecognizer(model, pair=look).read(still("twin8500000_d03_nun"))
    assert got.letter is None and look.asked == 0


def test_the_second_look_is_not_asked_below_the_letters_own_threshold(model: LetterModel) -> None:
    """A face read at 0.98 with a letter threshold raised to 0.99 is refused before any second look."""
    look = ScriptedLook(agree=1.0, threshold=0.5)
    reader = LetterRecognizer(model, threshold=0.99, pair=look)
    got = reader.read(still("twin8500000_d03_nun"))
    assert got.letter is None and look.asked == 0


def test_a_face_the_size_never_reads_is_never_vouched_for(model: LetterModel) -> None:
    """Below 14 px no Nun or Gimel is read: shrink the Nun still until its face is about 12 px."""
    image = still("twin8500000_d03_nun")
    small = cv2.resize(image, None, fx=0.55, fy=0.55, interpolation=cv2.INTER_AREA)
    pose = find_resting_dreidel(small)
    assert pose is not None and pose.face_quad is not None
    assert face_side_px(pose.face_quad) < 14.0
    look = ScriptedLook(agree=1.0, threshold=0.5)
    LetterRecognizer(model, pair=look).read(small, pose)
    assert look.asked == 0


def test_a_taught_recognizer_keeps_the_second_look(model: LetterModel) -> None:
    look = ScriptedLook(agree=0.999, threshold=0.99)
    taught = LetterRecognizer(model, pair=look).with_enrollment(
        (Letter.parse(p.stem.split("_")[0]), cv2.imread(str(p))) for p in sorted((DATA / "enroll54002").glob("*.png")))
    assert taught.pair is look


def test_without_its_model_file_the_recognizer_reads_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               model: LetterModel) -> None:
    """The second look is optional: with its file missing the default recognizer has none, says which file, and
    reads the refused Nun exactly as the letter network alone does."""
    import vision.recognizer as rec

    monkeypatch.setattr(rec, "DEFAULT_PAIR_MODEL", tmp_path / "nun_gimel.onnx")
    reader = LetterRecognizer.default()
    assert reader.pair is None
    assert "nun_gimel.onnx" in reader.pair_note and "build_nun_gimel_model.py" in reader.pair_note
    image = still("twin8500000_d03_nun")
    alone = LetterRecognizer(model).read(image)
    got = reader.read(image)
    assert (got.letter, got.confidence, got.reason) == (alone.letter, alone.confidence, alone.reason)


def test_a_broken_second_look_degrades_and_says_what_is_wrong(tmp_path: Path) -> None:
    onnx = tmp_path / "nun_gimel.onnx"
    shutil.copy(DEFAULT_PAIR_MODEL, onnx)
    side = tmp_path / "nun_gimel.json"
    raw = json.loads(DEFAULT_PAIR_MODEL.with_suffix(".json").read_text())
    side.write_text(json.dumps({**raw, "patch": 32}))
    with pytest.raises(ModelError, match="patch 32"):
        PairLook.load(onnx)
    assert load_pair_look(onnx)[0] is None
    side.write_text(json.dumps({**raw, "pair_bins": None}))
    pair, note = load_pair_look(onnx)
    assert pair is None and "not calibrated" in note
    onnx.write_bytes(b"not a network")
    side.write_text(json.dumps(raw))
    pair, note = load_pair_look(onnx)
    assert pair is None and "rebuild" in note


# -- the shipped second look ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped() -> LetterRecognizer:
    reader = LetterRecognizer.default()
    assert reader.pair is not None, reader.pair_note
    return reader


def test_the_shipped_second_look_is_sure_and_never_asked_below_14_px(shipped: LetterRecognizer) -> None:
    look = shipped.pair
    assert look is not None
    assert look.threshold(13.0) is None
    assert all(b.threshold is None or b.threshold >= 0.95 for b in look.bins or ())


def test_the_shipped_second_look_reads_the_small_nun_its_size_refused(shipped: LetterRecognizer) -> None:
    """Twin still 8,500,000 dreidel 3, the 22 px Nun refused by its size alone: now read, by the second look."""
    got = shipped.read(still("twin8500000_d03_nun"))
    assert got.letter is Letter.NUN and "second look" in got.reason


def test_the_shipped_second_look_does_not_vouch_for_the_gimel_read_as_nun(shipped: LetterRecognizer) -> None:
    """Twin 54002 spin 7's 17 px StamSefarad Gimel, read Nun at 0.97-0.99 by the letter network on every stored
    frame: the second look never names Nun surely enough there, so every frame stays refused or reads Gimel."""
    from tests.vision.test_recognizer_nun_gimel import twin_frames

    look = shipped.pair
    assert look is not None
    for image, pose in twin_frames("twin54002_spin7"):
        got = shipped.read(image, pose=pose)
        assert got.letter in (None, Letter.GIMEL)
        assert look.agreement(image, pose.face_quad, Letter.NUN) < look.threshold(17.0)  # type: ignore[operator]


def test_an_early_answer_gives_the_same_decision_as_the_full_look(shipped: LetterRecognizer) -> None:
    """Asked with the threshold it must reach, the second look may stop at the face's own cut: only when that cut
    already falls short, so the decision (and the full look's value, when it passes) is the same."""
    from tests.vision.test_recognizer_nun_gimel import twin_frames

    look = shipped.pair
    assert look is not None
    cases = [(image, pose.face_quad) for image, pose in twin_frames("twin54002_spin7")]
    image = still("twin8500000_d03_nun")
    cases.append((image, find_resting_dreidel(image).face_quad))  # type: ignore[union-attr]
    for image, quad in cases:
        for letter in (Letter.NUN, Letter.GIMEL):
            full = look.agreement(image, quad, letter)
            for need in (0.5, 0.95, 0.99):
                early = look.agreement(image, quad, letter, need=need)
                assert (early >= need) == (full >= need)
                if early >= need:
                    assert early == pytest.approx(full)


def test_the_commands_say_when_the_second_look_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing second look is a degraded reader, not a silent one: ``analyze`` names it in its report line and
    ``classify`` warns on stderr (its JSON on stdout stays the contract), and both still read."""
    from click.testing import CliRunner

    import vision.recognizer as rec
    from controller.analyze_cli import load_recognizer
    from controller.cli import main

    monkeypatch.setattr(rec, "DEFAULT_PAIR_MODEL", tmp_path / "nun_gimel.onnx")
    reader, note = load_recognizer(None)
    assert reader is not None
    assert note.startswith("generic letter model") and "nun_gimel.onnx" in note and "build_nun_gimel_model.py" in note
    got = CliRunner().invoke(main, ["classify", str(DATA / "twin8500000_d03_nun.png"), "--json"])
    assert got.exit_code == 0, got.output
    assert "nun_gimel.onnx" in got.stderr
    assert "letter" in json.loads(got.stdout)
    monkeypatch.undo()
    reader, note = load_recognizer(None)
    assert note == "generic letter model", "the shipped second look loads without a note"


def test_a_malformed_confirm_step_is_refused_with_what_to_do(tmp_path: Path) -> None:
    onnx = tmp_path / "nun_gimel.onnx"
    shutil.copy(DEFAULT_PAIR_MODEL, onnx)
    raw = json.loads(DEFAULT_PAIR_MODEL.with_suffix(".json").read_text())
    for bad in ({"from_score": 0.98, "agreement": 0.8, "from_px": 34.0, "below_px": 14.0}, {"agreement": 0.8}, 0.8):
        onnx.with_suffix(".json").write_text(json.dumps({**raw, "confirm": bad}))
        with pytest.raises(ModelError, match="build_nun_gimel_model.py"):
            PairLook.load(onnx)
    onnx.with_suffix(".json").write_text(json.dumps({**raw, "confirm": {"from_score": 0.98, "agreement": 0.8,
                                                                        "from_px": 14.0, "below_px": 34.0}}))
    assert PairLook.load(onnx).confirm == PairConfirm(0.98, 0.8, 14.0, 34.0)
