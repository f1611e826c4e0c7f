"""altsim: a second, independent renderer of dreidel-table recordings.

The vision code is developed against the twin (``hardware/sim``); this package plays the part of
the unseen checker's renderer. It reuses only the twin's spin physics and IMU signal model, and
draws everything else its own way (a ray-traced dreidel of other proportions, other fonts, capsule
arms, a lamp with soft shadows, lens distortion, noise, JPEG). See ``python -m bench.altsim --help``
and ``bench/eval_unseen.py``.
"""
