"""The IMU drivers against register-level emulations of their chips: values, timing, overflow, faults."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.clock import FakeClock
from hardware.emulation.bus import FakeSMBus
from hardware.emulation.chip import EmulatedChip
from hardware.emulation.lsm6ds3 import Lsm6ds3Emulation
from hardware.emulation.lsm6dsox import Lsm6dsoxEmulation
from hardware.emulation.motion import Hum, Ramp
from hardware.emulation.mpu6050 import Mpu6050Emulation
from hardware.i2c import I2cBus
from hardware.imu import ImuError, ImuSample
from hardware.imu_driver import FifoImuDriver, ImuConfig
from hardware.imu_lsm6ds import Lsm6ds3Driver, Lsm6dsoxDriver
from hardware.imu_mpu6050 import Mpu6050Driver


@dataclass
class Rig:
    clock: FakeClock
    bus: FakeSMBus
    chip: EmulatedChip
    driver: FifoImuDriver
    address: int
    rate: float
    #: quantisation of one count: (g, dps)
    lsb: tuple[float, float]


ChipMaker = Callable[[FakeClock, object, float], EmulatedChip]

CHIPS: dict[str, tuple[int, Callable[..., EmulatedChip], type[FifoImuDriver], float, tuple[float, float]]] = {
    # name: (address, emulation, driver, rate, (g/LSB at 8 g, dps/LSB at 500 dps))
    "lsm6dsox": (0x6A, Lsm6dsoxEmulation, Lsm6dsoxDriver, 833.0, (0.244e-3, 17.5e-3)),
    "lsm6ds3": (0x6B, Lsm6ds3Emulation, Lsm6ds3Driver, 833.0, (0.244e-3, 17.5e-3)),
    "lsm6ds3tr-c": (0x6A, lambda c, m, e: Lsm6ds3Emulation(c, m, e, who_am_i=0x6A), Lsm6ds3Driver, 833.0,
                    (0.244e-3, 17.5e-3)),
    "mpu6050": (0x68, Mpu6050Emulation, Mpu6050Driver, 1000.0, (1 / 4096, 1 / 65.5)),
}


def make_rig(name: str, motion: object = None, odr_error: float = 0.0, rate_hz: float | None = None) -> Rig:
    address, emulation, driver_class, rate, lsb = CHIPS[name]
    clock = FakeClock(start=100.0)
    chip = emulation(clock, motion, odr_error)
    bus = FakeSMBus({address: chip})
    config = ImuConfig(rate_hz=rate_hz or rate, accel_range_g=8, gyro_range_dps=500)
    driver = driver_class(I2cBus(1, bus.opener()), address, clock=clock, config=config)
    return Rig(clock, bus, chip, driver, address, rate, lsb)


def collect(rig: Rig, seconds: float, step: float = 0.02) -> tuple[list[ImuSample], list]:
    samples: list[ImuSample] = []
    gaps: list = []
    for _ in range(round(seconds / step)):
        rig.clock.advance(step)
        batch = rig.driver.read()
        samples.extend(batch.samples)
        gaps.extend(batch.gaps)
    return samples, gaps


@pytest.mark.parametrize("name", sorted(CHIPS))
def test_driver_returns_the_waveform_in_g_and_dps_at_the_right_times(name: str) -> None:
    motion = Hum(freq_hz=13.0)
    rig = make_rig(name, motion)
    with rig.driver as imu:
        assert imu.chip == name
        assert imu.rate_hz == rig.rate
        t_start = rig.clock.monotonic()
        samples, gaps = collect(rig, 1.0)
    assert gaps == []
    assert rig.bus.stats.largest_read > 32, "FIFO bursts must go through i2c_rdwr, past SMBus's 32 bytes"
    # The chip made one sample per period from t_start; nearly all must have arrived.
    period = 1.0 / rig.rate
    assert abs(len(samples) - rig.rate) <= 2
    times = np.array([s.t for s in samples])
    assert np.all(np.diff(times) > 0)
    true_times = t_start + period * np.arange(1, len(samples) + 1)
    assert np.max(np.abs(times - true_times)) <= period + 1e-9  # back-dated to within one period
    values = np.array([[s.ax, s.ay, s.az, s.gx, s.gy, s.gz] for s in samples])
    expected = motion(true_times)
    g_lsb, dps_lsb = rig.lsb
    assert np.max(np.abs(values[:, :3] - expected[:, :3])) <= g_lsb
    assert np.max(np.abs(values[:, 3:] - expected[:, 3:])) <= dps_lsb
    assert rig.bus.closed, "closing the driver releases the bus"


@pytest.mark.parametrize("name", sorted(CHIPS))
def test_fifo_overflow_is_a_gap_then_reading_resumes(name: str) -> None:
    rig = make_rig(name, Ramp(t0=100.0))
    with rig.driver as imu:
        before, _ = collect(rig, 0.1)
        last_t = before[-1].t
        rig.clock.advance(3.0)  # nobody read for 3 s: every FIFO here overflows
        batch = imu.read()
        assert batch.samples == ()
        assert len(batch.gaps) == 1
        gap = batch.gaps[0]
        assert gap.reason == "fifo overflow"
        assert gap.t_start == pytest.approx(last_t)
        assert gap.t_end == pytest.approx(rig.clock.monotonic())
        after, gaps = collect(rig, 0.1)
        assert gaps == []
        assert abs(len(after) - 0.1 * rig.rate) <= 2
        assert after[0].t > gap.t_end
        # Fresh data, not stale FIFO contents: the ramp's value matches the new sample times.
        assert after[-1].ax == pytest.approx(0.1 * (after[-1].t - 100.0), abs=0.01)
        assert imu.overflows == 1
        assert imu.healthy


@pytest.mark.parametrize("name", ["lsm6dsox", "mpu6050"])
def test_transient_bus_errors_are_retried_without_losing_data(name: str) -> None:
    rig = make_rig(name)
    with rig.driver as imu:
        collect(rig, 0.05)
        rig.bus.fail_next(rig.address, 2)  # the policy tries 3 times
        samples, gaps = collect(rig, 0.1)
        assert imu.healthy
        assert gaps == []
        assert abs(len(samples) - 0.1 * rig.rate) <= 2
        assert rig.bus.stats.errors_raised == 2


@pytest.mark.parametrize("name", sorted(CHIPS))
def test_a_dead_chip_makes_the_imu_unhealthy_and_it_reconnects_when_back(name: str) -> None:
    rig = make_rig(name, Hum())
    with rig.driver as imu:
        before, _ = collect(rig, 0.1)
        rig.bus.unplug(rig.address)
        rig.clock.advance(0.02)
        batch = imu.read()  # never raises
        assert batch.samples == () and batch.gaps == ()
        assert not imu.healthy
        errors = rig.bus.stats.errors_raised
        rig.clock.advance(0.5)
        assert imu.read().samples == ()
        assert rig.bus.stats.errors_raised == errors, "no retry storm: reconnects wait their interval"
        # The chip comes back power-cycled (registers at their defaults): the driver must reconfigure it.
        address, emulation, *_ = CHIPS[name]
        rig.bus.devices[rig.address] = emulation(rig.clock, Hum(), 0.0)
        rig.bus.plug(rig.address)
        rig.clock.advance(0.6)
        batch = imu.read()
        assert imu.healthy
        assert len(batch.gaps) == 1
        assert batch.gaps[0].reason.startswith("bus error")
        assert batch.gaps[0].t_start == pytest.approx(before[-1].t)
        after, gaps = collect(rig, 0.2)
        assert gaps == []
        assert abs(len(after) - 0.2 * rig.rate) <= 2
        assert imu.reconnects == 1


def test_the_driver_follows_a_chip_whose_oscillator_runs_fast() -> None:
    rig = make_rig("lsm6dsox", odr_error=0.02)
    with rig.driver:
        samples, _ = collect(rig, 8.0, step=0.05)
    late = np.diff([s.t for s in samples[-800:]])
    assert np.median(late) == pytest.approx(1 / (833 * 1.02), rel=0.005)


#: the longest poll each FIFO survives, with a margin: 256 samples at 833 Hz, 682, 682, 85 at 1 kHz
LONGEST_POLL = {"lsm6dsox": 0.25, "lsm6ds3": 0.6, "lsm6ds3tr-c": 0.3, "mpu6050": 0.07}


@pytest.mark.parametrize("name", sorted(CHIPS))
@settings(max_examples=15, deadline=None)
@given(fractions=st.lists(st.floats(min_value=0.005, max_value=1.0), min_size=5, max_size=30))
def test_any_polling_rhythm_keeps_every_sample_once_and_in_order(name: str, fractions: list[float]) -> None:
    rig = make_rig(name, Ramp(t0=100.0))
    samples: list[ImuSample] = []
    with rig.driver as imu:
        for fraction in fractions:
            rig.clock.advance(fraction * LONGEST_POLL[name])
            batch = imu.read()
            assert batch.gaps == ()
            samples.extend(batch.samples)
    ax = np.array([s.ax for s in samples])
    times = np.array([s.t for s in samples])
    assert np.all(np.diff(times) > 0)
    # The ramp rises 0.1 g/s: consecutive samples differ by one period's worth (no skips, no repeats).
    if len(ax) > 1:
        assert np.allclose(np.diff(ax), 0.1 / rig.rate, atol=rig.lsb[0] + 1e-9)
    assert len(samples) == rig.chip.samples_made


def test_a_wrong_range_is_named_with_the_choices() -> None:
    clock = FakeClock()
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock)})
    driver = Lsm6dsoxDriver(I2cBus(1, bus.opener()), 0x6A, clock=clock, config=ImuConfig(accel_range_g=3))
    with pytest.raises(ValueError, match=r"accel_range_g must be one of \[2, 4, 8, 16\]"):
        driver.open()
    assert bus.closed, "the bus is released when the configuration is refused"


def test_open_with_nothing_on_the_bus_says_what_to_check() -> None:
    clock = FakeClock()
    bus = FakeSMBus({})
    driver = Mpu6050Driver(I2cBus(1, bus.opener()), 0x68, clock=clock)
    with pytest.raises(ImuError, match="Check the wiring"):
        driver.open()
    assert not driver.healthy


def test_the_wrong_chip_at_the_address_is_refused() -> None:
    clock = FakeClock()
    bus = FakeSMBus({0x6A: Lsm6ds3Emulation(clock, who_am_i=0x69)})
    driver = Lsm6dsoxDriver(I2cBus(1, bus.opener()), 0x6A, clock=clock)
    with pytest.raises(ImuError, match="WHO_AM_I 0x69"):
        driver.open()


def test_read_before_open_is_an_error() -> None:
    rig = make_rig("mpu6050")
    with pytest.raises(ImuError, match="before open"):
        rig.driver.read()


def test_mpu6050_rate_is_set_by_the_divider() -> None:
    rig = make_rig("mpu6050", rate_hz=200.0)
    with rig.driver as imu:
        assert imu.rate_hz == 200.0
        samples, _ = collect(rig, 0.5)
    assert abs(len(samples) - 100) <= 1
    assert rig.chip.regs[0x19] == 4  # SMPLRT_DIV: 1 kHz / (1 + 4)


def _word(tag: int, slot: int, xyz: tuple[int, int, int]) -> bytes:
    return bytes([(tag << 3) | (slot << 1)]) + np.array(xyz, dtype="<i2").tobytes()


def test_tagged_fifo_words_are_paired_by_slot_whatever_their_order_and_split() -> None:
    rig = make_rig("lsm6dsox")
    with rig.driver as imu:
        assert isinstance(imu, Lsm6dsoxDriver)
        gyro, accel, temp = 0x01, 0x02, 0x03
        first = _word(accel, 1, (4096, 0, 0)) + _word(gyro, 1, (0, 1000, 0)) + _word(temp, 1, (5, 0, 0))
        first += _word(gyro, 2, (0, 0, 2000))  # its accel word comes in the next read
        second = _word(accel, 2, (0, 0, -4096)) + _word(gyro, 3, (7, 7, 7)) + _word(gyro, 0, (1, 1, 1))
        second += _word(accel, 0, (0, 4096, 0))  # slot 3 never completes: dropped, not mis-paired
        a = imu._decode(first)
        b = imu._decode(second)
    g, dps = 0.244e-3, 17.5e-3
    np.testing.assert_allclose(a, [[4096 * g, 0, 0, 0, 1000 * dps, 0]])
    np.testing.assert_allclose(b, [[0, 0, -4096 * g, 0, 0, 2000 * dps], [0, 4096 * g, 0, dps, dps, dps]])
