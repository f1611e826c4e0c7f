"""What the camera sees: an empty tray to learn, a dreidel where the truth says, hands, stills."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from controller.cli import main
from controller.rules.letters import Letter
from hardware.sim.dreidel import HebrewFonts, face_textures, style_named
from hardware.sim.physics import SpinKind
from hardware.sim.recorder import render_still
from hardware.sim.render import Scene
from hardware.sim.world import SimWorld, judge_reasons


def frame_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(int) - b.astype(int)).sum(axis=2)


def test_hebrew_fonts_are_found_and_draw_distinct_letters() -> None:
    fonts = HebrewFonts().require()
    assert len(fonts) >= 5
    faces = face_textures(style_named("wood"))
    assert len(faces) == 4
    # four different letters make four different faces
    for i in range(4):
        for j in range(i + 1, 4):
            assert frame_diff(faces[i], faces[j]).mean() > 5


def test_tray_fills_the_picture_and_the_centre_is_felt() -> None:
    for seed in range(6):
        sc = Scene.random(seed)
        assert sc.in_picture(0.0, 0.0)
        r = sc.tray_radius_mm + sc.rim_mm
        for x, y in ((r, 0.0), (-r, 0.0), (0.0, r), (0.0, -r)):
            assert sc.in_picture(x, y), f"seed {seed}: the tray's edge at {(x, y)} is out of the picture"
        assert sc.inside_tray(0.0, 0.0) and not sc.inside_tray(r + 5.0, r + 5.0)


def test_the_dreidel_appears_where_the_truth_puts_it_and_leaves_with_the_hand() -> None:
    world = SimWorld(seed=8, style="painted")
    empty = world.frame_at(0.2)
    world.launch(SpinKind.VALID, at=1.0)
    truth = world.truths[0]
    at_rest = world.frame_at(truth.rest_t + 0.5)
    u, v = (int(round(c)) for c in truth.rest_px)
    d = frame_diff(at_rest, empty)
    assert d[v - 4 : v + 5, u - 4 : u + 5].mean() > 60
    far = d[(np.arange(d.shape[0]) < v - 100)]
    assert far.mean() < 25  # elsewhere only noise and exposure drift
    gone = world.remove(at=truth.rest_t + 1.0)
    assert gone is not None
    pickup = world.timeline(0)["pickup"]
    assert pickup is not None and world.hands_in_picture(pickup) == 1
    mid_pickup = world.frame_at(pickup)
    after = world.frame_at(gone + 0.2)
    assert frame_diff(mid_pickup, empty).mean() > frame_diff(after, empty).mean() + 3
    assert frame_diff(after, empty)[v - 4 : v + 5, u - 4 : u + 5].mean() < 30


def test_the_tray_is_empty_for_the_first_second_of_a_session() -> None:
    world = SimWorld(seed=1)
    world.launch(SpinKind.VALID, at=1.0)
    assert not any(world.hands_in_picture(t) for t in np.arange(0.0, 1.0, 0.02))
    assert world.dreidel_pose(0.99) is None
    a, b = world.frame_at(0.0), world.frame_at(0.95)
    assert frame_diff(a, b).mean() < 15


@pytest.mark.parametrize("letter", ["nun", "gimel", "hey", "pe"])
def test_still_of_each_letter(letter: str) -> None:
    image, truth = render_still("israeli", letter, seed=3)
    assert truth["letter"] == letter
    assert image.shape == (480, 640, 3)
    assert 40 <= truth["length_px"] <= 150
    other, _ = render_still("israeli", "gimel" if letter != "gimel" else "nun", seed=3)
    u, v = (int(c) for c in truth["rest_px"])
    # the same place, another letter up: only the dreidel's up face differs
    d = frame_diff(image, other)
    assert d[v - 6 : v + 7, u - 6 : u + 7].mean() > 8
    d[v - 30 : v + 31, u - 30 : u + 31] = 0
    assert d.max() == 0


def test_still_refuses_a_letter_the_dreidel_lacks() -> None:
    with pytest.raises(ValueError, match="no shin"):
        render_still("israeli", Letter.SHIN, seed=1)


def test_reason_codes_follow_the_rules() -> None:
    assert judge_reasons(SpinKind.VALID, 3.0, True, False) == ()
    assert judge_reasons(SpinKind.VALID, 2.99, True, False) == ("short",)
    assert judge_reasons(SpinKind.VALID, 0.3, True, False) == ("wobbled_immediately",)
    assert judge_reasons(SpinKind.VALID, 5.0, False, True) == ("left_tray", "interference")
    assert judge_reasons(SpinKind.NO_RELEASE, 0.0, True, False) == ("no_release",)


def test_cli_records_and_rejects_bad_kinds(tmp_path) -> None:
    runner = CliRunner()
    bad = runner.invoke(main, ["sim", "record", str(tmp_path / "x"), "--kinds", "valid,wobbly"])
    assert bad.exit_code != 0 and "wobble_at_once" in bad.output
    ok = runner.invoke(
        main,
        ["sim", "record", str(tmp_path / "r"), "--spins", "1", "--seed", "2", "--fps", "10",
         "--kinds", "no_release", "--no-imu", "--size", "320x240", "--enroll"],
    )
    assert ok.exit_code == 0, ok.output
    truth = json.loads((tmp_path / "r" / "truth.json").read_text())
    assert truth[0]["reasons"] == ["no_release"] and not (tmp_path / "r" / "imu.csv").exists()
    enrolled = sorted(p.name for p in (tmp_path / "r" / "enroll").iterdir())
    assert len(enrolled) == 12 and all(p.split("_")[0] in {"nun", "gimel", "hey", "shin", "pe"} for p in enrolled)
    again = runner.invoke(main, ["sim", "record", str(tmp_path / "r"), "--spins", "0", "--fps", "5"])
    assert again.exit_code != 0 and "--overwrite" in again.output


def test_gallery_shows_every_phase_of_a_spin(tmp_path) -> None:
    from hardware.sim.gallery import phase_frames, write_gallery

    frames = phase_frames(0, SpinKind.SHORT, "big_wood", size=(320, 240))
    assert list(frames) == ["empty", "hand", "sleeping", "wobbling", "falling", "at_rest", "pickup"]
    empty = frames["empty"]
    for name in ("hand", "sleeping", "at_rest", "pickup"):
        assert frame_diff(frames[name], empty).max() > 80, name  # something is in the tray
    [sheet] = write_gallery(tmp_path, 0, SpinKind.NO_RELEASE, "wood", sheet=True)
    assert sheet.name == "no_release_phases.png" and 10_000 < sheet.stat().st_size < 600_000
