"""Model files shipped with the package.

``letters.onnx`` (the letter network) and ``letters.json`` (its calibration), built by
``scripts/build_letter_model.py``.
"""
