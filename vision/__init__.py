"""Image processing for the dreidel table: background, tracking, spin phase, resting pose and letters."""
