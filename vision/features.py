"""The letter network's input: from the up face in a picture to a small two-channel image.

Steps, each chosen to remove one nuisance and leave the rest to the network:

1. ``face_patch`` warps the up face's quadrilateral (grown by ``MARGIN`` on every side, so a loose
   or shifted outline still holds the whole letter) to a ``PATCH`` x ``PATCH`` square with the
   handle at the top. The perspective warp undoes the foreshortening of a tilted face and the
   dreidel's rotation; a large face is smoothed first so that the warp does not alias.
2. ``face_channels`` measures the patch against the face's own colour (the median of a ring just
   inside the face's edge) in CIE Lab: channel 0 is the colour distance (no sign, so any colour pair
   and either polarity look alike), channel 1 the signed lightness difference (what an engraved or
   painted stroke does to the light). Both are divided by the face's contrast, which removes
   exposure and the letter's own colour.

Everything else (wood grain, glare, a neighbour face's sliver, felt seen past the outline, a crop
that is a little off) is the network's job: it is trained on faces cut by jittered outlines.
Quarter turns are exact on the patch (``np.rot90``), which the recognizer uses for test-time rotation.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: side of the network's input patch (px)
PATCH = 32
#: the face quad is grown by this fraction on every side before warping
MARGIN = 0.12
#: input channels: colour distance, signed lightness difference
CHANNELS = 2
#: contrast (Lab units) below which a face is divided by this floor instead (noise is not a letter)
MIN_SCALE = 8.0
#: the normalized channels are clipped to this range (a glint is not a stronger stroke)
CLIP = 1.5


@dataclass(frozen=True)
class FaceInput:
    """The network's input for one face (``CHANNELS`` x ``PATCH`` x ``PATCH`` float32) and its contrast."""

    tensor: np.ndarray
    contrast: float  # 95th-percentile colour distance from the face colour inside the face (Lab units)


def face_patch(image_bgr: np.ndarray, quad: np.ndarray, size: int = PATCH, margin: float = MARGIN) -> np.ndarray:
    """The face ``quad`` (handle-side corners first, see ``RestPose.face_quad``) as a square BGR patch."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    c = q.mean(axis=0)
    grown = c + (q - c) * (1 + 2 * margin)
    # Reading only a window around the quad keeps this cheap on a full-resolution frame.
    x0, y0 = np.floor(grown.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(grown.max(axis=0)).astype(int) + 3
    h, w = image_bgr.shape[:2]
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(w, x1), min(h, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return np.zeros((size, size, 3), np.uint8)
    window = image_bgr[y0:y1, x0:x1]
    src = (grown - [x0, y0]).astype(np.float32)
    dst = np.float32([[0, 0], [size, 0], [size, size], [0, size]])
    m = cv2.getPerspectiveTransform(src, dst)
    side = float(np.linalg.norm(grown[1] - grown[0]) + np.linalg.norm(grown[2] - grown[1])) / 2
    if side > 1.5 * size:
        window = cv2.GaussianBlur(window, (0, 0), 0.4 * side / size)
    return cv2.warpPerspective(window, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _lab(patch_bgr: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(patch_bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    lab[..., 0] *= 100.0 / 255.0
    return lab


def face_channels(patch_bgr: np.ndarray, margin: float = MARGIN) -> FaceInput:
    """The two normalized channels of a face patch cut with ``margin`` (see the module docstring)."""
    lab = _lab(patch_bgr)
    n = lab.shape[0]
    m = int(round(n * margin / (1 + 2 * margin)))  # where the face's edge is in the patch
    ring_w = max(2, int(round(n * 0.12)))
    ring = np.zeros((n, n), bool)
    ring[m:n - m, m:n - m] = True
    ring[m + ring_w:n - m - ring_w, m + ring_w:n - m - ring_w] = False
    face = np.median(lab[ring], axis=0)
    d = lab - face
    d[..., 0] *= 0.7  # shading changes lightness across a face more than it changes hue
    dist = np.sqrt((d * d).sum(axis=2))
    contrast = float(np.percentile(dist[m:n - m, m:n - m], 95))
    scale = max(contrast, MIN_SCALE)
    out = np.empty((CHANNELS, n, n), np.float32)
    out[0] = np.clip(dist / scale, 0.0, CLIP)
    out[1] = np.clip((lab[..., 0] - face[0]) / scale, -CLIP, CLIP)
    return FaceInput(out, contrast)


def face_input(image_bgr: np.ndarray, quad: np.ndarray, size: int = PATCH) -> FaceInput:
    """The whole chain: face quad in a picture -> the network's input (``size`` px square: the letter network's
    ``PATCH``, or the Nun/Gimel second look's larger patch)."""
    return face_channels(face_patch(image_bgr, quad, size=size))


def rotations(tensor: np.ndarray) -> np.ndarray:
    """The input turned by 0, 1, 2, 3 quarter turns counter-clockwise (4 x C x S x S)."""
    return np.stack([np.rot90(tensor, k, axes=(1, 2)) for k in range(4)]).astype(np.float32)
