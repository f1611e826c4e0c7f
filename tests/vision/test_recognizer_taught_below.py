"""Taught Nun and Gimel faces of this dreidel vouch for a Nun or Gimel read *below* the letter's own threshold
(``TaughtBelowRule``, a worn dreidel's Nun); the rule's file format and the build script's fit
(``fit_taught_below``)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.classify_cli import classify
from controller.rules.letters import Letter
from tests.vision.test_recognizer_nun_gimel import twin_frames
from tests.vision.test_recognizer_taught_faces import replace_calibration
from vision.recognizer import (
    DEFAULT_MODEL,
    LETTERS,
    Calibration,
    LetterModel,
    LetterRecognizer,
    ModelError,
    TaughtBelowRule,
    TaughtFaceRule,
)

DATA = Path(__file__).resolve().parent / "data"
NUN, GIMEL, HEY = (LETTERS.index(x) for x in (Letter.NUN, Letter.GIMEL, Letter.HEY))
WORN = "twin69001_worn_nun"


@pytest.fixture(scope="module")
def taught69001(generic: LetterRecognizer) -> LetterRecognizer:
    """Taught from twin 69001's enroll/ stills (cut to 180 x 180 around the dreidel), as the judge teaches it."""
    return LetterRecognizer.from_enroll_dir(DATA / "enroll69001", base=generic)


def with_calibration(r: LetterRecognizer, calibration: Calibration) -> LetterRecognizer:
    """The same recognizer (taught faces and all) with another calibration."""
    return LetterRecognizer(replace_calibration(r.model, calibration), r.protos, r.proto_letters, faces=r.faces,
                            pair=r.pair)


def test_the_shipped_model_lets_taught_faces_vouch_below_the_threshold_only_above_a_margin(
        generic: LetterRecognizer) -> None:
    rule = generic.model.calibration.taught_faces
    assert rule is not None and rule.below is not None
    below = rule.below
    assert 0.5 <= below.floor < min(generic.letter_thresholds[NUN], generic.letter_thresholds[GIMEL])
    assert 0.0 < below.margin <= 0.2 and below.min_side_px >= 14.0
    # the fit's own wrong reads from that floor and size up lie below the margin
    tried = generic.model.calibration.meta["taught_face_fit"]["below_threshold_tried"]
    [(_, wrong, worst, margin, gained)] = [r for r in tried if r[0] == below.min_side_px]
    assert margin == below.margin and (wrong == 0 or worst < below.margin) and gained >= 20


def test_taught_faces_read_a_worn_nun_below_the_letters_threshold(generic: LetterRecognizer,
                                                                 taught69001: LetterRecognizer) -> None:
    """Twin 69001 spins 2, 4 and 6: a wooden dreidel with rubbed-off paint resting with its Nun up on a 35-38 px
    face. The network reads Nun at 0.6-0.96, taught or not, mostly below the letter's own threshold (0.95) or
    unsteadily: a Gimel that lost its foot looks like that. Its face is clearly more like the taught Nun
    (0.91-0.97) than the taught Gimel (0.74-0.78), so the taught faces vouch for the frames read at 0.8 or more;
    untaught, or without the rule, it stays with a judge; and no frame is ever read as another letter."""
    frames = twin_frames(WORN)
    rule = taught69001.model.calibration.taught_faces
    assert rule is not None
    without = with_calibration(taught69001, replace(taught69001.model.calibration,
                                                    taught_faces=replace(rule, below=None)))
    read = [taught69001.read(image, pose=pose) for image, pose in frames]
    assert [r.letter for r in read].count(Letter.NUN) >= 3 and {r.letter for r in read} <= {Letter.NUN, None}
    assert any("like a taught face" in r.reason for r in read)
    for image, pose in frames:
        assert without.read(image, pose=pose).letter is None
        assert generic.read(image, pose=pose).letter is None


