"""``sevivon record OUT``: record the real camera (and IMU) into the recording format of DESIGN.md.

Times in the recording start at the first frame: ``frames.csv`` and ``imu.csv`` share that origin,
and IMU samples from before the first frame are dropped. A camera that fails mid-recording ends
the recording (the files written so far stay valid) and the command exits 1; an IMU that stops
answering leaves a hole in ``imu.csv`` and the recording carries on.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

import click

from controller.clock import Clock, SystemClock
from hardware.camera import CameraError, CameraSource
from hardware.camera_factory import CameraSpecError, make_camera
from hardware.imu import ImuError, ImuSample, ImuSource
from hardware.recording import RecordingError, RecordingWriter

log = logging.getLogger(__name__)


@dataclass
class RecordSummary:
    """What was recorded."""

    frames: int = 0
    seconds: float = 0.0
    imu_samples: int = 0
    imu_gaps: int = 0
    #: why the recording stopped early, or "" when it ran its course
    error: str = ""


def record_session(
    camera: CameraSource,
    imu: ImuSource | None,
    writer: RecordingWriter,
    seconds: float,
    clock: Clock,
    summary: RecordSummary | None = None,
) -> RecordSummary:
    """Copy frames (and IMU samples) from open sources into an open writer for ``seconds`` of frames.

    Stops early at the end of a finite camera source, or when the camera fails (``error`` says why).
    ``summary`` (optional) is filled in as it goes, so a caller interrupted by Ctrl-C still has the counts.
    """
    summary = summary if summary is not None else RecordSummary()
    t0: float | None = None
    while True:
        try:
            frame = camera.read()
        except CameraError as exc:
            summary.error = f"the camera failed after {summary.frames} frames: {exc}"
            break
        if frame is None:
            break
        if t0 is None:
            t0 = frame.t
        t = frame.t - t0
        if t > seconds:
            break
        writer.write_frame(frame.image, t)
        summary.frames += 1
        summary.seconds = t
        if imu is not None:
            batch = imu.read()
            summary.imu_gaps += len(batch.gaps)
            keep = [s for s in batch.samples if s.t >= t0]
            writer.write_imu(_shift(s, t0) for s in keep)
            summary.imu_samples += len(keep)
    return summary


def _shift(sample: ImuSample, t0: float) -> ImuSample:
    return replace(sample, t=sample.t - t0)


def _open_imu(choice: str, bus: int, clock: Clock) -> ImuSource | None:
    if choice == "none":
        return None
    from hardware.imu_probe import open_imu

    try:
        driver = open_imu(bus, clock=clock)
        driver.open()
    except ImuError as exc:
        if choice == "auto":
            click.echo(f"recording without an IMU: {exc}", err=True)
            return None
        raise click.ClickException(str(exc)) from None
    return driver


@click.command()
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--seconds", type=float, default=30.0, show_default=True, help="How long to record.")
@click.option(
    "--camera",
    "camera_spec",
    default="auto",
    show_default=True,
    help="Camera: picamera2, opencv:0, recording:DIR, sim, auto (see hardware/README.md).",
)
@click.option(
    "--imu",
    "imu_choice",
    type=click.Choice(["auto", "required", "none"]),
    default="auto",
    show_default=True,
    help="auto: record the IMU if one answers; required: fail without one; none: camera only.",
)
@click.option("--bus", type=int, default=1, show_default=True, help="I2C bus of the IMU.")
@click.option("--overwrite", is_flag=True, help="Replace a recording already in OUT.")
def record(out: Path, seconds: float, camera_spec: str, imu_choice: str, bus: int, overwrite: bool) -> None:
    """Record from the real camera and IMU into OUT (the recording format that `sevivon analyze` reads)."""
    if seconds <= 0:
        raise click.BadParameter("must be positive", param_hint="--seconds")
    if (out / "meta.json").exists() and not overwrite:
        raise click.ClickException(f"{out} already holds a recording; choose another directory or pass --overwrite")
    clock = SystemClock()
    try:
        camera = make_camera(camera_spec, clock=clock)
        camera.open()
    except (CameraSpecError, CameraError) as exc:
        raise click.ClickException(str(exc)) from None
    imu = None
    try:
        imu = _open_imu(imu_choice, bus, clock)
        meta_imu = {"chip": imu.chip, "rate_hz": imu.rate_hz} if imu is not None else None
        with RecordingWriter(out, camera.fps, camera.size[0], camera.size[1], camera.name, meta_imu) as writer:
            click.echo(f"recording {camera.name} ({camera.size[0]}x{camera.size[1]} at {camera.fps:g} fps)"
                       + (f" and {imu.chip} at {imu.rate_hz:g} Hz" if imu else " without an IMU")
                       + f" into {out} for {seconds:g} s; Ctrl-C stops early", err=True)
            summary = RecordSummary()
            try:
                record_session(camera, imu, writer, seconds, clock, summary)
            except KeyboardInterrupt:
                click.echo("stopped by Ctrl-C", err=True)
    except RecordingError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        camera.close()
        if imu is not None:
            imu.close()
    fps = (summary.frames - 1) / summary.seconds if summary.seconds > 0 else 0.0
    click.echo(
        f"{out}: {summary.frames} frames over {summary.seconds:.2f} s ({fps:.1f} fps), "
        f"{summary.imu_samples} IMU samples, {summary.imu_gaps} IMU gaps"
    )
    if summary.error:
        raise click.ClickException(summary.error)
