"""The digital twin: a simulated dreidel in a simulated tray, with camera and IMU (docs/sim/README.md).

- ``world.SimWorld``: the live twin (``launch``, ``frame_at``, ``imu_between``, ``truths``, ``busy``);
  ``world.AutoPlayer``: a simulated player who spins when asked.
- ``camera.SimCamera`` / ``imu_source.SimImu``: the twin as a ``CameraSource`` / ``ImuSource`` on an injected clock.
- ``recorder.record_session`` / ``recorder.render_still``: recordings (``sevivon sim record``) and labelled stills.
- ``physics`` (the heavy top, ``SpinKind``), ``render`` (the overhead camera), ``imu`` (the tray's vibration),
  ``dreidel`` (styles and fonts), ``hand`` (hands and arms), ``gallery`` (pictures for people), ``cli``.

Nothing is imported here, so ``import hardware.sim.camera`` stays as light as it can be.
"""