def test_classify_says_when_the_taught_faces_read_the_letter() -> None:
    """``sevivon classify`` on 69001 spin 2's resting dreidel (0.5 s after rest, cut 200 x 200): untaught it asks a
    judge; taught it reads Nun and says that the taught faces vouched, which ``--json`` leaves out (its format is
    DESIGN.md's)."""
    picture = str(DATA / "twin69001_spin2_nun_dreidel.png")
    runner = CliRunner()
    untaught = runner.invoke(classify, [picture])
    assert untaught.exit_code == 0 and untaught.output.startswith("unreadable (not sure enough"), untaught.output
    taught = runner.invoke(classify, [picture, "--enroll", str(DATA / "enroll69001")])
    assert taught.exit_code == 0 and taught.output.startswith("nun"), taught.output
    assert "but like a taught face of it" in taught.output
    data = json.loads(runner.invoke(classify, [picture, "--enroll", str(DATA / "enroll69001"), "--json"]).output)
    assert set(data) == {"letter", "confidence"} and data["letter"] == "nun"


def test_taught_faces_never_vouch_below_the_threshold_for_the_other_letter(taught69001: LetterRecognizer) -> None:
    """The same dreidel's Nun frames, but taught with its Nun stills labelled Gimel and its Gimel stills labelled
    Nun: the face is now like the taught "Gimel" and the Nun read is never vouched for (nor read)."""
    swapped = LetterRecognizer(taught69001.model, taught69001.protos,
                               taught69001.proto_letters.copy(), faces=taught69001.faces, pair=taught69001.pair)
    nun, gimel = swapped.proto_letters == NUN, swapped.proto_letters == GIMEL
    swapped.proto_letters[nun], swapped.proto_letters[gimel] = GIMEL, NUN
    for image, pose in twin_frames(WORN):
        got = swapped.read(image, pose=pose)
        assert got.letter is not Letter.NUN or "like a taught face" not in got.reason


def test_the_below_threshold_rule_comes_from_the_calibration_and_is_checked(tmp_path: Path) -> None:
    raw = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    net = tmp_path / "m.onnx"
    shutil.copy(DEFAULT_MODEL, net)
    below = {"floor": 0.8, "margin": 0.1, "min_side_px": 23, "min_likeness": 0.85}
    taught = {"margin": 0.03, "min_side_px": 15, "min_likeness": 0.6, "below_threshold": below}
    net.with_suffix(".json").write_text(json.dumps({**raw, "taught_faces": taught}))
    rule = LetterModel.load(net).calibration.taught_faces
    assert rule == TaughtFaceRule(0.03, 15.0, 0.6, TaughtBelowRule(0.8, 0.1, 23.0, 0.85))
    assert rule.to_json() == taught
    for bad, why in (({"floor": 0.8, "margin": 0.1}, "needs floor, margin and min_side_px"),
                     ({"floor": 0.3, "margin": 0.1, "min_side_px": 14}, r"\[0.5, 1\)"),
                     ({"floor": 0.8, "margin": 0.0, "min_side_px": 14}, r"\(0, 1\)"),
                     ({"floor": 0.8, "margin": 0.1, "min_side_px": 14, "min_likeness": 1.0}, "min_likeness"),
                     ("0.8", "needs floor")):
        net.with_suffix(".json").write_text(json.dumps({**raw, "taught_faces": {**taught, "below_threshold": bad}}))
        with pytest.raises(ModelError, match=why):
            LetterModel.load(net)


def rows_of(n: int, side: float, truth: int, best: int, conf: float, margin: float, steady: float | None = None,
            likeness: float | None = None) -> list[tuple[float, ...]]:
    """``n`` fit rows; without ``likeness`` rows of six (before session 18), which the fit counts as alike."""
    row = (side, truth, best, conf, conf if steady is None else steady, margin)
    return [row if likeness is None else (*row, likeness)] * n


