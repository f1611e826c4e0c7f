"""Register-level emulations of the table's hardware, so every driver is tested with no device.

- :mod:`hardware.emulation.bus`: :class:`FakeSMBus`, which behaves like ``smbus2.SMBus`` (including
  ``i2c_rdwr`` with ``i2c_msg``) and routes transfers to emulated chips, with injectable I/O errors.
- :mod:`hardware.emulation.lsm6dsox`, :mod:`hardware.emulation.lsm6ds3`,
  :mod:`hardware.emulation.mpu6050`: the IMU chips, written from their datasheets.
- :mod:`hardware.emulation.motion`: motion signals the emulated chips sense.
- :mod:`hardware.emulation.picamera2`: a fake ``Picamera2`` with the methods the camera source uses.
- :mod:`hardware.emulation.gpio`: gpiozero mock pins that timestamp with an injected clock.
"""
