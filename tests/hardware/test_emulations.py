"""The register-level emulations themselves, register by register, as their datasheets describe the chips."""

from __future__ import annotations

import numpy as np
import pytest

from controller.clock import FakeClock
from hardware.emulation.bus import FakeSMBus
from hardware.emulation.lsm6ds3 import Lsm6ds3Emulation
from hardware.emulation.lsm6dsox import Lsm6dsoxEmulation
from hardware.emulation.mpu6050 import Mpu6050Emulation


def test_lsm6dsox_fifo_fills_at_the_batch_rate_and_flags_overrun(clock: FakeClock) -> None:
    bus = FakeSMBus({0x6A: Lsm6dsoxEmulation(clock)})
    assert bus.read_byte_data(0x6A, 0x0F) == 0x6C
    assert bus.read_byte_data(0x6A, 0x12) == 0x04  # CTRL3_C reset value: IF_INC
    bus.write_byte_data(0x6A, 0x10, 0x70)  # CTRL1_XL: 833 Hz, +-2 g
    bus.write_byte_data(0x6A, 0x11, 0x70)  # CTRL2_G: 833 Hz, 250 dps
    bus.write_byte_data(0x6A, 0x09, 0x77)  # FIFO_CTRL3: both batched at 833 Hz
    bus.write_byte_data(0x6A, 0x0A, 0x06)  # FIFO_CTRL4: continuous
    clock.advance(10 / 833 + 1e-6)
    status = bus.read_i2c_block_data(0x6A, 0x3A, 2)
    assert status[0] | ((status[1] & 3) << 8) == 20  # 10 slots, a gyro and an accel word each
    word = bus.read_i2c_block_data(0x6A, 0x78, 7)
    assert word[0] >> 3 in (0x01, 0x02)
    az = np.array(bus.read_i2c_block_data(0x6A, 0x78, 7)[1:], np.uint8).view("<i2")[2]
    assert az == round(1.0 / 0.061e-3)  # a still chip feels +1 g on z
    clock.advance(1.0)
    assert bus.read_byte_data(0x6A, 0x3B) & 0x68 == 0x68  # OVR_IA, FULL_IA, OVR_LATCHED
    assert bus.read_byte_data(0x6A, 0x3B) & 0x08 == 0  # the latch cleared when read
    bus.write_byte_data(0x6A, 0x0A, 0x00)  # bypass empties the FIFO
    assert bus.read_i2c_block_data(0x6A, 0x3A, 2) == [0, 0]


def test_lsm6ds3_pattern_register_follows_the_words_read(clock: FakeClock) -> None:
    bus = FakeSMBus({0x6B: Lsm6ds3Emulation(clock, who_am_i=0x69)})
    assert bus.read_byte_data(0x6B, 0x0F) == 0x69
    bus.write_byte_data(0x6B, 0x10, 0x70)
    bus.write_byte_data(0x6B, 0x11, 0x70)
    bus.write_byte_data(0x6B, 0x08, 0x09)  # both sensors, no decimation
    bus.write_byte_data(0x6B, 0x0A, (7 << 3) | 6)  # FIFO at 833 Hz, continuous
    clock.advance(4 / 833 + 1e-6)
    assert bus.read_byte_data(0x6B, 0x3A) == 24  # four Gx..Az patterns
    assert bus.read_byte_data(0x6B, 0x3C) == 0
    bus.read_i2c_block_data(0x6B, 0x3E, 4)  # two words: Gx, Gy
    assert bus.read_byte_data(0x6B, 0x3C) == 2  # next comes Gz
    assert bus.read_byte_data(0x6B, 0x3B) & 0x10 == 0  # not empty
    with pytest.raises(ValueError, match="0x69 or 0x6A"):
        Lsm6ds3Emulation(clock, who_am_i=0x6C)


def test_mpu6050_sleeps_until_woken_and_its_overflow_flag_clears_on_read(clock: FakeClock) -> None:
    bus = FakeSMBus({0x68: Mpu6050Emulation(clock)})
    assert bus.read_byte_data(0x68, 0x75) == 0x68
    assert bus.read_byte_data(0x68, 0x6B) == 0x40  # asleep after power-up
    bus.write_byte_data(0x68, 0x23, 0x78)  # accel + gyro into the FIFO
    bus.write_byte_data(0x68, 0x6A, 0x40)  # FIFO on
    clock.advance(0.1)
    assert bus.read_i2c_block_data(0x68, 0x72, 2) == [0, 0], "asleep: nothing sampled"
    bus.write_byte_data(0x68, 0x1A, 0x01)  # DLPF on: 1 kHz gyro rate
    bus.write_byte_data(0x68, 0x6B, 0x01)  # awake
    clock.advance(0.010 + 1e-6)
    high, low = bus.read_i2c_block_data(0x68, 0x72, 2)
    assert (high << 8) | low == 120  # ten 12-byte samples
    record = bytes(bus.read_i2c_block_data(0x68, 0x74, 12))
    assert np.frombuffer(record, ">i2")[2] == 16384  # +1 g at +-2 g
    clock.advance(0.2)
    assert bus.read_byte_data(0x68, 0x3A) & 0x10  # FIFO_OFLOW_INT
    assert bus.read_byte_data(0x68, 0x3A) & 0x10 == 0  # cleared by the read
    high, low = bus.read_i2c_block_data(0x68, 0x72, 2)
    assert (high << 8) | low == 1024
    bus.write_byte_data(0x68, 0x6A, 0x44)  # FIFO_RESET (self-clearing)
    assert bus.read_i2c_block_data(0x68, 0x72, 2) == [0, 0]
    assert bus.read_byte_data(0x68, 0x6A) == 0x40


def test_the_fake_bus_fails_like_a_pi_and_recovers(clock: FakeClock) -> None:
    bus = FakeSMBus({0x68: Mpu6050Emulation(clock)})
    with pytest.raises(OSError) as missing:
        bus.read_byte_data(0x69, 0x75)
    assert missing.value.errno == 121
    bus.fail_next(0x68, 1)
    with pytest.raises(OSError):
        bus.read_byte_data(0x68, 0x75)
    assert bus.read_byte_data(0x68, 0x75) == 0x68
    bus.unplug(0x68)
    with pytest.raises(OSError):
        bus.write_byte_data(0x68, 0x6B, 0)
    bus.plug(0x68)
    bus.write_byte_data(0x68, 0x6B, 0)
    assert bus.stats.errors_raised == 3