def test_the_fit_puts_the_margin_a_step_above_the_surest_wrong_read(build: ModuleType) -> None:
    rows = (rows_of(30, 30, NUN, NUN, 0.88, 0.15)  # below the threshold, right, clearly like the taught Nun
            + rows_of(1, 30, GIMEL, NUN, 0.99, 0.06)  # a wrong read above the threshold counts too
            + rows_of(5, 30, GIMEL, NUN, 0.55, 0.3)  # wrong, but under the band of confidence the fit looks at
            + rows_of(5, 12, GIMEL, NUN, 0.99, 0.3))  # wrong, but on a face smaller than every size tried
    rule, report = build.fit_taught_below(rows, 0.95)
    assert rule == TaughtBelowRule(build.TAUGHT_BELOW_FLOOR, round(0.06 + build.TAUGHT_BELOW_STEP, 4),
                                   build.TAUGHT_SIDE_EDGES[0], build.TAUGHT_BELOW_LIKENESS)
    assert report["below_threshold_tried"] == [[14.0, 1, 0.06, 0.11, 30]]
    # a read refused only for its steadiness is below the threshold too
    assert build.fit_taught_below(rows_of(30, 30, NUN, NUN, 0.97, 0.15, steady=0.85), 0.95)[0] is not None
    few = rows_of(build.TAUGHT_MIN_READS - 1, 30, NUN, NUN, 0.88, 0.15)
    assert build.fit_taught_below(few, 0.95)[0] is None  # too little evidence: the rule is off
    fooled = rows + rows_of(1, 30, GIMEL, NUN, 0.9, 0.25)  # a wrong read vouched for past the largest margin
    assert build.fit_taught_below(fooled, 0.95)[0] is None
    # a wrong read just under the rule's floor, in the band above TAUGHT_BELOW_WRONG_FROM, counts too
    near = build.fit_taught_below(rows + rows_of(1, 30, GIMEL, NUN, 0.7, 0.08), 0.95)[0]
    assert near is not None and near.margin == pytest.approx(0.08 + build.TAUGHT_BELOW_STEP)


def test_where_the_taught_faces_were_fooled_the_rule_starts_at_a_larger_face(build: ModuleType) -> None:
    rows = (rows_of(40, 30, NUN, NUN, 0.82, 0.12) + rows_of(25, 15, NUN, NUN, 0.9, 0.3)
            + rows_of(1, 15, GIMEL, NUN, 0.85, 0.25))
    rule, report = build.fit_taught_below(rows, 0.95)
    assert rule is not None and rule.min_side_px == 17.0 and rule.margin == build.TAUGHT_BELOW_STEP
    assert [r[0] for r in report["below_threshold_tried"]] == [14.0, 17.0]


def test_only_wrong_reads_alike_to_a_taught_face_set_the_margin(build: ModuleType) -> None:
    """A wrong read vouched for by a margin of 0.3 on a face like none of the taught faces (0.6) does not count:
    the rule asks for that likeness, which the right reads (0.95) have. One at 0.9 does."""
    right = rows_of(30, 30, NUN, NUN, 0.85, 0.2, likeness=0.95)
    blurred = rows_of(1, 30, GIMEL, NUN, 0.92, 0.3, likeness=0.6)
    rule, _ = build.fit_taught_below(right + blurred, 0.95)
    assert rule is not None and rule.margin == build.TAUGHT_BELOW_STEP
    close = rows_of(1, 30, GIMEL, NUN, 0.92, 0.1, likeness=0.9)
    rule, _ = build.fit_taught_below(right + blurred + close, 0.95)
    assert rule is not None and rule.margin == pytest.approx(0.1 + build.TAUGHT_BELOW_STEP)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(10, 40), st.sampled_from([NUN, GIMEL, HEY]), st.sampled_from([NUN, GIMEL, HEY]),
                          st.floats(0.5, 1.0), st.floats(0.0, 1.0), st.floats(-0.3, 0.3), st.floats(0.0, 1.0)),
                max_size=200))
def test_the_fitted_below_rule_admits_no_wrong_read_of_its_data(
        build: ModuleType, rows: list[tuple[float, int, int, float, float, float, float]]) -> None:
    rows = rows + rows_of(40, 30, GIMEL, GIMEL, 0.85, 0.31, likeness=0.95)
    rule, _ = build.fit_taught_below(rows, 0.95)
    if rule is None:  # a wrong read vouched for past the largest margin, on every size
        return
    assert rule.margin <= build.TAUGHT_BELOW_MAX_MARGIN
    for side, truth, best, conf, steady, margin, likeness in rows:
        if best in (NUN, GIMEL) and side >= rule.min_side_px and min(conf, steady) >= rule.floor \
                and margin >= rule.margin and likeness >= rule.min_likeness:
            assert best == truth
