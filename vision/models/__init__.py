"""Model files shipped with the package: ``letters.npz``, built by ``scripts/build_letter_model.py``."""
