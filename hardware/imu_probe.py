"""Find the IMU: ask every address an IMU of ours can have for its WHO_AM_I, and build its driver.

ST's LSM6DS chips live at 0x6A/0x6B (WHO_AM_I register 0x0F); InvenSense's MPU family at
0x68/0x69 (WHO_AM_I register 0x75). The answer, not the address, picks the driver.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.clock import Clock
from hardware.i2c import BusFactory, I2cBus, I2cError, RetryPolicy
from hardware.imu import ImuError
from hardware.imu_driver import FifoImuDriver, ImuConfig
from hardware.imu_lsm6ds import Lsm6ds3Driver, Lsm6dsoxDriver
from hardware.imu_mpu6050 import Mpu6050Driver

#: (address, WHO_AM_I register) pairs to ask, in order of preference
PROBES: tuple[tuple[int, int], ...] = ((0x6A, 0x0F), (0x6B, 0x0F), (0x68, 0x75), (0x69, 0x75))

#: WHO_AM_I value -> (chip name, driver class) for the chips Sevivon drives
SUPPORTED: dict[tuple[int, int], tuple[str, type[FifoImuDriver]]] = {
    (0x0F, 0x6C): ("lsm6dsox", Lsm6dsoxDriver),
    (0x0F, 0x6B): ("ism330dhcx", Lsm6dsoxDriver),
    (0x0F, 0x69): ("lsm6ds3", Lsm6ds3Driver),
    (0x0F, 0x6A): ("lsm6ds3tr-c", Lsm6ds3Driver),
    (0x75, 0x68): ("mpu6050", Mpu6050Driver),
}

#: chips that answer but that Sevivon has no driver for, so the message can name them
KNOWN_UNSUPPORTED: dict[tuple[int, int], str] = {
    (0x75, 0x70): "MPU-6500",
    (0x75, 0x71): "MPU-9250",
    (0x75, 0x73): "MPU-9255",
    (0x75, 0x98): "ICM-20689",
    (0x75, 0x12): "ICM-20602",
    (0x75, 0x19): "MPU-6886",
    (0x75, 0x47): "ICM-42688",
}


@dataclass(frozen=True)
class ProbeResult:
    """What answered at one address."""

    address: int
    who_am_i: int
    #: the chip's name when Sevivon has a driver for it, else None
    chip: str | None
    description: str

    @property
    def supported(self) -> bool:
        """Sevivon has a driver for it."""
        return self.chip is not None


def probe(bus: I2cBus, policy: RetryPolicy | None = None) -> list[ProbeResult]:
    """Ask every IMU address on the (open) bus; list what answered. Silence is not an error."""
    found: list[ProbeResult] = []
    policy = policy or RetryPolicy(attempts=2)
    for address, register in PROBES:
        dev = bus.device(address, policy)
        try:
            value = dev.read_u8(register)
        except I2cError:
            continue
        key = (register, value)
        if key in SUPPORTED:
            name = SUPPORTED[key][0]
            found.append(ProbeResult(address, value, name, f"{name} (WHO_AM_I {value:#04x})"))
        else:
            other = KNOWN_UNSUPPORTED.get(key, "an unknown device")
            found.append(
                ProbeResult(address, value, None, f"{other} (WHO_AM_I {value:#04x}): no Sevivon driver for it")
            )
    return found


def open_imu(
    bus_number: int = 1,
    clock: Clock | None = None,
    config: ImuConfig | None = None,
    bus_factory: BusFactory | None = None,
    address: int | None = None,
) -> FifoImuDriver:
    """Probe the bus and return the driver for the first supported IMU, not yet opened.

    Raises :class:`ImuError` saying what was (or was not) found and what to check.
    """
    bus = I2cBus(bus_number, bus_factory)
    try:
        bus.open()
        results = probe(bus)
    except I2cError as exc:
        bus.close()
        raise ImuError(str(exc.strerror or exc)) from exc
    candidates = [r for r in results if r.supported and (address is None or r.address == address)]
    if not candidates:
        bus.close()
        seen = "; ".join(f"{r.address:#04x}: {r.description}" for r in results) or "nothing answered"
        where = f"at {address:#04x}" if address is not None else "at 0x6A, 0x6B, 0x68 or 0x69"
        raise ImuError(
            f"no supported IMU {where} on I2C bus {bus_number} ({seen}). Check the wiring "
            "(SDA GPIO2, SCL GPIO3, 3V3, GND) and that I2C is enabled"
        )
    best = candidates[0]
    _, driver_class = SUPPORTED[(next(reg for a, reg in PROBES if a == best.address), best.who_am_i)]
    bus.close()  # the driver opens it again itself, so it owns it
    return driver_class(I2cBus(bus_number, bus_factory), best.address, clock=clock, config=config)
