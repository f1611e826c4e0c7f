"""A register-level MPU-6050, written from InvenSense's register map (RM-MPU-6000A-00 rev 4.2).

Written separately from the driver on purpose. Emulated:
- WHO_AM_I (0x75) = 0x68; PWR_MGMT_1 (0x6B): DEVICE_RESET[7], SLEEP[6] (reset value 0x40: asleep,
  so nothing is sampled until the driver wakes it), CLKSEL[2:0].
- SMPLRT_DIV (0x19); CONFIG (0x1A) DLPF_CFG[2:0]: the sample rate is the gyroscope output rate
  (8 kHz when DLPF_CFG is 0 or 7, else 1 kHz) / (1 + SMPLRT_DIV).
- GYRO_CONFIG (0x1B) FS_SEL[4:3] (131, 65.5, 32.8, 16.4 LSB per deg/s); ACCEL_CONFIG (0x1C)
  AFS_SEL[4:3] (16384, 8192, 4096, 2048 LSB per g).
- FIFO_EN (0x23): TEMP[7] XG[6] YG[5] ZG[4] ACCEL[3]; written in register order (accel, temp, gyro),
  big-endian.
- USER_CTRL (0x6A): FIFO_EN[6] (the FIFO only fills when set), FIFO_RESET[2] (self-clearing).
- INT_STATUS (0x3A): FIFO_OFLOW_INT[4], DATA_RDY_INT[0]; cleared by reading it.
- FIFO_COUNTH/L (0x72/0x73), FIFO_R_W (0x74): a burst read of FIFO_R_W keeps popping FIFO bytes.
- The FIFO holds 1024 bytes. When full, new bytes overwrite the oldest ones, which leaves the
  stream misaligned: exactly why the driver must reset the FIFO after an overflow.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from controller.clock import Clock
from hardware.emulation.chip import EmulatedChip, to_raw
from hardware.emulation.motion import Motion

SMPLRT_DIV = 0x19
CONFIG = 0x1A
GYRO_CONFIG = 0x1B
ACCEL_CONFIG = 0x1C
FIFO_EN = 0x23
INT_STATUS = 0x3A
USER_CTRL = 0x6A
PWR_MGMT_1 = 0x6B
FIFO_COUNTH = 0x72
FIFO_COUNTL = 0x73
FIFO_R_W = 0x74
WHO_AM_I = 0x75

FIFO_BYTES = 1024
ACCEL_LSB_PER_G = {0: 16384.0, 1: 8192.0, 2: 4096.0, 3: 2048.0}
GYRO_LSB_PER_DPS = {0: 131.0, 1: 65.5, 2: 32.8, 3: 16.4}


class Mpu6050Emulation(EmulatedChip):
    """An MPU-6050 at 0x68 or 0x69 (the address is the bus's business)."""

    name = "mpu6050"

    def __init__(self, clock: Clock, motion: Motion | None = None, odr_error: float = 0.0) -> None:
        super().__init__(clock, motion, odr_error)
        self.fifo: deque[int] = deque()
        self._int_status = 0
        self._count_latch: int | None = None
        self._reset()

    def _reset(self) -> None:
        self.regs[:] = bytes(256)
        self.regs[WHO_AM_I] = 0x68
        self.regs[PWR_MGMT_1] = 0x40
        self.fifo.clear()
        self._int_status = 0
        self.set_rate(0.0)

    def _sample_rate(self) -> float:
        if self.regs[PWR_MGMT_1] & 0x40:
            return 0.0
        dlpf = self.regs[CONFIG] & 7
        gyro_rate = 8000.0 if dlpf in (0, 7) else 1000.0
        return gyro_rate / (1 + self.regs[SMPLRT_DIV])

    def _update_rate(self) -> None:
        rate = self._sample_rate()
        if rate != self.rate_hz / (1 + self.odr_error):
            self.set_rate(rate)

    def _write_reg(self, register: int, value: int) -> None:
        if register in (WHO_AM_I, INT_STATUS, FIFO_COUNTH, FIFO_COUNTL):
            return
        if register == PWR_MGMT_1 and value & 0x80:
            self._reset()
            return
        if register == FIFO_R_W:
            return  # writing the FIFO is for its DMP; nothing here uses it
        if register == USER_CTRL and value & 0x04:
            self.fifo.clear()
            value &= ~0x04 & 0xFF
        self.regs[register] = value
        if register in (PWR_MGMT_1, CONFIG, SMPLRT_DIV):
            self._update_rate()

    def _read_reg(self, register: int) -> int:
        if register == INT_STATUS:
            value, self._int_status = self._int_status, 0
            return value
        if register == FIFO_COUNTH:
            # reading the high byte latches the count, so H and L always belong together
            self._count_latch = len(self.fifo)
            return (self._count_latch >> 8) & 0xFF
        if register == FIFO_COUNTL:
            latched, self._count_latch = self._count_latch, None
            return (len(self.fifo) if latched is None else latched) & 0xFF
        if register == FIFO_R_W:
            return self.fifo.popleft() if self.fifo else 0
        return self.regs[register]

    def _next_address(self, register: int) -> int:
        if register == FIFO_R_W:
            return FIFO_R_W  # a burst of FIFO_R_W reads the FIFO, not the next register
        return (register + 1) & 0xFF

    def _read_burst(self, register: int, length: int) -> bytes:
        if register == FIFO_R_W:
            popped = min(length, len(self.fifo))
            return bytes(self.fifo.popleft() for _ in range(popped)) + bytes(length - popped)
        return super()._read_burst(register, length)

    def max_pending_samples(self) -> int:
        return FIFO_BYTES // 6 + 1

    def _push(self, values: np.ndarray, dropped: int) -> None:
        self._int_status |= 0x01
        enabled = self.regs[FIFO_EN]
        if not self.regs[USER_CTRL] & 0x40 or not enabled:
            return
        accel = to_raw(values[:, :3], 1.0 / ACCEL_LSB_PER_G[(self.regs[ACCEL_CONFIG] >> 3) & 3])
        gyro = to_raw(values[:, 3:], 1.0 / GYRO_LSB_PER_DPS[(self.regs[GYRO_CONFIG] >> 3) & 3])
        temp = np.int16(round((25.0 - 36.53) * 340))  # a room-temperature chip
        columns: list[np.ndarray] = []
        if enabled & 0x08:
            columns.append(accel)
        if enabled & 0x80:
            columns.append(np.full((len(values), 1), temp, dtype=np.int16))
        for bit, axis in ((0x40, 0), (0x20, 1), (0x10, 2)):
            if enabled & bit:
                columns.append(gyro[:, axis : axis + 1])
        record = np.concatenate(columns, axis=1).astype(">i2").tobytes()
        if dropped:
            self._int_status |= 0x10
        self.fifo.extend(record)
        overflow = len(self.fifo) - FIFO_BYTES
        if overflow > 0:
            self._int_status |= 0x10
            for _ in range(overflow):
                self.fifo.popleft()
