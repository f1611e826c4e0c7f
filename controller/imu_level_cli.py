"""``sevivon imu-level REC...``: measure the tray's IMU calibration from a few recorded spins.

Record some spins on the table with ``sevivon record`` (the IMU connected; spins that sleep a second or
more and then wobble and fall on their own), then run this on the recordings. It prints the level to
put in the table's config (``[imu] rocking_level_dps``); ``--json`` prints the measurement.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from controller.imu_level import CalibrationError, RockingLevelMeter, measure_recordings
from hardware.recording import RecordingError


@click.command("imu-level")
@click.argument("recordings", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--min-spins", type=click.IntRange(min=1), default=5, show_default=True,
              help="Spins that must wobble clearly before falling for a measurement.")
@click.option("--json", "as_json", is_flag=True, help="Print the measurement as JSON.")
def imu_level(recordings: tuple[Path, ...], min_spins: int, as_json: bool) -> None:
    """Measure how hard the tray rocks (deg/s) when a dreidel starts to wobble, from RECORDINGS."""
    try:
        level = measure_recordings(list(recordings), RockingLevelMeter(min_spins))
    except (CalibrationError, RecordingError) as exc:
        click.echo(f"sevivon imu-level: {exc}", err=True)
        sys.exit(2)
    if as_json:
        click.echo(json.dumps(level.to_json()))
        return
    click.echo(f"{len(level.spins)} spins: the tray rocks {level.level_dps:.3f} deg/s at the wobble "
               f"(middle half of the spins {level.low_dps:.3f}-{level.high_dps:.3f})")
    click.echo("put this in the table's config file:")
    click.echo("  [imu]")
    click.echo(f"  rocking_level_dps = {level.level_dps:.3f}")
    click.echo(f"and judge recordings of this table with: sevivon analyze REC --rocking-level {level.level_dps:.3f}")
