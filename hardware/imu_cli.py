"""``sevivon imu probe`` and ``sevivon imu stream``: check the IMU's wiring on a Pi.

``--emulate CHIP`` puts an emulated chip (``hardware.emulation``) on a fake bus instead of opening
``/dev/i2c-N``, so both commands can be tried, and tested, on a machine without I2C.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

import click

from controller.clock import Clock, SystemClock
from hardware.i2c import BusFactory, I2cBus, I2cError
from hardware.imu import ImuError, ImuGap, ImuSource
from hardware.imu_driver import ImuConfig
from hardware.imu_probe import PROBES, open_imu, probe

EMULATED = ("lsm6dsox", "lsm6ds3", "lsm6ds3tr-c", "mpu6050")


def emulated_bus(chip: str, clock: Clock) -> BusFactory:
    """A bus factory with one emulated ``chip`` humming at its usual address."""
    from hardware.emulation.bus import FakeSMBus
    from hardware.emulation.chip import EmulatedChip
    from hardware.emulation.lsm6ds3 import Lsm6ds3Emulation
    from hardware.emulation.lsm6dsox import Lsm6dsoxEmulation
    from hardware.emulation.motion import Hum
    from hardware.emulation.mpu6050 import Mpu6050Emulation

    motion = Hum()
    makers: dict[str, tuple[int, Callable[[], EmulatedChip]]] = {
        "lsm6dsox": (0x6A, lambda: Lsm6dsoxEmulation(clock, motion)),
        "lsm6ds3": (0x6A, lambda: Lsm6ds3Emulation(clock, motion, who_am_i=0x69)),
        "lsm6ds3tr-c": (0x6A, lambda: Lsm6ds3Emulation(clock, motion, who_am_i=0x6A)),
        "mpu6050": (0x68, lambda: Mpu6050Emulation(clock, motion)),
    }
    address, make = makers[chip]
    return FakeSMBus({address: make()}).opener()


@dataclass
class StreamSummary:
    """What a stream saw."""

    samples: int = 0
    seconds: float = 0.0
    gaps: list[ImuGap] = field(default_factory=list)
    unhealthy_reads: int = 0

    @property
    def rate_hz(self) -> float:
        """Samples received per second."""
        return self.samples / self.seconds if self.seconds > 0 else 0.0


def stream_imu(
    imu: ImuSource,
    clock: Clock,
    seconds: float,
    out: TextIO,
    csv: bool = False,
    poll_s: float = 0.02,
    report: Callable[[str], None] | None = None,
    summary: StreamSummary | None = None,
) -> StreamSummary:
    """Read an open IMU for ``seconds``: CSV rows to ``out`` (or a line per second), and a summary.

    ``summary`` (optional) is filled in as it goes, so a caller interrupted by Ctrl-C still has it.
    """
    summary = summary if summary is not None else StreamSummary()
    say = report or (lambda line: print(line, file=out))
    start = clock.monotonic()
    next_report = start + 1.0
    window: list[tuple[float, ...]] = []
    if csv:
        print("t,ax,ay,az,gx,gy,gz", file=out)
    while True:
        now = clock.monotonic()
        if now - start >= seconds:
            break
        clock.sleep(poll_s)
        batch = imu.read()
        if not imu.healthy:
            summary.unhealthy_reads += 1
        summary.samples += len(batch.samples)
        summary.gaps.extend(batch.gaps)
        for gap in batch.gaps:
            say(f"gap {gap.t_start - start:.3f}..{gap.t_end - start:.3f} s: {gap.reason}")
        for s in batch.samples:
            if csv:
                print(f"{s.t - start:.6f},{s.ax:.5f},{s.ay:.5f},{s.az:.5f},{s.gx:.4f},{s.gy:.4f},{s.gz:.4f}", file=out)
            window.append((s.ax, s.ay, s.az, s.gx, s.gy, s.gz))
        summary.seconds = clock.monotonic() - start
        if clock.monotonic() >= next_report and not csv:
            say(_window_line(clock.monotonic() - start, window, imu.healthy))
            window = []
            next_report += 1.0
    summary.seconds = clock.monotonic() - start
    return summary


def _window_line(t: float, window: list[tuple[float, ...]], healthy: bool) -> str:
    if not window:
        return f"{t:6.1f} s  no samples{'' if healthy else ' (IMU not answering)'}"
    n = len(window)
    mean = [sum(v[i] for v in window) / n for i in range(6)]
    g = math.sqrt(mean[0] ** 2 + mean[1] ** 2 + mean[2] ** 2)
    return (
        f"{t:6.1f} s  {n:5d} samples  accel {mean[0]:+.3f} {mean[1]:+.3f} {mean[2]:+.3f} g (|g| {g:.3f})  "
        f"gyro {mean[3]:+.2f} {mean[4]:+.2f} {mean[5]:+.2f} deg/s"
    )


def _bus_factory(emulate: str | None, clock: Clock) -> BusFactory | None:
    return emulated_bus(emulate, clock) if emulate else None


_emulate_option = click.option(
    "--emulate",
    type=click.Choice(EMULATED),
    default=None,
    help="Use an emulated chip on a fake bus instead of /dev/i2c-N (to try the command without hardware).",
)


@click.group()
def imu() -> None:
    """Check the IMU wiring: probe the bus, stream samples."""


@imu.command("probe")
@click.option("--bus", "bus_number", type=int, default=1, show_default=True, help="I2C bus number (/dev/i2c-N).")
@_emulate_option
def probe_command(bus_number: int, emulate: str | None) -> None:
    """List what answers at the IMU addresses (0x6A, 0x6B, 0x68, 0x69) and what it is."""
    clock = SystemClock()
    bus = I2cBus(bus_number, _bus_factory(emulate, clock))
    try:
        bus.open()
        results = probe(bus)
    except I2cError as exc:
        raise click.ClickException(str(exc.strerror or exc)) from None
    finally:
        bus.close()
    click.echo(f"I2C bus {bus_number}{' (emulated)' if emulate else ''}:")
    answered = {r.address for r in results}
    for r in results:
        mark = "ok " if r.supported else "?? "
        click.echo(f"  {mark}{r.address:#04x}  {r.description}")
    silent = [f"{a:#04x}" for a, _ in PROBES if a not in answered]
    if silent:
        click.echo(f"  nothing at {', '.join(silent)}")
    if not any(r.supported for r in results):
        raise click.ClickException(
            "no supported IMU found. Check the wiring: SDA to GPIO2 (pin 3), SCL to GPIO3 (pin 5), 3V3 (pin 1), "
            "GND (pin 9); see hardware/README.md"
        )


@imu.command("stream")
@click.option("--bus", "bus_number", type=int, default=1, show_default=True, help="I2C bus number (/dev/i2c-N).")
@click.option("--seconds", type=float, default=5.0, show_default=True, help="How long to stream.")
@click.option("--csv", "as_csv", is_flag=True, help="Print every sample as CSV (t,ax,ay,az,gx,gy,gz) on stdout.")
@click.option("--rate", "rate_hz", type=float, default=833.0, show_default=True, help="Sample rate to ask for (Hz).")
@_emulate_option
def stream_command(bus_number: int, seconds: float, as_csv: bool, rate_hz: float, emulate: str | None) -> None:
    """Print samples (or a line a second) and the rate actually received."""
    if seconds <= 0:
        raise click.BadParameter("must be positive", param_hint="--seconds")
    clock = SystemClock()
    try:
        config = ImuConfig(rate_hz=rate_hz)
        driver = open_imu(bus_number, clock=clock, config=config, bus_factory=_bus_factory(emulate, clock))
        driver.open()
    except (ImuError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    report = (lambda line: click.echo(line, err=True)) if as_csv else None
    summary = StreamSummary()
    try:
        if not as_csv:
            click.echo(f"{driver.chip} at {driver.address:#04x} on bus {bus_number}, {driver.rate_hz:g} Hz")
        stream_imu(driver, clock, seconds, sys.stdout, csv=as_csv, report=report, summary=summary)
    except KeyboardInterrupt:
        click.echo("stopped by Ctrl-C", err=True)
    finally:
        driver.close()
    click.echo(
        f"{summary.samples} samples in {summary.seconds:.2f} s = {summary.rate_hz:.1f} Hz "
        f"(asked {driver.rate_hz:g} Hz), {len(summary.gaps)} gaps, {driver.overflows} FIFO overflows, "
        f"{summary.unhealthy_reads} reads while not answering",
        err=as_csv,
    )
