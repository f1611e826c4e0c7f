"""The MPU-6050 driver (0x68, or 0x69 with AD0 high), read through its 1 KB FIFO.

Registers from InvenSense's register map RM-MPU-6000A-00. The sample rate is 1 kHz / (1 + SMPLRT_DIV)
with the digital low-pass filter on (DLPF_CFG=1, 188 Hz), so 1 kHz at most here. The FIFO holds
accel x y z then gyro x y z per sample (12 bytes, big-endian), 85 samples: about 85 ms at 1 kHz, so
the table must read it at least every ~80 ms. When the FIFO overflows the chip overwrites its
oldest bytes and the stream loses its alignment, so the only safe answer is a reset (and a gap).
"""

from __future__ import annotations

import numpy as np

from hardware.i2c import MAX_TRANSFER_BYTES, I2cDevice
from hardware.imu_driver import FifoImuDriver, exact_code

SMPLRT_DIV = 0x19
CONFIG = 0x1A
GYRO_CONFIG = 0x1B
ACCEL_CONFIG = 0x1C
FIFO_EN = 0x23
INT_STATUS = 0x3A
USER_CTRL = 0x6A
PWR_MGMT_1 = 0x6B
FIFO_COUNTH = 0x72
FIFO_R_W = 0x74
WHO_AM_I = 0x75

PWR_RESET = 0x80
PWR_CLK_PLL_XGYRO = 0x01  # awake, clocked from the X gyro's PLL (more stable than the internal one)
PWR_SLEEP = 0x40
DLPF_188HZ = 0x01
FIFO_EN_ACCEL_GYRO = 0x08 | 0x40 | 0x20 | 0x10
USER_CTRL_FIFO_EN = 0x40
USER_CTRL_FIFO_RESET = 0x04
INT_FIFO_OFLOW = 0x10
FIFO_CAPACITY = 1024
RECORD = 12  # bytes per sample: ax ay az gx gy gz, int16 big-endian

ACCEL_RANGES: dict[int, int] = {0: 2, 1: 4, 2: 8, 3: 16}
ACCEL_LSB_PER_G: dict[int, float] = {2: 16384.0, 4: 8192.0, 8: 4096.0, 16: 2048.0}
GYRO_RANGES: dict[int, int] = {0: 250, 1: 500, 2: 1000, 3: 2000}
GYRO_LSB_PER_DPS: dict[int, float] = {250: 131.0, 500: 65.5, 1000: 32.8, 2000: 16.4}
BASE_RATE_HZ = 1000.0


class Mpu6050Driver(FifoImuDriver):
    """An MPU-6050 at 0x68/0x69, sampling at up to 1 kHz into its FIFO."""

    who_am_i_register = WHO_AM_I
    known_ids = {0x68: "mpu6050"}

    def _configure(self, dev: I2cDevice) -> float:
        if self.config.rate_hz > BASE_RATE_HZ:
            raise ValueError(f"rate_hz: the MPU-6050 samples at most {BASE_RATE_HZ:.0f} Hz here, not {self.config.rate_hz}")
        divider = max(0, min(255, int(BASE_RATE_HZ // self.config.rate_hz) - 1))
        rate = BASE_RATE_HZ / (1 + divider)
        afs = exact_code(self.config.accel_range_g, ACCEL_RANGES, "accel_range_g")
        fs = exact_code(self.config.gyro_range_dps, GYRO_RANGES, "gyro_range_dps")
        self._g_per_lsb = 1.0 / ACCEL_LSB_PER_G[self.config.accel_range_g]
        self._dps_per_lsb = 1.0 / GYRO_LSB_PER_DPS[self.config.gyro_range_dps]
        dev.write_u8(PWR_MGMT_1, PWR_RESET)
        self.clock.sleep(0.1)  # the register map asks for 100 ms after DEVICE_RESET
        dev.write_u8(PWR_MGMT_1, PWR_CLK_PLL_XGYRO)
        dev.write_u8(CONFIG, DLPF_188HZ)
        dev.write_u8(SMPLRT_DIV, divider)
        dev.write_u8(GYRO_CONFIG, fs << 3)
        dev.write_u8(ACCEL_CONFIG, afs << 3)
        dev.write_u8(FIFO_EN, FIFO_EN_ACCEL_GYRO)
        self._reset_fifo(dev)
        return rate

    def _reset_fifo(self, dev: I2cDevice) -> None:
        dev.write_u8(USER_CTRL, USER_CTRL_FIFO_RESET)  # FIFO off and emptied
        dev.write_u8(USER_CTRL, USER_CTRL_FIFO_EN)
        dev.read_u8(INT_STATUS)  # clear a stale overflow flag

    def _drain(self, dev: I2cDevice) -> np.ndarray | None:
        if dev.read_u8(INT_STATUS) & INT_FIFO_OFLOW:
            return None
        count_bytes = dev.read_block(FIFO_COUNTH, 2)
        count = (count_bytes[0] << 8) | count_bytes[1]
        if count >= FIFO_CAPACITY:
            return None  # full: the next sample overwrites, so treat it as lost alignment
        records = count // RECORD
        per_transfer = MAX_TRANSFER_BYTES // RECORD
        data = bytearray()
        while records > 0:
            take = min(records, per_transfer)
            data += dev.read_block(FIFO_R_W, take * RECORD)
            records -= take
        raw = np.frombuffer(bytes(data), dtype=">i2").reshape(-1, 6).astype(float)
        return np.column_stack([raw[:, :3] * self._g_per_lsb, raw[:, 3:] * self._dps_per_lsb])

    def _power_down(self, dev: I2cDevice) -> None:
        dev.write_u8(USER_CTRL, 0)
        dev.write_u8(PWR_MGMT_1, PWR_SLEEP)
