"""firmware/apply.sh on a scratch root: the config.txt block lands once, in [all], and a rerun changes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

APPLY = Path(__file__).resolve().parents[2] / "firmware" / "apply.sh"
ORIGINAL = "arm_64bit=1\n\n[cm4]\notg_mode=1\n"


def apply(root: Path) -> subprocess.CompletedProcess[str]:
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run([bash, str(APPLY), "--root", str(root)], capture_output=True, text=True, check=False)


@pytest.fixture
def pi_root(tmp_path: Path) -> Path:
    boot = tmp_path / "boot" / "firmware"
    boot.mkdir(parents=True)
    (boot / "config.txt").write_text(ORIGINAL)
    return tmp_path


def test_apply_adds_the_block_once_and_a_rerun_changes_nothing(pi_root: Path) -> None:
    config = pi_root / "boot" / "firmware" / "config.txt"
    first = apply(pi_root)
    assert first.returncode == 0, first.stderr
    assert "reboot" in first.stdout
    text = config.read_text()
    assert text.startswith(ORIGINAL)
    block = text[text.index("# BEGIN sevivon") :]
    lines = block.splitlines()
    assert lines[-1] == "# END sevivon"
    assert "dtparam=i2c_arm=on" in lines and "dtparam=i2c_arm_baudrate=400000" in lines
    assert "camera_auto_detect=1" in lines
    assert lines.index("[all]") < lines.index("dtparam=i2c_arm=on"), "not inside the [cm4] section"
    assert (config.parent / "config.txt.sevivon-backup").read_text() == ORIGINAL
    rules = (pi_root / "etc" / "udev" / "rules.d" / "99-sevivon.rules").read_text()
    assert 'SUBSYSTEM=="i2c-dev", GROUP="i2c"' in rules
    assert (pi_root / "etc" / "modules-load.d" / "sevivon.conf").read_text() == "i2c-dev\n"

    second = apply(pi_root)
    assert second.returncode == 0
    assert config.read_text() == text
    assert "nothing needed changing" in second.stdout


def test_apply_replaces_a_stale_block_instead_of_adding_another(pi_root: Path) -> None:
    config = pi_root / "boot" / "firmware" / "config.txt"
    config.write_text(ORIGINAL + "\n# BEGIN sevivon\ndtparam=i2c_arm_baudrate=100000\n# END sevivon\nmore=1\n")
    assert apply(pi_root).returncode == 0
    text = config.read_text()
    assert text.count("# BEGIN sevivon") == 1
    assert "100000" not in text and "400000" in text
    assert "more=1" in text


def test_apply_warns_about_a_contradicting_line_elsewhere(pi_root: Path) -> None:
    config = pi_root / "boot" / "firmware" / "config.txt"
    config.write_text("dtparam=i2c_arm=off\n")
    result = apply(pi_root)
    assert result.returncode == 0
    assert "sets i2c_arm elsewhere too" in result.stderr


def test_apply_without_a_config_txt_says_it_is_not_a_pi(tmp_path: Path) -> None:
    result = apply(tmp_path)
    assert result.returncode == 1
    assert "is this a Raspberry Pi?" in result.stderr
