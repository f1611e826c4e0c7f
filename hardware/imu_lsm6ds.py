"""Drivers for ST's LSM6DS family at 0x6A/0x6B, read through the FIFO in long bursts.

Two FIFO designs live in this family, so two classes:

- :class:`Lsm6dsoxDriver`: the tagged FIFO of the LSM6DSO/LSM6DSOX (WHO_AM_I 0x6C) and the
  ISM330DHCX/LSM6DSR (0x6B). Every 7-byte word carries a tag (which sensor, which time slot).
- :class:`Lsm6ds3Driver`: the untagged FIFO of the LSM6DS3 (0x69) and LSM6DS3TR-C/LSM6DSL (0x6A):
  a stream of 16-bit words in a fixed pattern (gyroscope x y z, then accelerometer x y z).

Registers from ST's datasheets DS13337 (LSM6DSOX) and DocID026899 (LSM6DS3). Note that the
LSM6DSO32 also answers 0x6C but has double the accelerometer scale; it is not supported.
"""

from __future__ import annotations

import numpy as np

from hardware.i2c import MAX_TRANSFER_BYTES, I2cDevice
from hardware.imu_driver import FifoImuDriver, exact_code, pick_code

# Registers shared by the family
WHO_AM_I = 0x0F
CTRL1_XL = 0x10
CTRL2_G = 0x11
CTRL3_C = 0x12
CTRL9_XL = 0x18
CTRL3_BDU = 0x40
CTRL3_IF_INC = 0x04
CTRL3_SW_RESET = 0x01

#: ODR code -> Hz (CTRL1_XL, CTRL2_G, and the FIFO rate fields)
ODR_CODES: dict[int, float] = {1: 12.5, 2: 26.0, 3: 52.0, 4: 104.0, 5: 208.0, 6: 416.0, 7: 833.0,
                               8: 1666.0, 9: 3333.0, 10: 6666.0}
#: FS_XL code -> full scale in g, and the sensitivity for each (mg/LSB)
ACCEL_RANGES: dict[int, int] = {0: 2, 2: 4, 3: 8, 1: 16}
ACCEL_MG_PER_LSB: dict[int, float] = {2: 0.061, 4: 0.122, 8: 0.244, 16: 0.488}
#: FS_G code -> full scale in deg/s (125 deg/s is the separate FS_125 bit), sensitivity mdps/LSB
GYRO_RANGES: dict[int, int] = {0: 250, 1: 500, 2: 1000, 3: 2000}
GYRO_MDPS_PER_LSB: dict[int, float] = {125: 4.375, 250: 8.75, 500: 17.5, 1000: 35.0, 2000: 70.0}

# The tagged FIFO (LSM6DSO/LSM6DSOX)
OX_FIFO_CTRL1 = 0x07
OX_FIFO_CTRL2 = 0x08
OX_FIFO_CTRL3 = 0x09
OX_FIFO_CTRL4 = 0x0A
OX_FIFO_STATUS1 = 0x3A
OX_FIFO_DATA_OUT_TAG = 0x78
OX_FIFO_MODE_BYPASS = 0x00
OX_FIFO_MODE_CONTINUOUS = 0x06
OX_STATUS2_OVERRUN = 0x40 | 0x08  # FIFO_OVR_IA or FIFO_OVR_LATCHED
OX_TAG_GYRO = 0x01
OX_TAG_ACCEL = 0x02
OX_WORD = 7

# The untagged FIFO (LSM6DS3/LSM6DS3TR-C/LSM6DSL)
DS3_FIFO_CTRL1 = 0x06
DS3_FIFO_CTRL2 = 0x07
DS3_FIFO_CTRL3 = 0x08
DS3_FIFO_CTRL5 = 0x0A
DS3_FIFO_STATUS1 = 0x3A
DS3_FIFO_DATA_OUT_L = 0x3E
DS3_FIFO_MODE_BYPASS = 0x00
DS3_FIFO_MODE_CONTINUOUS = 0x06
DS3_STATUS2_OVERRUN = 0x40
DS3_PATTERN_WORDS = 6  # Gx Gy Gz Ax Ay Az


