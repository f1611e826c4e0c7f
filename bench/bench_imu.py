"""Does the IMU driver keep up? CPU cost per second of data, against the register-level emulations.

For each chip and rate, the driver reads the emulated FIFO for ``--seconds`` of virtual time
(a FakeClock), polling every ``--poll-ms``, as the table's loop does. It checks that nothing
overflowed and every sample arrived, and measures the CPU time spent in ``read()``, split into
the driver's share and the emulation's (the emulated chip's own work is timed separately and
subtracted, because on a Pi that work is done by the chip). Medians of ``--repeats`` runs.

It also reports the longest poll interval each FIFO tolerates before it overflows, which is the
real limit on how late a busy table may read it.

    .venv/bin/python bench/bench_imu.py [--seconds 20] [--repeats 5] [--poll-ms 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.clock import FakeClock
from hardware.emulation.bus import FakeSMBus
from hardware.emulation.chip import EmulatedChip
from hardware.emulation.lsm6ds3 import Lsm6ds3Emulation
from hardware.emulation.lsm6dsox import Lsm6dsoxEmulation
from hardware.emulation.motion import Hum
from hardware.emulation.mpu6050 import Mpu6050Emulation
from hardware.i2c import I2cBus
from hardware.imu_driver import FifoImuDriver, ImuConfig
from hardware.imu_lsm6ds import Lsm6ds3Driver, Lsm6dsoxDriver
from hardware.imu_mpu6050 import Mpu6050Driver


@dataclass(frozen=True)
class Case:
    name: str
    rate_hz: float
    address: int
    make_chip: Callable[[FakeClock], EmulatedChip]
    driver: type[FifoImuDriver]
    #: samples the FIFO holds
    fifo_samples: int


CASES = (
    Case("lsm6dsox", 833, 0x6A, lambda c: Lsm6dsoxEmulation(c, Hum()), Lsm6dsoxDriver, 256),
    Case("lsm6dsox", 1666, 0x6A, lambda c: Lsm6dsoxEmulation(c, Hum()), Lsm6dsoxDriver, 256),
    Case("lsm6ds3", 833, 0x6A, lambda c: Lsm6ds3Emulation(c, Hum()), Lsm6ds3Driver, 682),
    Case("lsm6ds3", 1666, 0x6A, lambda c: Lsm6ds3Emulation(c, Hum()), Lsm6ds3Driver, 682),
    Case("mpu6050", 1000, 0x68, lambda c: Mpu6050Emulation(c, Hum()), Mpu6050Driver, 85),
)


class _Timed:
    """Wraps a chip's bus-facing methods to add up the time the emulation itself takes."""

    def __init__(self, chip: EmulatedChip) -> None:
        self.seconds = 0.0
        for name in ("read", "write"):
            original = getattr(chip, name)

            def timed(*args: object, _original: Callable[..., object] = original) -> object:
                t = time.process_time()
                try:
                    return _original(*args)
                finally:
                    self.seconds += time.process_time() - t

            setattr(chip, name, timed)


def run_once(case: Case, seconds: float, poll_s: float) -> tuple[float, float, int, int, int]:
    """(driver CPU s, emulation CPU s, samples received, samples made, overflows)."""
    clock = FakeClock()
    chip = case.make_chip(clock)
    timer = _Timed(chip)
    bus = FakeSMBus({case.address: chip})
    driver = case.driver(I2cBus(1, bus.opener()), case.address, clock=clock, config=ImuConfig(rate_hz=case.rate_hz))
    received = 0
    spent = 0.0
    with driver:
        timer.seconds = 0.0
        for _ in range(round(seconds / poll_s)):
            clock.advance(poll_s)
            t = time.process_time()
            batch = driver.read()
            spent += time.process_time() - t
            received += len(batch.samples)
        clock.advance(poll_s)
        received += len(driver.read().samples)
        overflows = driver.overflows
    return spent - timer.seconds, timer.seconds, received, chip.samples_made, overflows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of data per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--poll-ms", type=float, default=20.0, help="how often the driver reads the FIFO")
    args = parser.parse_args()
    poll_s = args.poll_ms / 1000
    print(f"{args.seconds:g} s of data per run, read every {args.poll_ms:g} ms, median of {args.repeats} runs")
    print(f"{'chip':<10}{'rate':>7}  {'driver CPU':>16}  {'emulation CPU':>16}  {'received/made':>14}  "
          f"{'overflows':>9}  {'longest safe poll':>17}")
    for case in CASES:
        runs = [run_once(case, args.seconds, poll_s) for _ in range(args.repeats)]
        driver_ms = statistics.median(r[0] for r in runs) / args.seconds * 1000
        emu_ms = statistics.median(r[1] for r in runs) / args.seconds * 1000
        received, made, overflows = runs[-1][2], runs[-1][3], max(r[4] for r in runs)
        safe_ms = case.fifo_samples / case.rate_hz * 1000
        print(f"{case.name:<10}{case.rate_hz:>6g}Hz  {driver_ms:>8.2f} ms per s  {emu_ms:>8.2f} ms per s  "
              f"{received:>6}/{made:<7}  {overflows:>9}  {safe_ms:>14.0f} ms")
        if overflows or received != made:
            raise SystemExit(f"{case.name} at {case.rate_hz:g} Hz did not keep up")


if __name__ == "__main__":
    main()
