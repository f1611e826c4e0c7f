"""A register-level LSM6DS3 (and LSM6DS3TR-C / LSM6DSL), written from ST's datasheets (DocID026899 et al.).

These chips have the older, untagged FIFO: a stream of 16-bit words in a fixed pattern, one
"data set" of three words per sensor, gyroscope first (Gx Gy Gz Ax Ay Az when both are batched
at the same rate). Written separately from the driver on purpose.

Emulated:
- WHO_AM_I (0x0F): 0x69 for the LSM6DS3, 0x6A for the LSM6DS3TR-C and LSM6DSL.
- CTRL1_XL (0x10) ODR_XL[7:4] FS_XL[3:2]; CTRL2_G (0x11) ODR_G[7:4] FS_G[3:2] FS_125[1];
  CTRL3_C (0x12) IF_INC[2] (reset value 0x04), SW_RESET[0].
- FIFO_CTRL1/2 (0x06/0x07) threshold; FIFO_CTRL3 (0x08) DEC_FIFO_GYRO[5:3] DEC_FIFO_XL[2:0]
  (000 not batched, 001 no decimation); FIFO_CTRL4 (0x09); FIFO_CTRL5 (0x0A) ODR_FIFO[6:3]
  FIFO_MODE[2:0] (000 bypass empties the FIFO, 001 FIFO, 110 continuous).
- FIFO_STATUS1 (0x3A) DIFF_FIFO[7:0]; FIFO_STATUS2 (0x3B) FTH[7] FIFO_OVER_RUN[6] FIFO_FULL[5]
  FIFO_EMPTY[4] DIFF_FIFO high bits[3:0]; FIFO_STATUS3/4 (0x3C/0x3D) FIFO_PATTERN: which word of the
  pattern the next read returns.
- FIFO_DATA_OUT_L/H (0x3E/0x3F): reading H pops the word; with IF_INC the address rolls back from
  0x3F to 0x3E, so one long read drains many words.
- The FIFO holds 8 KB (LSM6DS3) or 4 KB (TR-C/DSL); on overrun in continuous mode the emulation
  drops whole data-set patterns, oldest first.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from controller.clock import Clock
from hardware.emulation.chip import EmulatedChip, to_raw
from hardware.emulation.motion import Motion

WHO_AM_I = 0x0F
FIFO_CTRL1 = 0x06
FIFO_CTRL2 = 0x07
FIFO_CTRL3 = 0x08
FIFO_CTRL5 = 0x0A
CTRL1_XL = 0x10
CTRL2_G = 0x11
CTRL3_C = 0x12
FIFO_STATUS1 = 0x3A
FIFO_STATUS2 = 0x3B
FIFO_STATUS3 = 0x3C
FIFO_STATUS4 = 0x3D
FIFO_DATA_OUT_L = 0x3E
FIFO_DATA_OUT_H = 0x3F

ODR_HZ = {0: 0.0, 1: 12.5, 2: 26.0, 3: 52.0, 4: 104.0, 5: 208.0, 6: 416.0, 7: 833.0, 8: 1666.0,
          9: 3333.0, 10: 6666.0}
ACCEL_MG_PER_LSB = {0: 0.061, 1: 0.488, 2: 0.122, 3: 0.244}
GYRO_MDPS_PER_LSB = {0: 8.75, 1: 17.5, 2: 35.0, 3: 70.0}


class Lsm6ds3Emulation(EmulatedChip):
    """An LSM6DS3 (``who_am_i=0x69``) or LSM6DS3TR-C/LSM6DSL (``who_am_i=0x6A``)."""

    def __init__(
        self, clock: Clock, motion: Motion | None = None, odr_error: float = 0.0, who_am_i: int = 0x69
    ) -> None:
        super().__init__(clock, motion, odr_error)
        if who_am_i not in (0x69, 0x6A):
            raise ValueError(f"an LSM6DS3-family chip answers 0x69 or 0x6A, not {who_am_i:#04x}")
        self.who_am_i = who_am_i
        self.name = "lsm6ds3" if who_am_i == 0x69 else "lsm6ds3tr-c"
        # capacity in words, rounded down to whole 6-word patterns; DIFF_FIFO has 12 (11) bits
        self.capacity = 4092 if who_am_i == 0x69 else 2046
        self._count_mask = 0x0FFF if who_am_i == 0x69 else 0x07FF
        self.fifo: deque[int] = deque()
        self._pattern_pos = 0  # pattern index of the oldest word in the FIFO
        self._overrun = False
        self._reset()

    def _reset(self) -> None:
        self.regs[:] = bytes(256)
        self.regs[WHO_AM_I] = self.who_am_i
        self.regs[CTRL3_C] = 0x04
        self._clear_fifo()
        self.set_rate(0.0)

    def _clear_fifo(self) -> None:
        self.fifo.clear()
        self._pattern_pos = 0
        self._overrun = False

    def _batching(self) -> tuple[bool, bool]:
        gyro = (self.regs[FIFO_CTRL3] >> 3) & 7 != 0 and (self.regs[CTRL2_G] >> 4) != 0
        accel = self.regs[FIFO_CTRL3] & 7 != 0 and (self.regs[CTRL1_XL] >> 4) != 0
        return gyro, accel

    def _pattern_len(self) -> int:
        gyro, accel = self._batching()
        return 3 * (int(gyro) + int(accel))

    def _update_rate(self) -> None:
        mode = self.regs[FIFO_CTRL5] & 7
        gyro, accel = self._batching()
        rate = ODR_HZ.get((self.regs[FIFO_CTRL5] >> 3) & 0x0F, 0.0) if mode and (gyro or accel) else 0.0
        if rate != self.rate_hz / (1 + self.odr_error):
            self.set_rate(rate)

    def _write_reg(self, register: int, value: int) -> None:
        if register == WHO_AM_I or FIFO_STATUS1 <= register <= FIFO_DATA_OUT_H:
            return
        if register == CTRL3_C and value & 0x01:
            self._reset()
            return
        self.regs[register] = value
        if register == FIFO_CTRL5 and value & 7 == 0:
            self._clear_fifo()
        if register in (CTRL1_XL, CTRL2_G, FIFO_CTRL3, FIFO_CTRL5):
            self._update_rate()

    def _read_reg(self, register: int) -> int:
        count = len(self.fifo)
        if register == FIFO_STATUS1:
            return count & 0xFF
        if register == FIFO_STATUS2:
            threshold = self.regs[FIFO_CTRL1] | ((self.regs[FIFO_CTRL2] & 0x0F) << 8)
            value = (count & self._count_mask) >> 8
            value |= 0x80 if threshold and count >= threshold else 0
            value |= 0x40 if self._overrun else 0
            value |= 0x20 if count >= self.capacity else 0
            value |= 0x10 if count == 0 else 0
            return value
        if register in (FIFO_STATUS3, FIFO_STATUS4):
            plen = self._pattern_len() or 1
            pattern = self._pattern_pos % plen
            return pattern & 0xFF if register == FIFO_STATUS3 else (pattern >> 8) & 0x03
        if register == FIFO_DATA_OUT_L:
            return (self.fifo[0] & 0xFF) if self.fifo else 0
        if register == FIFO_DATA_OUT_H:
            if not self.fifo:
                return 0
            word = self.fifo.popleft()
            self._pattern_pos += 1
            if len(self.fifo) < self.capacity:
                self._overrun = False
            return (word >> 8) & 0xFF
        return self.regs[register]

    def _next_address(self, register: int) -> int:
        if not self.regs[CTRL3_C] & 0x04:
            return register
        if register == FIFO_DATA_OUT_H:
            return FIFO_DATA_OUT_L
        return (register + 1) & 0xFF

    def _read_burst(self, register: int, length: int) -> bytes:
        if register == FIFO_DATA_OUT_L and length % 2 == 0 and self.regs[CTRL3_C] & 0x04:
            n = length // 2
            popped = min(n, len(self.fifo))
            words = [self.fifo.popleft() for _ in range(popped)] + [0] * (n - popped)
            self._pattern_pos += popped
            if len(self.fifo) < self.capacity:
                self._overrun = False
            return np.array(words, dtype=np.uint16).astype("<u2").tobytes()
        return super()._read_burst(register, length)

    def max_pending_samples(self) -> int:
        return self.capacity + 1

    def _push(self, values: np.ndarray, dropped: int) -> None:
        gyro, accel = self._batching()
        accel_raw = to_raw(values[:, :3], ACCEL_MG_PER_LSB[(self.regs[CTRL1_XL] >> 2) & 3] / 1000.0)
        gyro_lsb = 4.375 if self.regs[CTRL2_G] & 0x02 else GYRO_MDPS_PER_LSB[(self.regs[CTRL2_G] >> 2) & 3]
        gyro_raw = to_raw(values[:, 3:], gyro_lsb / 1000.0)
        parts = []
        if gyro:
            parts.append(gyro_raw)
        if accel:
            parts.append(accel_raw)
        if not parts:
            return
        words = np.concatenate(parts, axis=1).astype(np.uint16)  # (n, plen), two's complement bits
        plen = words.shape[1]
        mode = self.regs[FIFO_CTRL5] & 7
        if dropped:
            self._overrun = True
            if mode != 0x01:
                self._drop(len(self.fifo))
        for row in words:
            if len(self.fifo) + plen > self.capacity:
                self._overrun = True
                if mode == 0x01:
                    return  # FIFO mode stops when full
                self._drop(plen)
            self.fifo.extend(int(w) for w in row)

    def _drop(self, words: int) -> None:
        words = min(words, len(self.fifo))
        for _ in range(words):
            self.fifo.popleft()
        self._pattern_pos += words