class _Lsm6dsBase(FifoImuDriver):
    who_am_i_register = WHO_AM_I

    def _scales(self) -> tuple[int, int, float, float]:
        """(CTRL1_XL range bits, CTRL2_G range bits, g per LSB, dps per LSB) for the config."""
        fs_xl = exact_code(self.config.accel_range_g, ACCEL_RANGES, "accel_range_g")
        if self.config.gyro_range_dps == 125:
            fs_g_bits = 0x02  # FS_125
        else:
            fs_g_bits = exact_code(self.config.gyro_range_dps, GYRO_RANGES, "gyro_range_dps (or 125)") << 2
        g_per_lsb = ACCEL_MG_PER_LSB[self.config.accel_range_g] / 1000.0
        dps_per_lsb = GYRO_MDPS_PER_LSB[self.config.gyro_range_dps] / 1000.0
        return fs_xl << 2, fs_g_bits, g_per_lsb, dps_per_lsb

    def _reset_chip(self, dev: I2cDevice) -> None:
        dev.write_u8(CTRL3_C, CTRL3_SW_RESET)
        self.clock.sleep(0.01)  # the reset takes ~50 us; 10 ms is generous
        # BDU: an output's two bytes always belong to the same sample; IF_INC: bursts auto-increment
        dev.write_u8(CTRL3_C, CTRL3_BDU | CTRL3_IF_INC)

    def _power_down(self, dev: I2cDevice) -> None:
        dev.write_u8(CTRL1_XL, 0)
        dev.write_u8(CTRL2_G, 0)


class Lsm6dsoxDriver(_Lsm6dsBase):
    """LSM6DSO/LSM6DSOX (0x6C) and ISM330DHCX/LSM6DSR (0x6B): the tagged FIFO, in continuous mode."""

    known_ids = {0x6C: "lsm6dsox", 0x6B: "ism330dhcx"}

    def _configure(self, dev: I2cDevice) -> float:
        odr, rate = pick_code(self.config.rate_hz, ODR_CODES, "rate_hz")
        fs_xl, fs_g, self._g_per_lsb, self._dps_per_lsb = self._scales()
        self._reset_chip(dev)
        dev.write_u8(CTRL9_XL, 0xE2)  # reset value 0xE0 plus I3C_DISABLE, as ST recommends on I2C
        dev.write_u8(CTRL1_XL, (odr << 4) | fs_xl)
        dev.write_u8(CTRL2_G, (odr << 4) | fs_g)
        dev.write_u8(OX_FIFO_CTRL1, 0)  # no watermark: we poll
        dev.write_u8(OX_FIFO_CTRL2, 0)
        dev.write_u8(OX_FIFO_CTRL3, (odr << 4) | odr)  # batch gyro and accel at the ODR
        self._reset_fifo(dev)
        return rate

    def _reset_fifo(self, dev: I2cDevice) -> None:
        dev.write_u8(OX_FIFO_CTRL4, OX_FIFO_MODE_BYPASS)
        dev.write_u8(OX_FIFO_CTRL4, OX_FIFO_MODE_CONTINUOUS)
        self._pending: dict[int, np.ndarray] = {}
        self._pending_slot = -1

    def _drain(self, dev: I2cDevice) -> np.ndarray | None:
        status = dev.read_block(OX_FIFO_STATUS1, 2)
        if status[1] & OX_STATUS2_OVERRUN:
            return None
        words = status[0] | ((status[1] & 0x03) << 8)
        chunk = (MAX_TRANSFER_BYTES // (2 * OX_WORD)) * 2  # whole gyro+accel pairs per transfer
        data = bytearray()
        while words > 0:
            take = min(words, chunk)
            data += dev.read_block(OX_FIFO_DATA_OUT_TAG, take * OX_WORD)
            words -= take
        return self._decode(bytes(data))

    def _decode(self, data: bytes) -> np.ndarray:
        """Pair gyro and accel words of the same time slot into samples.

        A pair split across two reads is kept until its other half arrives; a word whose slot
        never completes (a sensor skipped a slot) is dropped, not mis-paired.
        """
        raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, OX_WORD)
        tags = raw[:, 0] >> 3
        slots = (raw[:, 0] >> 1) & 0x03
        values = raw[:, 1:].copy().view("<i2").reshape(-1, 3)
        if not self._pending and len(raw) % 2 == 0:
            # The usual case, vectorised: whole (gyro, accel) pairs of one slot each, in either order.
            first, second = tags[0::2], tags[1::2]
            same_slot = np.array_equal(slots[0::2], slots[1::2])
            for g, a in ((0, 1), (1, 0)):
                if same_slot and np.all((first, second)[g] == OX_TAG_GYRO) and np.all((first, second)[a] == OX_TAG_ACCEL):
                    gyro = values[g::2] * self._dps_per_lsb
                    accel = values[a::2] * self._g_per_lsb
                    return np.column_stack([accel, gyro])
        out: list[np.ndarray] = []
        for tag, slot, vec in zip(tags.tolist(), slots.tolist(), values, strict=True):
            if tag not in (OX_TAG_GYRO, OX_TAG_ACCEL):
                continue  # temperature, timestamp or config-change words: not batched by us
            if slot != self._pending_slot:
                self._pending = {}
                self._pending_slot = slot
            self._pending[tag] = vec
            if len(self._pending) == 2:
                accel = self._pending[OX_TAG_ACCEL] * self._g_per_lsb
                gyro = self._pending[OX_TAG_GYRO] * self._dps_per_lsb
                out.append(np.concatenate([accel, gyro]))
                self._pending = {}
                self._pending_slot = -1
        return np.array(out, dtype=float).reshape(-1, 6)


