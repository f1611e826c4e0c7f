"""A register-level LSM6DSOX (and its tagged-FIFO siblings), written from ST's datasheet DS13337.

It deliberately does not import the driver's register table: the two are written separately, so
a wrong address in either shows up as a failing test.

Emulated:
- WHO_AM_I (0x0F) = 0x6C; CTRL1_XL (0x10) ODR_XL[7:4] FS_XL[3:2]; CTRL2_G (0x11) ODR_G[7:4]
  FS_G[3:2] FS_125[1]; CTRL3_C (0x12) BOOT/BDU/IF_INC/SW_RESET (reset value 0x04: IF_INC on).
- FIFO_CTRL1/2 (0x07/0x08) watermark; FIFO_CTRL3 (0x09) BDR_GY[7:4] BDR_XL[3:0];
  FIFO_CTRL4 (0x0A) FIFO_MODE[2:0]: 000 bypass (empties the FIFO), 001 FIFO (stops when full),
  110 continuous (overwrites the oldest).
- FIFO_STATUS1 (0x3A) DIFF_FIFO[7:0]; FIFO_STATUS2 (0x3B) WTM_IA[7] OVR_IA[6] FULL_IA[5]
  OVR_LATCHED[3] DIFF_FIFO[9:8]; OVR_LATCHED clears when FIFO_STATUS2 is read.
- FIFO_DATA_OUT_TAG (0x78) and X_L..Z_H (0x79..0x7E), 7 bytes per word. TAG_SENSOR[7:3]
  (0x01 gyroscope, 0x02 accelerometer), TAG_CNT[2:1] (the time slot, mod 4), TAG_PARITY[0].
  Reading Z_H pops the word, and with IF_INC the address rolls back from 0x7E to 0x78, so one long
  read drains many words (what Linux's st_lsm6dsx driver relies on).
- The FIFO holds 3 KB of data: 512 words.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from controller.clock import Clock
from hardware.emulation.chip import EmulatedChip, to_raw
from hardware.emulation.motion import Motion

WHO_AM_I = 0x0F
CTRL1_XL = 0x10
CTRL2_G = 0x11
CTRL3_C = 0x12
FIFO_CTRL1 = 0x07
FIFO_CTRL2 = 0x08
FIFO_CTRL3 = 0x09
FIFO_CTRL4 = 0x0A
FIFO_STATUS1 = 0x3A
FIFO_STATUS2 = 0x3B
FIFO_DATA_OUT_TAG = 0x78
FIFO_DATA_OUT_Z_H = 0x7E

#: ODR code (4 bits) -> Hz, shared by CTRL1_XL, CTRL2_G and the FIFO BDR fields
ODR_HZ = {0: 0.0, 1: 12.5, 2: 26.0, 3: 52.0, 4: 104.0, 5: 208.0, 6: 416.0, 7: 833.0, 8: 1666.0,
          9: 3333.0, 10: 6666.0}
#: FS_XL code -> mg/LSB
ACCEL_MG_PER_LSB = {0: 0.061, 1: 0.488, 2: 0.122, 3: 0.244}
#: FS_G code -> mdps/LSB
GYRO_MDPS_PER_LSB = {0: 8.75, 1: 17.5, 2: 35.0, 3: 70.0}

TAG_GYRO = 0x01
TAG_ACCEL = 0x02
FIFO_WORDS = 512


def _tag_byte(sensor: int, slot: int) -> int:
    byte = (sensor << 3) | ((slot & 3) << 1)
    parity = bin(byte).count("1") & 1
    return byte | parity


class Lsm6dsoxEmulation(EmulatedChip):
    """An LSM6DSOX at one address; its motion signal comes from ``motion``."""

    name = "lsm6dsox"

    def __init__(
        self, clock: Clock, motion: Motion | None = None, odr_error: float = 0.0, who_am_i: int = 0x6C
    ) -> None:
        super().__init__(clock, motion, odr_error)
        self.who_am_i = who_am_i
        self.fifo: deque[bytes] = deque()
        self._slot = 0
        self._overrun = False
        self._overrun_latched = False
        self._current = b""  # the word being read out through 0x78..0x7E
        self._reset()

    def _reset(self) -> None:
        self.regs[:] = bytes(256)
        self.regs[WHO_AM_I] = self.who_am_i
        self.regs[CTRL3_C] = 0x04
        self.fifo.clear()
        self._current = b""
        self._overrun = self._overrun_latched = False
        self.set_rate(0.0)

    # ---- registers ----------------------------------------------------------------------

    def _fifo_mode(self) -> int:
        return self.regs[FIFO_CTRL4] & 0x07

    def _batching(self) -> tuple[bool, bool]:
        """(gyro, accel) batched into the FIFO: their sensor is on and its BDR is set."""
        gyro = (self.regs[FIFO_CTRL3] >> 4) != 0 and (self.regs[CTRL2_G] >> 4) != 0
        accel = (self.regs[FIFO_CTRL3] & 0x0F) != 0 and (self.regs[CTRL1_XL] >> 4) != 0
        return gyro, accel

    def _update_rate(self) -> None:
        # The FIFO is written at the batch data rate; the emulation uses one rate for both sensors.
        gyro, accel = self._batching()
        codes = []
        if gyro:
            codes.append(min(self.regs[FIFO_CTRL3] >> 4, self.regs[CTRL2_G] >> 4))
        if accel:
            codes.append(min(self.regs[FIFO_CTRL3] & 0x0F, self.regs[CTRL1_XL] >> 4))
        rate = ODR_HZ.get(max(codes), 0.0) if codes and self._fifo_mode() != 0 else 0.0
        if rate != self.rate_hz / (1 + self.odr_error):
            self.set_rate(rate)

    def _write_reg(self, register: int, value: int) -> None:
        if register == WHO_AM_I or register in (FIFO_STATUS1, FIFO_STATUS2):
            return  # read-only
        if register == CTRL3_C and value & 0x01:
            self._reset()  # SW_RESET: registers to their defaults, the bit clears itself
            return
        self.regs[register] = value
        if register == FIFO_CTRL4 and value & 0x07 == 0:
            self.fifo.clear()  # bypass mode empties the FIFO
            self._current = b""
            self._overrun = self._overrun_latched = False
        if register in (CTRL1_XL, CTRL2_G, FIFO_CTRL3, FIFO_CTRL4):
            self._update_rate()

    def _read_reg(self, register: int) -> int:
        if register == FIFO_STATUS1:
            return len(self.fifo) & 0xFF
        if register == FIFO_STATUS2:
            count = len(self.fifo)
            wtm = (self.regs[FIFO_CTRL1] | ((self.regs[FIFO_CTRL2] & 1) << 8))
            value = (count >> 8) & 0x03
            value |= 0x80 if wtm and count >= wtm else 0
            value |= 0x40 if self._overrun else 0
            value |= 0x20 if count >= FIFO_WORDS else 0
            value |= 0x08 if self._overrun_latched else 0
            self._overrun_latched = False
            return value
        if FIFO_DATA_OUT_TAG <= register <= FIFO_DATA_OUT_Z_H:
            if register == FIFO_DATA_OUT_TAG or not self._current:
                self._current = self.fifo[0] if self.fifo else bytes(7)
            value = self._current[register - FIFO_DATA_OUT_TAG]
            if register == FIFO_DATA_OUT_Z_H:
                if self.fifo:
                    self.fifo.popleft()
                    if len(self.fifo) < FIFO_WORDS:
                        self._overrun = False
                self._current = b""
            return value
        return self.regs[register]

    def _next_address(self, register: int) -> int:
        if not self.regs[CTRL3_C] & 0x04:
            return register  # IF_INC off: a burst re-reads the same register
        if register == FIFO_DATA_OUT_Z_H:
            return FIFO_DATA_OUT_TAG
        return (register + 1) & 0xFF

    def _read_burst(self, register: int, length: int) -> bytes:
        # Fast path for the common case: whole words from the tag register on.
        if register == FIFO_DATA_OUT_TAG and length % 7 == 0 and self.regs[CTRL3_C] & 0x04:
            out = bytearray()
            for _ in range(length // 7):
                out += self.fifo.popleft() if self.fifo else bytes(7)
            if len(self.fifo) < FIFO_WORDS:
                self._overrun = False
            self._current = b""
            return bytes(out)
        return super()._read_burst(register, length)

    # ---- sampling -----------------------------------------------------------------------

    def max_pending_samples(self) -> int:
        return FIFO_WORDS + 1

    def _push(self, values: np.ndarray, dropped: int) -> None:
        gyro, accel = self._batching()
        accel_raw = to_raw(values[:, :3], ACCEL_MG_PER_LSB[(self.regs[CTRL1_XL] >> 2) & 3] / 1000.0)
        gyro_lsb = 4.375 if self.regs[CTRL2_G] & 0x02 else GYRO_MDPS_PER_LSB[(self.regs[CTRL2_G] >> 2) & 3]
        gyro_raw = to_raw(values[:, 3:], gyro_lsb / 1000.0)
        words_per_slot = int(gyro) + int(accel)
        if dropped and words_per_slot:
            if self._fifo_mode() == 0x01:
                self._overrun = self._overrun_latched = True
            else:
                self._overflow(dropped * words_per_slot)
        self._slot = (self._slot + dropped) & 3
        for i in range(len(values)):
            if gyro:
                self._append(bytes([_tag_byte(TAG_GYRO, self._slot)]) + gyro_raw[i].astype("<i2").tobytes())
            if accel:
                self._append(bytes([_tag_byte(TAG_ACCEL, self._slot)]) + accel_raw[i].astype("<i2").tobytes())
            self._slot = (self._slot + 1) & 3

    def _append(self, word: bytes) -> None:
        mode = self._fifo_mode()
        if len(self.fifo) >= FIFO_WORDS:
            if mode == 0x01:  # FIFO mode: stop when full
                self._overrun = self._overrun_latched = True
                return
            self._overflow(1)
        self.fifo.append(word)

    def _overflow(self, words: int) -> None:
        for _ in range(min(words, len(self.fifo))):
            self.fifo.popleft()
        self._overrun = self._overrun_latched = True
