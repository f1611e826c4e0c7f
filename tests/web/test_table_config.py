"""The TOML configuration: defaults, every key checked, unknown keys named."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import DEFAULT_PLAYERS, ConfigError, load_config, parse_config


def test_no_file_is_a_simulated_ten_player_table() -> None:
    config = load_config(None)
    assert config.simulated
    assert config.table.players == DEFAULT_PLAYERS and len(config.table.players) == 10
    assert config.table.stack == 18 and config.table.ante == 1
    assert config.ante_clock.interval_s == 180 and config.ante_clock.step == 1
    assert config.table.spun_by["Dov"] == "launcher"


def test_a_full_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(
        '[table]\nplayers = ["Ann", "Ben", "Cy"]\nstack = 5\nspun_by = { Cy = "launcher" }\n'
        "[ante_clock]\ninterval_s = 60\nstep = 2\n"
        '[camera]\nsource = "opencv:0"\nfps = 30\n[imu]\nsource = "none"\n'
        "[web]\nport = 9000\n[gpio]\nenabled = true\nhall = 22\n"
    )
    config = load_config(path)
    assert config.table.players == ("Ann", "Ben", "Cy")
    assert config.table.stack == 5
    assert config.ante_clock.interval_s == 60.0 and config.ante_clock.step == 2
    assert config.camera.source == "opencv:0" and config.camera.fps == 30.0
    assert not config.simulated
    assert config.web.port == 9000 and config.gpio.hall == 22
    assert config.forced_sim().simulated and not config.forced_sim().gpio.enabled


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[camera]\nfsp = 30\n", "unknown key [camera] fsp: nothing reads it (did you mean 'fps'?)"),
        ("[camra]\nfps = 30\n", "unknown section [camra]: nothing reads it (did you mean 'camera'?)"),
        ("[table]\nstack = 0\n", "[table] stack = 0 must be greater than 0"),
        ("[table]\nstack = \"18\"\n", "[table] stack must be a whole number"),
        ("[table]\nplayers = [\"Ann\"]\n", "2 to 10 players"),
        ("[table]\nplayers = [\"Ann\", \"Ann\"]\n", "each name must be different"),
        ("[table]\nfirst = \"Zed\"\n", "'Zed' is not one of the players"),
        ("[table]\nspun_by = { Zed = \"launcher\" }\n", "'Zed' is not one of the players"),
        ("[camera]\nsource = \"webcam\"\n", '[camera] source = \'webcam\' must be "sim"'),
        ("[imu]\nsource = \"mpu\"\n", "[imu] source = 'mpu' must be"),
        ("[web]\nport = 70000\n", "must be a TCP port"),
        ("[gpio]\nservo = 40\n", "BCM GPIO number"),
        ("[speech]\nenabled = \"yes\"\n", "must be true or false"),
        ("[table\n", "not valid TOML"),
    ],
)
def test_bad_keys_are_errors_that_name_them(text: str, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config(text, "t.toml")
    assert needle in str(e.value)
    assert str(e.value).startswith("t.toml")


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration"):
        load_config(tmp_path / "nope.toml")


def test_the_shipped_pi_example_is_valid() -> None:
    example = Path(__file__).resolve().parents[2] / "systemd" / "table.example.toml"
    config = load_config(example)
    assert config.camera.source == "picamera2" and config.imu.source == "auto" and config.gpio.enabled
    assert not config.simulated and config.table.spun_by == {"Cy": "launcher"}