class Lsm6ds3Driver(_Lsm6dsBase):
    """LSM6DS3 (0x69) and LSM6DS3TR-C/LSM6DSL (0x6A): the untagged FIFO, in continuous mode."""

    known_ids = {0x69: "lsm6ds3", 0x6A: "lsm6ds3tr-c"}

    def _configure(self, dev: I2cDevice) -> float:
        odr, rate = pick_code(self.config.rate_hz, ODR_CODES, "rate_hz")
        fs_xl, fs_g, self._g_per_lsb, self._dps_per_lsb = self._scales()
        self._reset_chip(dev)
        dev.write_u8(CTRL1_XL, (odr << 4) | fs_xl)
        dev.write_u8(CTRL2_G, (odr << 4) | fs_g)
        dev.write_u8(DS3_FIFO_CTRL1, 0)
        dev.write_u8(DS3_FIFO_CTRL2, 0)
        dev.write_u8(DS3_FIFO_CTRL3, (0b001 << 3) | 0b001)  # gyro and accel, no decimation
        self._odr_code = odr
        self._reset_fifo(dev)
        return rate

    def _reset_fifo(self, dev: I2cDevice) -> None:
        dev.write_u8(DS3_FIFO_CTRL5, DS3_FIFO_MODE_BYPASS)
        dev.write_u8(DS3_FIFO_CTRL5, (self._odr_code << 3) | DS3_FIFO_MODE_CONTINUOUS)

    def _drain(self, dev: I2cDevice) -> np.ndarray | None:
        status = dev.read_block(DS3_FIFO_STATUS1, 4)
        if status[1] & DS3_STATUS2_OVERRUN:
            return None
        words = status[0] | ((status[1] & 0x0F) << 8)
        pattern = status[2] | ((status[3] & 0x03) << 8)
        if pattern % DS3_PATTERN_WORDS:
            # Not at the start of a Gx..Az set (a read was cut short): drop to the next one.
            skip = min(words, DS3_PATTERN_WORDS - pattern % DS3_PATTERN_WORDS)
            if skip:
                dev.read_block(DS3_FIFO_DATA_OUT_L, 2 * skip)
            words -= skip
        sets = words // DS3_PATTERN_WORDS
        per_transfer = MAX_TRANSFER_BYTES // (2 * DS3_PATTERN_WORDS)
        data = bytearray()
        while sets > 0:
            take = min(sets, per_transfer)
            data += dev.read_block(DS3_FIFO_DATA_OUT_L, take * 2 * DS3_PATTERN_WORDS)
            sets -= take
        raw = np.frombuffer(bytes(data), dtype="<i2").reshape(-1, DS3_PATTERN_WORDS).astype(float)
        return np.column_stack([raw[:, 3:] * self._g_per_lsb, raw[:, :3] * self._dps_per_lsb])
