"""``sevivon run``'s command line: configuration errors, the password at first start, small adapters."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from controller.run_cli import SimLauncher, ensure_password, run, tray_region
from web.auth import PasswordStore


def test_a_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("[camera]\nfsp = 30\n")
    result = CliRunner().invoke(run, ["--config", str(bad), "--data", str(tmp_path / "d")])
    assert result.exit_code == 1
    assert "unknown key [camera] fsp: nothing reads it (did you mean 'fps'?)" in result.output


def test_set_password_needs_a_terminal(tmp_path: Path) -> None:
    result = CliRunner().invoke(run, ["--set-password", "--data", str(tmp_path / "d")])
    assert result.exit_code != 0 and "needs a terminal" in result.output
    assert not (tmp_path / "d" / "judge_password").exists()


def test_first_start_takes_the_password_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = PasswordStore(tmp_path / "pw")
    monkeypatch.setenv("SEVIVON_JUDGE_PASSWORD", "from-the-env-1")
    ensure_password(store, False)
    assert store.check("from-the-env-1") and not store.check("other")
    assert "from-the-env-1" not in (tmp_path / "pw").read_text()  # stored hashed
    assert (tmp_path / "pw").stat().st_mode & 0o077 == 0
    monkeypatch.setenv("SEVIVON_JUDGE_PASSWORD", "changed-later-2")
    ensure_password(store, False)  # only at first start
    assert store.check("from-the-env-1")


def test_without_a_password_the_console_stays_locked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("SEVIVON_JUDGE_PASSWORD", raising=False)
    store = PasswordStore(tmp_path / "pw")
    ensure_password(store, False)  # stdin is not a terminal under pytest
    assert not store.is_set()
    assert "judge console is locked" in capsys.readouterr().err


def test_sim_launcher_spins_the_twin() -> None:
    from controller.clock import FakeClock
    from hardware.sim.world import SimWorld

    clock = FakeClock()
    world = SimWorld(seed=3, clock=clock)
    launcher = SimLauncher(world)
    assert launcher.launch() is None
    assert launcher.busy and launcher.launch() == "a spin is still in motion"
    (truth,) = world.truths
    # The machine spins it: no hand reaches into the tray, and the kind is one the launcher makes.
    assert truth.by_launcher is True
    assert truth.kind.value in SimLauncher.KINDS


def test_tray_calibration_becomes_the_judges_lores_outline() -> None:
    region = tray_region((320.0, 240.0, 200.0), (640, 480), 320)
    assert region.size == (320, 240)
    assert region.contains(160, 120) and not region.contains(10, 10)
    assert region.source == "calibration"
