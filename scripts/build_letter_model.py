#!/usr/bin/env python3
"""Build the generic letter model ``vision/models/letters.onnx`` (+ ``letters.json``) from data this repo makes.

1. Render overhead stills of random dreidels with ``vision.letter_synth`` in every installed Hebrew
   font (``fc-list :lang=he``) but the held-out families (with ``--extra-fonts``, also the print-like decorative
   faces of culmus-fancy and fonts-ldco; with ``--styles worn``, three dreidels in ten with rubbed-off paint), and
   with the digital twin's ``render_still`` (seeds 6,000,000 + 100,000 x ``--seed``, below the face-size fit's),
   for variety of renderers.
2. Cut the up face from each still several ways, as ``vision.features`` does at run time: by the
   TRUE face outline, by that outline jittered in position, scale, rotation and perspective, and by
   the outline the real pose finder (``vision.pose``) returns, so that the network does not care
   about small crop errors. Cuts that miss the face (onto the tip, the handle or the felt) are the
   "not a letter" class.
3. Train a small CNN with PyTorch on the faces in all four quarter turns (20 letter x orientation
   classes + "not a letter"), with polarity, contrast and noise augmentation, then export it to ONNX
   and check that OpenCV's ``cv2.dnn`` (the run-time engine) gives the same outputs.
4. Calibrate on stills in font families held out of training, read exactly as at run time: the
   temperature, the "unreadable" threshold (the lowest at which the letters read stay >= 99.8%
   right and those just above it >= 99%), and the weight and temperature of enrollment (3 taught stills per letter of one dreidel).
5. Fit the Nun/Gimel thresholds by face size (``letters.json`` ``confusable_bins``) on held-out-font dreidels
   whose face is 12-34 px (6000 stills: twin stills stored as MJPG stores a frame, and letter_synth stills, three
   in ten worn) and, for the last, open-ended bin, letter_synth dreidels whose face is 34-64 px, read as at run
   time with the steadiness check: one threshold for 14-34 px, the lowest at which at most 0.5% of the Nun/Gimel
   reads above it are wrong at 95% confidence (the rate rule, since session 16); faces under 14 px never; the large
   faces just above their most confident wrong read (``fit_confusable_bins``). ``--small-face-rule margin`` fits
   every bin the old way, just above its surest wrong read, which 1000 stills cannot show to be safe at 0.5%.
6. Fit when the taught Nun and Gimel faces of a dreidel may vouch for a small Nun or Gimel that its size refuses
   (``letters.json`` ``taught_faces``): 960 held-out-font dreidels (twin in one scene each, letter_synth; 320
   before session 18), taught 3 stills of each letter and asked 3 Nun, 3 Gimel and a Hey, read as at run time; the
   margin by which the query must be more like the taught faces of its letter than of the other lies above every
   wrong read's, from the smallest face size where that margin is at most 0.1 (``fit_taught_faces``; about 7
   minutes on two cores). The margin and size are fitted on every read, so they are safe on their own; at run time
   the query must also be ``TAUGHT_MIN_LIKENESS`` like a taught face of the letter read, a fixed guard the fit does
   not lean on. On the same reads, the taught faces may also vouch for a read *below* the letter's own threshold
   (at least 0.8, on a face at least 0.9 like a taught face of its letter: ``taught_faces.below_threshold``,
   ``fit_taught_below``, session 18), a worn dreidel's Nun.

Needs the optional ``model`` extra (``.venv/bin/pip install -e '.[model]'``); the table does not.
Usage: .venv/bin/python scripts/build_letter_model.py --recipe   (the committed model, every stage)
       .venv/bin/python scripts/build_letter_model.py [--synth 4000] [--twin 600] [--epochs 14] [--cache DIR] [--init ONNX]
       .venv/bin/python scripts/build_letter_model.py --recalibrate   (refit letters.json after a pose change)
       .venv/bin/python scripts/build_letter_model.py --refit-small-faces   (only the thresholds by face size)
       .venv/bin/python scripts/build_letter_model.py --refit-taught-faces  (only the taught-face rule)
Deterministic for a given seed, font set and library versions (single-threaded data, seeded torch).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from dataclasses import replace
from multiprocessing import Pool, get_context
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules.letters import Letter  # noqa: E402
from vision.features import CHANNELS, PATCH, face_input  # noqa: E402
from vision.letter_synth import (  # noqa: E402
    HELD_OUT_FAMILIES,
    WORN_RANGE,
    WORN_SHARE,
    DreidelStyle,
    extra_training_fonts,
    font_family,
    hebrew_fonts,
    render_still,
)
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import (  # noqa: E402
    CLASSES,
    DEFAULT_MODEL,
    LETTERS,
    MIN_CONTRAST,
    NONE_CLASS,
    ORIENTATIONS,
    Calibration,
    ConfusableBin,
    LetterModel,
    TaughtBelowRule,
    TaughtFaceRule,
    enrolled_similarity,
    letter_threshold_floor,
    orientation_prior,
    posterior,
)

#: the pair the network confuses: a Gimel whose foot is lost looks like a Nun
PAIR = (Letter.NUN, Letter.GIMEL)
#: the twin's still seeds used for training (far below every benchmark's and held-out range)
TWIN_SEED0 = 6_000_000
EMBEDDING = 128

#: (input tensor float16, class, pose confidence, group id, hedge: the share of the training target moved to the
#: other letter of the Nun/Gimel pair, 0 for a face whose letter can be told, up to 0.5 for one that cannot)
Sample = tuple[np.ndarray, int, float, int, float]


def orientation_label(tip: tuple[float, float] | np.ndarray, handle: tuple[float, float] | np.ndarray,
                      quad: np.ndarray) -> int:
    """Where the letter's top truly points in the patch cut by ``quad`` (quarter turns clockwise)."""
    h = np.subtract(handle, tip)
    up = (quad[0] + quad[1]) / 2 - (quad[2] + quad[3]) / 2
    right = quad[1] - quad[0]
    a_up, a_right = float(h @ up) / (np.linalg.norm(up) + 1e-9), float(h @ right) / (np.linalg.norm(right) + 1e-9)
    if abs(a_up) >= abs(a_right):
        return 0 if a_up > 0 else 2
    return 1 if a_right > 0 else 3


def clockwise(quad: np.ndarray) -> np.ndarray:
    """The quad's corners in the on-screen clockwise order the pose uses (a mirrored cut would mirror the letter)."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    area = sum(q[i, 0] * q[(i + 1) % 4, 1] - q[(i + 1) % 4, 0] * q[i, 1] for i in range(4))
    return q if area > 0 else q[::-1].copy()


def jitter(quad: np.ndarray, rng: np.random.Generator, amount: float = 1.0) -> np.ndarray:
    """The quad moved, scaled, turned and skewed a little, as a pose finder's outline may be."""
    q = np.asarray(quad, np.float64)
    c = q.mean(axis=0)
    u, v = (q[1] - q[0] + q[2] - q[3]) / 2, (q[3] - q[0] + q[2] - q[1]) / 2
    side = (np.linalg.norm(u) + np.linalg.norm(v)) / 2
    a = math.radians(rng.normal(0, 6 * amount))
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    su, sv = rng.uniform(1 - 0.15 * amount, 1 + 0.2 * amount, 2)
    un, vn = u / (np.linalg.norm(u) + 1e-9), v / (np.linalg.norm(v) + 1e-9)
    out = []
    for p in q:
        d = p - c
        d = un * (d @ un) * su + vn * (d @ vn) * sv
        out.append(c + rot @ d)
    shift = (un * rng.normal(0, 0.07 * amount) + vn * rng.normal(0, 0.07 * amount)) * side
    corners = rng.normal(0, 0.035 * amount * side, (4, 2))
    return np.array(out) + shift + corners


def miss(quad: np.ndarray, tip: np.ndarray, handle: np.ndarray, rng: np.random.Generator,
         shape: tuple[int, int]) -> np.ndarray:
    """A face-sized outline that misses the face: on the tip, on the handle, or on the felt."""
    q = np.asarray(quad, np.float64)
    c = q.mean(axis=0)
    r = rng.random()
    if r < 0.6:
        end = np.asarray(tip if r < 0.3 else handle, np.float64)
        axis = (end - c) / (np.linalg.norm(end - c) + 1e-9)
        extent = float(np.ptp(q @ axis))  # the face's length along the axis
        # far enough that the grown cut keeps clear of the face (a cut showing half a letter is no "miss")
        target = c + axis * max(1.25 * extent, float(np.linalg.norm(end - c)) * rng.uniform(0.9, 1.2))
    else:
        h, w = shape
        target = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h])
        if np.linalg.norm(target - c) < 2.0 * np.linalg.norm(q[1] - q[0]):
            return miss(quad, tip, handle, rng, shape)
    return jitter(q + (target - c), rng)


def _near(quad: np.ndarray, truth: np.ndarray) -> bool:
    """Whether ``quad`` is roughly the face ``truth``: centres within a quarter side, sides within 0.65-1.5x."""
    def sides(q: np.ndarray) -> np.ndarray:
        return np.sort([np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]),
                        np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])]) / 2

    a, b = sides(np.asarray(quad, np.float64)), sides(np.asarray(truth, np.float64))
    ratio = a / (b + 1e-9)
    close = np.linalg.norm(np.mean(quad, axis=0) - np.mean(truth, axis=0)) < 0.25 * b.mean()
    return bool(close and (ratio > 0.65).all() and (ratio < 1.5).all())


def _cut(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, float]:
    face = face_input(image, quad)
    return face.tensor.astype(np.float16), face.contrast


#: ``--hedge`` (session 10): how far apart (RMS over the network's input, in units of the face's contrast) the cut
#: of a Nun or Gimel and the same cut of the same scene with the other letter painted on (same blur, noise and
#: JPEG) must be for the face to be trained as its letter alone. At or below the first figure the two are one
#: picture to the network (a Gimel whose foot is lost, a Nun whose base reads as a foot) and the target is split
#: evenly between them; in between, the share moves linearly. Chosen on 120 held-out-font Nun/Gimel stills drawn
#: as ``--sizes confusable`` draws them: the committed network gives the other letter 0.50 on average below 0.05,
#: 0.17-0.20 at 0.05-0.11 and 0.06-0.08 above.
HEDGE_DIFF = (0.05, 0.09)


def hedge_share(tensor: np.ndarray, partner: np.ndarray) -> float:
    """The share of a Nun or Gimel face's training target that goes to the other letter (0-0.5), from how
    different the face is from the same cut with the other letter painted on (``HEDGE_DIFF``)."""
    d = float(np.sqrt(np.mean((tensor.astype(np.float32) - partner.astype(np.float32)) ** 2)))
    lo, hi = HEDGE_DIFF
    return 0.5 * float(np.clip((hi - d) / (hi - lo), 0.0, 1.0))


def cuts(image: np.ndarray, truth_quad: np.ndarray, tip: np.ndarray, handle: np.ndarray, letter_idx: int,
         rng: np.random.Generator, group: int, jitters: int, use_pose: bool,
         partner_image: np.ndarray | None = None) -> list[Sample]:
    """Training samples from one still (see the module docstring, step 2). ``partner_image``: the same still
    with the other letter of the Nun/Gimel pair on the face (``--hedge``); every cut of it sets that cut's
    hedge (``hedge_share``)."""
    out: list[Sample] = []
    quads = [truth_quad] + [jitter(truth_quad, rng) for _ in range(jitters)]
    conf = 1.0
    if use_pose:
        pose = find_resting_dreidel(image)
        # the pose's own cut teaches the pose's habits, but only when it cut this face, roughly
        if pose is not None and pose.face_quad is not None and _near(pose.face_quad, truth_quad):
            quads.append(pose.face_quad)
            conf = float(pose.confidence)
    for q in quads:
        t, contrast = _cut(image, q)
        if contrast >= MIN_CONTRAST:
            hedge = 0.0 if partner_image is None else hedge_share(t, face_input(partner_image, q).tensor)
            out.append((t, letter_idx * ORIENTATIONS + orientation_label(tip, handle, q), conf, group, hedge))
    if rng.random() < 0.5:
        t, _ = _cut(image, miss(truth_quad, tip, handle, rng, image.shape[:2]))
        out.append((t, NONE_CLASS, 1.0, group, 0.0))
    return out


#: letter_synth's usual picture sizes (its dreidels 40-150 px long in them)
SYNTH_SIZES = ((320, 240), (360, 280), (480, 360))


def synth_job(job: tuple[int, int, list[str], int, int, bool, str, str, bool]) -> list[Sample]:
    """``count`` letter_synth stills (a new dreidel every ``per_style`` stills, or every still when 0);
    ``styles`` "plain" (``DreidelStyle.random``), "varied": also engraved letters, wood grain and other stroke
    weights (``DreidelStyle.random_varied``), "finishes": half the dreidels varied, half with the finishes of
    ``DreidelStyle.random_finished`` (metal with its sheen, faint paint, outlined and brushed letters, harder
    scenes), so that a stage on them does not forget the others;
    ``small``: three stills in four show a dreidel whose up face is 12-34 px in a 640 x 480 picture (the
    size of a twin recording's resting dreidel, where Gimel's foot is a pixel or two);
    ``sizes`` "confusable" (session 9): Nun and Gimel on six stills in ten, and the sizes and looks where the
    network confuses them: 12-34 px faces in a 640 x 480 picture on half the stills, 34-64 px faces on a fifth,
    of which half carry a small glyph (0.35-0.55 of the face: the foot is as small as on a small face), the
    rest letter_synth's usual sizes; the other letters stay in the mix so that they do not regress;
    ``hedge`` (session 10): each training Nun and Gimel is drawn a second time from the same generator state
    with the other letter on the face, and its cuts are trained with a target split between the two as far as
    the two pictures are alike (``hedge_share``). The main generator's draws are unchanged, so the same stills
    come out as without it."""
    seed, count, fonts, per_style, jitters, training, styles, sizes, hedge = job
    small = sizes == "small"
    cv2.setNumThreads(1)  # the pool already uses every core
    rng = np.random.default_rng(seed)
    out: list[Sample] = []

    def new_style(rng: np.random.Generator, fonts: list[str]) -> DreidelStyle:
        if styles == "finishes":
            make = DreidelStyle.random_finished if rng.random() < 0.5 else DreidelStyle.random_varied
            return make(rng, fonts)
        if styles == "worn":
            return DreidelStyle.random_worn(rng, fonts)
        return (DreidelStyle.random_varied if styles == "varied" else DreidelStyle.random)(rng, fonts)

    style = new_style(rng, fonts)
    for i in range(count):
        if per_style == 0 or i % per_style == 0:
            style = new_style(rng, fonts)
        letter_idx = (i // max(1, per_style // 5)) % 5 if per_style else int(rng.integers(5))
        size = SYNTH_SIZES[int(rng.integers(len(SYNTH_SIZES)))]
        length = None
        drawn = style
        if small and rng.random() < 0.75:
            size = (640, 480)
            length = float(rng.uniform(*SMALL_FACE_PX) * (style.body_len + style.tip_len + style.handle_len))
        elif sizes == "confusable":
            letter_idx, size, length, drawn = confusable_draw(style, letter_idx, rng)
        letter = LETTERS[letter_idx]
        partner_image = None
        if training and hedge and letter in PAIR:
            twin_rng = copy.deepcopy(rng)  # the same scene, blur, noise and JPEG, the other letter on the face
            partner = PAIR[1] if letter is PAIR[0] else PAIR[0]
            partner_image = render_still(drawn, letter, twin_rng, size=size, length_px=length, glyph=partner).image
        still = render_still(drawn, letter, rng, size=size, length_px=length)
        group = seed * 1000 + (i // per_style if per_style else i)
        tip, handle = np.array(still.tip), np.array(still.handle)
        if training:
            out += cuts(still.image, clockwise(still.face_quad), tip, handle, letter_idx, rng, group, jitters, True,
                        partner_image)
            continue
        # calibration: only what the run time sees (the pose's cut)
        pose = find_resting_dreidel(still.image)
        if pose is None or pose.face_quad is None:
            continue
        t, contrast = _cut(still.image, pose.face_quad)
        if contrast >= MIN_CONTRAST:
            out.append((t, letter_idx * ORIENTATIONS + orientation_label(tip, handle, pose.face_quad),
                        float(pose.confidence), group, 0.0))
    return out


#: ``--sizes confusable``: the share of stills that show a Nun or a Gimel, one with a 12-34 px face, one with a
#: 34-64 px face, and, of those, one whose glyph is small for its face
CONFUSABLE_SHARE = 0.6
CONFUSABLE_SMALL_FACE = 0.5
CONFUSABLE_LARGE_FACE = 0.2
CONFUSABLE_SMALL_GLYPH = 0.5


def confusable_draw(style: DreidelStyle, letter_idx: int, rng: np.random.Generator
                    ) -> tuple[int, tuple[int, int], float | None, DreidelStyle]:
    """A ``--sizes confusable`` still's letter, picture size, dreidel length (px) and style (see ``synth_job``)."""
    if rng.random() < CONFUSABLE_SHARE:
        letter_idx = LETTERS.index(Letter.NUN if rng.random() < 0.5 else Letter.GIMEL)
    along = style.body_len + style.tip_len + style.handle_len
    r = rng.random()
    if r < CONFUSABLE_SMALL_FACE:
        return letter_idx, (640, 480), float(rng.uniform(*SMALL_FACE_PX) * along), style
    if r < CONFUSABLE_SMALL_FACE + CONFUSABLE_LARGE_FACE:
        drawn = style
        if rng.random() < CONFUSABLE_SMALL_GLYPH:  # a thin print on a big face: the foot is a pixel or two again
            drawn = replace(style, glyph_height=float(rng.uniform(0.35, 0.55)))
        return letter_idx, (640, 480), float(rng.uniform(*LARGE_FACE_PX) * along), drawn
    return letter_idx, SYNTH_SIZES[int(rng.integers(len(SYNTH_SIZES)))], None, style


def twin_job(job: tuple[int, int, int, list[str] | None]) -> list[Sample]:
    """``count`` stills of the digital twin (hardware.sim), seeds from ``seed``. With ``fonts``, each dreidel
    is lettered in one of them (the training fonts: the held-out families stay unseen) and the still is stored
    as the table's MJPG stores a frame (JPEG 80-95)."""
    from dataclasses import replace as dc_replace

    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still as twin_render

    seed0, count, jitters, fonts = job
    cv2.setNumThreads(1)
    out: list[Sample] = []
    for i in range(count):
        seed = seed0 + i
        rng = np.random.default_rng(seed)
        style = resolve_style(None, seed)
        if fonts:
            style = dc_replace(style, font_path=fonts[int(rng.integers(len(fonts)))])
        letter = style.letters[int(rng.integers(len(style.letters)))]
        image, truth = twin_render(style, letter, seed)
        if fonts:
            ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])
            image = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image
        quad = clockwise(np.array(truth["face_quad_px"], np.float64))
        a = math.radians(float(truth["tip_angle_deg"]))  # mathematical angle (y up)
        centre = np.array(truth["rest_px"], np.float64)
        tip, handle = centre + [math.cos(a), -math.sin(a)], centre - [math.cos(a), -math.sin(a)]
        out += cuts(image, quad, tip, handle, LETTERS.index(letter), rng, -seed, jitters, True)
    return out


def generate(args: argparse.Namespace, train_fonts: list[str], held: list[str], training: bool = True
             ) -> tuple[list[Sample], list[Sample]]:
    """Training samples (unless ``training`` is False) and calibration samples, rendered on ``args.workers`` cores."""
    chunk = 40
    synth, twin_n = (args.synth, args.twin) if training else (0, 0)
    # small and confusable faces: the twin's stills in training fonts, stored as the table's MJPG stores a frame
    twin_fonts = train_fonts if args.sizes in ("small", "confusable") or args.twin_train_fonts else None
    jobs_s = [(args.seed * 100_000 + k, min(chunk, synth - k * chunk), train_fonts, 0, args.jitters, True, args.styles,
               args.sizes, args.hedge)
              for k in range((synth + chunk - 1) // chunk)]
    jobs_t = [(TWIN_SEED0 + args.seed * 100_000 + k * chunk, min(chunk, twin_n - k * chunk), args.jitters,
               twin_fonts)
              for k in range((twin_n + chunk - 1) // chunk)]
    # calibration: per held-out dreidel 5 letters x 6 stills (3 to enroll, 3 to query)
    jobs_v = [(args.seed * 100_000 + 50_000 + k, 30, held, 30, 0, False, args.styles, "any", False)
              for k in range(args.val_styles)]
    with Pool(args.workers) as pool:
        parts_t = pool.map_async(twin_job, jobs_t, chunksize=1)
        parts_s = pool.map(synth_job, jobs_s, chunksize=1)
        parts_v = pool.map(synth_job, jobs_v, chunksize=1)
        twin = parts_t.get()
    train = [r for part in parts_s + twin for r in part]
    val = [r for part in parts_v for r in part]
    return train, val


# -- small faces: Nun/Gimel thresholds by face size -------------------------------------------------

#: the seeds of the small-face calibration stills (below every benchmark's and held-out range, apart from the
#: training stills' seeds: the twin's from 6,000,000 + 100,000 x seed, letter_synth's up to about 1,000,000)
SMALL_TWIN_SEED0 = 6_700_000
SMALL_SYNTH_SEED0 = 5_000_000
#: upper edges (px) of the face-size bins whose Nun/Gimel thresholds are fitted; the last bin holds every larger
#: face. The smallest faces of a 40 px dreidel are about 12 px. Faces of 34 px and more were once left to the
#: letters' own threshold (0.95); but every face is cut to the same 32 px patch, so a large face shows the
#: network no more of Gimel's foot than a 34 px one, and a 46 px held-out-font Gimel with a glare spot on it was
#: read as Nun at 0.985, steady (bench_letters synth 98,000,008; tests/vision/data)
SMALL_FACE_EDGES = (14.0, 17.0, 20.0, 23.0, 26.0, 30.0, 34.0, math.inf)
#: the small faces of a twin recording's resting dreidel (px, in a 640 x 480 picture), where Gimel's foot is a
#: pixel or two: ``--sizes small`` and ``confusable`` draw them, and so does the face-size fit
SMALL_FACE_PX = (12.0, 34.0)
#: the large faces of the last bin: letter_synth dreidels whose face is this wide (px), seeds apart from the others
LARGE_FACE_PX = (34.0, 64.0)
LARGE_SYNTH_SEED0 = 5_400_000
#: a bin's threshold must leave at least this many right Nun/Gimel reads above it (evidence, not luck) ...
SMALL_FACE_MIN_READS = 20
#: ... and lie this far above the most confident wrong read in the bin; never above SMALL_FACE_MAX_THRESHOLD
SMALL_FACE_MARGIN = 0.005
SMALL_FACE_MAX_THRESHOLD = 0.995
#: the small-face stills' letters: Nun and Gimel twice as often as the others (the bins are theirs, but a
#: small Hey, Shin or Pe read as one of them is a wrong read too)
SMALL_FACE_LETTERS = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.NUN, Letter.GIMEL, Letter.SHIN, Letter.PE)

#: the rate rule (``--small-face-rule rate``, the default since session 16): the faces of 14-34 px share one threshold,
#: the lowest at which at most this share of their Nun/Gimel reads above it are wrong, at this confidence (the
#: one-sided Clopper-Pearson bound of :func:`wrong_share_bound`), fitted on ``RATE_FIT_STILLS`` stills; candidates
#: run in steps of ``RATE_STEP`` up to ``RATE_MAX_THRESHOLD``
SMALL_FACE_MAX_WRONG_SHARE = 0.005
SMALL_FACE_BOUND_CONFIDENCE = 0.95
RATE_FIT_STILLS = 6000
RATE_STEP = 0.0005
RATE_MAX_THRESHOLD = 0.9995

SmallRow = tuple[float, int, int, float, float]  # (face side px, true letter, best letter, confidence, steadiness)


def wrong_share_bound(wrong: int, reads: int, confidence: float = SMALL_FACE_BOUND_CONFIDENCE) -> float:
    """The one-sided Clopper-Pearson upper bound on a wrong-read share after ``wrong`` wrong of ``reads`` reads: the
    share p at which seeing ``wrong`` or fewer would happen only 1 - ``confidence`` of the time (1.0 with no reads).
    Exact binomial sums in logs, solved by bisection (no SciPy on the table or in the build)."""
    if reads <= 0 or wrong >= reads:
        return 1.0
    alpha = 1.0 - confidence

    def at_most_wrong(p: float) -> float:
        logs = [math.lgamma(reads + 1) - math.lgamma(k + 1) - math.lgamma(reads - k + 1)
                + k * math.log(p) + (reads - k) * math.log1p(-p) for k in range(wrong + 1)]
        top = max(logs)
        return math.exp(top) * sum(math.exp(x - top) for x in logs)

    lo, hi = wrong / reads, 1.0
    for _ in range(60):  # the tail falls as p rises: find where it crosses alpha
        mid = 0.5 * (lo + hi)
        if at_most_wrong(mid) > alpha:
            lo = mid
        else:
            hi = mid
    return hi


def maybe_worn(style: DreidelStyle, seed: int) -> DreidelStyle:
    """``style`` with rubbed-off paint on ``WORN_SHARE`` of seeds, drawn from a generator of its own so that every
    other draw of the calibration still is what it is without wear."""
    rng = np.random.default_rng([seed, 0x3EA5])
    return replace(style, wear=float(rng.uniform(*WORN_RANGE))) if rng.random() < WORN_SHARE else style


def calibration_still(kind: str, seed: int, letter: Letter, fonts: list[str], worn: bool = False
                      ) -> tuple[np.ndarray, Letter]:
    """The held-out-font still of calibration seed ``seed`` showing ``letter`` (``kind`` as in
    :func:`small_face_job`), and the letter it shows: a twin dreidel has a Shin or a Pe, not both. The
    Nun/Gimel second look's build (build_nun_gimel_model.py) is calibrated on exactly these pictures. ``worn``:
    letter_synth's dreidels have rubbed-off paint as often as the twin's (``maybe_worn``)."""
    from dataclasses import replace as dc_replace

    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still as twin_render

    rng = np.random.default_rng([seed, 0x5F])
    if kind == "twin":
        style = dc_replace(resolve_style(None, seed), font_path=fonts[int(rng.integers(len(fonts)))])
        if letter not in style.letters:
            letter = Letter.PE if letter is Letter.SHIN else Letter.SHIN
        image, _ = twin_render(style, letter, seed)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])
        return (cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image), letter
    style_of = DreidelStyle.random_varied if rng.random() < 0.5 else DreidelStyle.random
    synth_style = style_of(rng, fonts)
    if worn:
        synth_style = maybe_worn(synth_style, seed)
    along = synth_style.body_len + synth_style.tip_len + synth_style.handle_len
    lo, hi = LARGE_FACE_PX if kind == "large" else (12.0, SMALL_FACE_EDGES[-2])
    image = render_still(synth_style, letter, rng, size=(640, 480), length_px=float(rng.uniform(lo, hi) * along)).image
    return image, letter


def small_face_job(job: tuple[str, int, int, list[str], str, bool]) -> list[SmallRow]:
    """``count`` stills of held-out-font dreidels whose up face is 12-34 px (``kind`` "large": 34-64 px), read by
    the model at ``model`` exactly as at run time (pose -> cut -> network, and the steadiness check): one row per
    readable face in the size range.

    ``kind`` "twin": the digital twin's stills (its camera and light) lettered in a held-out font and stored
    as the table's MJPG stores a frame (JPEG 80-95); "synth": letter_synth's plain and varied dreidels
    sized so that the face is 12-34 px, with its blur, noise and JPEG; "large": the same at 34-64 px."""
    from vision.recognizer import LetterRecognizer

    kind, seed0, count, fonts, model, worn = job
    cv2.setNumThreads(1)
    reader = LetterRecognizer(LetterModel.load(Path(model)))
    out: list[SmallRow] = []
    for i in range(count):
        image, letter = calibration_still(kind, seed0 + i, SMALL_FACE_LETTERS[i % len(SMALL_FACE_LETTERS)], fonts,
                                          worn)
        pose = find_resting_dreidel(image)
        if pose is None:
            continue
        got = reader.assess(image, pose)
        # each kind speaks for its own sizes (the small ones' rows are what they were before the large bin)
        if got is not None and (got[3] >= SMALL_FACE_EDGES[-2]) == (kind == "large"):
            best, conf, steady, side = got
            out.append((side, LETTERS.index(letter), best, conf, steady))
    return out


def fit_stills_worn(args: argparse.Namespace) -> bool:
    """Whether the face-size fit's letter_synth dreidels are worn as often as the twin's: always for the rate rule
    (worn paint is where the wrong reads are, session 15), else with ``--styles worn``."""
    return args.styles == "worn" or args.small_face_rule == "rate"


def small_face_rows(args: argparse.Namespace, held: list[str], model: Path) -> list[SmallRow]:
    """The face-size calibration rows (``args.small_faces`` stills, half twin, half letter_synth, and
    ``args.large_faces`` letter_synth stills with large faces)."""
    chunk = 20
    jobs: list[tuple[str, int, int, list[str], str, bool]] = []
    for kind, seed0, n in (("twin", SMALL_TWIN_SEED0, args.small_faces // 2),
                           ("synth", SMALL_SYNTH_SEED0, args.small_faces // 2),
                           ("large", LARGE_SYNTH_SEED0, args.large_faces)):
        jobs += [(kind, seed0 + k, min(chunk, n - k), held, str(model), fit_stills_worn(args))
                 for k in range(0, n, chunk)]
    # spawned, not forked: the main process has run cv2.dnn by now, and a forked worker can hang on the
    # threads OpenCV started (it did: bench_imu_robustness, 9628278)
    with get_context("spawn").Pool(args.workers) as pool:
        parts = pool.map(small_face_job, jobs, chunksize=1)
    return [r for part in parts for r in part]


#: the indices of Nun and Gimel in ``LETTERS``: the letters the face-size thresholds are for
CONFUSABLE_INDICES = (LETTERS.index(Letter.NUN), LETTERS.index(Letter.GIMEL))


def _small_arrays(rows: list[SmallRow]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The face-size fit's rows as arrays: side (px), true letter, best letter, and the score a read counts at,
    min(confidence, steadiness), as ``read`` decides."""
    side = np.array([r[0] for r in rows], np.float64)
    truth = np.array([r[1] for r in rows], np.int64)
    best = np.array([r[2] for r in rows], np.int64)
    score = np.array([min(r[3], r[4]) for r in rows], np.float64)
    return side, truth, best, score


def rate_threshold(rows: list[SmallRow], floor: float, max_wrong_share: float = SMALL_FACE_MAX_WRONG_SHARE,
                   below_px: float = SMALL_FACE_EDGES[-2], from_px: float = SMALL_FACE_EDGES[0]
                   ) -> tuple[float | None, int, int]:
    """The rate rule's one threshold for the Nun/Gimel reads of faces from ``from_px`` to ``below_px``: the lowest candidate
    (``floor``, then steps of ``RATE_STEP`` up to ``RATE_MAX_THRESHOLD``) at which :func:`wrong_share_bound` of the
    reads at or above it is at most ``max_wrong_share``; with the right and wrong reads above it. None (never read)
    when no candidate is safe."""
    side, truth, best, score = _small_arrays(rows)
    sel = np.isin(best, CONFUSABLE_INDICES) & (side >= from_px) & (side < below_px)
    steps = int(round((RATE_MAX_THRESHOLD - floor) / RATE_STEP))
    for t in [round(floor + k * RATE_STEP, 4) for k in range(max(0, steps) + 1)]:
        above = sel & (score >= t)
        right, wrong = int((above & (best == truth)).sum()), int((above & (best != truth)).sum())
        if wrong_share_bound(wrong, right + wrong) <= max_wrong_share:
            return t, right, wrong
    return None, 0, 0


def fit_confusable_bins(rows: list[SmallRow], floor: float, edges: tuple[float, ...] = SMALL_FACE_EDGES,
                        max_wrong_share: float | None = None
                        ) -> tuple[tuple[ConfusableBin, ...], list[list[object]]]:
    """Per face-size bin, the confidence a Nun or Gimel read must reach (a read counts at min(confidence,
    steadiness), as ``read`` decides), at least ``floor`` (the letters' own threshold) and leaving
    ``SMALL_FACE_MIN_READS`` right reads in the bin; else None (never read). A smaller bin is never read more
    easily than a larger one. Also a report row per bin.

    The margin rule (``max_wrong_share`` None): ``SMALL_FACE_MARGIN`` above the most confident wrong read in the
    bin, at most ``SMALL_FACE_MAX_THRESHOLD``. It can only see a wrong-read rate as large as one in the bin's
    reads (70-120 on 1000 stills). The rate rule (``max_wrong_share``): every bin from 14 to 34 px gets
    :func:`rate_threshold` of all their reads pooled, so that at most that share of the small faces' reads are
    wrong at ``SMALL_FACE_BOUND_CONFIDENCE``. Faces under 14 px are never read: over a quarter of their Nun/Gimel
    reads are wrong (50 of 181 in session 16's fit), and a bound pooled with the larger faces would let those vouch
    for them (the second look is not asked there either). The open-ended bin of large faces (other stills) keeps
    the margin rule, but never below the small faces' threshold."""
    confusable = list(CONFUSABLE_INDICES)
    side, truth, best, score = _small_arrays(rows)
    ng = np.isin(best, confusable)
    pooled = (None if max_wrong_share is None
              else rate_threshold(rows, floor, max_wrong_share, max(e for e in edges if e <= SMALL_FACE_EDGES[-2]))[0])
    fitted: list[float | None] = []
    report: list[list[object]] = []
    lo = 0.0
    for hi in edges:
        sel = ng & (side >= lo) & (side < hi)
        wrong = sel & (best != truth)
        worst = float(score[wrong].max()) if wrong.any() else 0.0
        if max_wrong_share is not None and hi <= SMALL_FACE_EDGES[-2]:
            # the pooled threshold from 14 px; under 14 px (and when none is safe) never: 2 is over every cap
            t = pooled if pooled is not None and hi > SMALL_FACE_EDGES[0] else 2.0
            cap = RATE_MAX_THRESHOLD
        else:
            t, cap = max(floor, worst + SMALL_FACE_MARGIN), SMALL_FACE_MAX_THRESHOLD
            if max_wrong_share is not None and pooled is not None:
                # every face is cut to the same 32 px patch, so a large face shows the network no more of Gimel's
                # foot than a 30-34 px one (session 8): it never needs less (synth 98,000,008, a 46 px Gimel with
                # a glare spot, read as Nun at 0.976 by session 16's network, over its margin rule's 0.9748)
                t, cap = max(t, pooled), RATE_MAX_THRESHOLD
        right_above = int((sel & (best == truth) & (score >= t)).sum())
        ok = t <= cap and right_above >= SMALL_FACE_MIN_READS
        fitted.append(round(t, 4) if ok else None)
        in_bin = (side >= lo) & (side < hi) & np.isin(truth, confusable)
        report.append([lo, None if math.isinf(hi) else hi, int(in_bin.sum()), int(sel.sum()), int(wrong.sum()), round(worst, 4),
                       fitted[-1], right_above if ok else 0])
        lo = hi
    # monotone: from the largest bin down, a smaller face needs at least the larger one's threshold
    for k in range(len(fitted) - 2, -1, -1):
        above, here = fitted[k + 1], fitted[k]
        fitted[k] = None if above is None or here is None else max(here, above)
        report[k][6] = fitted[k]
    return tuple(ConfusableBin(e, t) for e, t in zip(edges, fitted, strict=True)), report


def calibrate_small_faces(args: argparse.Namespace, held: list[str], side: Path,
                          calibration: Calibration) -> Calibration:
    """Fit ``confusable_bins`` for the network in ``args.out`` (whose json must already hold ``calibration``'s
    temperature and thresholds) and return the calibration with them and their report in its meta."""
    if args.small_faces <= 0:
        return calibration
    t0 = time.time()
    rows = small_face_rows(args, held, args.out)
    floor = max(calibration.threshold_of(LETTERS.index(x)) for x in (Letter.NUN, Letter.GIMEL))
    # without large faces the last fitted bin ends at 34 px and larger faces keep the letters' own threshold
    edges = SMALL_FACE_EDGES if args.large_faces > 0 else SMALL_FACE_EDGES[:-1]
    share = SMALL_FACE_MAX_WRONG_SHARE if args.small_face_rule == "rate" else None
    bins, report = fit_confusable_bins(rows, floor, edges, max_wrong_share=share)
    print(f"small faces ({args.small_face_rule} rule): {len(rows)} faces read in {time.time() - t0:.0f} s; Nun/Gimel by face size "
          "(px from-to: N/G faces, read N/G, wrong, worst wrong, threshold, right reads above it):", flush=True)
    for r in report:
        print(f"  {r[0]:4.0f}-{'' if r[1] is None else f'{r[1]:4.0f}':4s}: {r[2]:4d} {r[3]:4d} {r[4]:3d} {r[5]:.3f} "
              f"{'never' if r[6] is None else r[6]} {r[7]}", flush=True)
    meta = {**calibration.meta, "small_faces": args.small_faces, "large_faces": args.large_faces,
            "small_face_rule": args.small_face_rule, "small_face_bins": report}
    if share is not None:
        meta["small_face_rate"] = {"max_wrong_share": share, "confidence": SMALL_FACE_BOUND_CONFIDENCE,
                                   "worn_fit_stills": fit_stills_worn(args)}
    return replace(calibration, confusable_bins=bins, meta=meta)


# -- taught faces: when this dreidel's taught Nun and Gimel may vouch for a small face --------------------

#: the dreidels of the taught-face fit (twin and letter_synth; their stills' seeds follow from them, below every
#: benchmark's and held-out range and apart from the training and small-face seeds)
TAUGHT_TWIN_SEED0 = 6_800_000
TAUGHT_SYNTH_SEED0 = 5_100_000
#: taught stills per letter (as a recording's enroll/ holds) and query stills per letter, per dreidel
TAUGHT_STILLS = 3
TAUGHT_QUERIES = 3
#: the face sizes (px) from which the taught faces may vouch: the fit takes the smallest that its data allows
TAUGHT_SIDE_EDGES = (14.0, 17.0, 20.0, 23.0, 26.0, 30.0)
#: the margin lies this far above the largest margin of a wrong read on faces of that size or more (and is
#: never below it) ...
TAUGHT_MARGIN_STEP = 0.01
#: ... and at most this: where a wrong read was vouched for more surely, the taught faces are fooled as the
#: network is (a lost foot is lost in the taught stills too), and a larger face is tried
TAUGHT_MAX_MARGIN = 0.1
#: ... and must leave at least this many right reads that only the taught faces admit (evidence, not luck)
TAUGHT_MIN_READS = 20

#: below the letter's own threshold (``TaughtBelowRule``, session 18): a read counts from this confidence (and
#: steadiness) up ...
TAUGHT_BELOW_FLOOR = 0.8
#: ... on a face at least this like its letter's nearest taught face: nearly the very face taught. At 0.85 a blurred
#: held-out-font Gimel, 0.87 like the dreidel's taught Nun and 0.08 more than like its taught Gimel, was read as Nun
#: (bench_letters' tuning stills, synth 91,000,015) ...
TAUGHT_BELOW_LIKENESS = 0.9
#: ... and the margin lies this far above the largest margin of a wrong read that alike, from this confidence up (a
#: band below the floor: a read just under it is one frame's light away from above it), on faces of that size or
#: more. Both floors are fixed, not searched: on 960 held-out-font dreidels, choosing them with the margin by the
#: most right reads gained admitted wrong reads on the dreidels left out (4 of 757 over 2- to 5-fold splits);
#: fixed, none (0 of 205) ...
TAUGHT_BELOW_WRONG_FROM = 0.6
TAUGHT_BELOW_STEP = 0.05
#: ... and at most this (a worn Nun that the network is unsure of was 0.15-0.2 more like its taught Nun)
TAUGHT_BELOW_MAX_MARGIN = 0.2

#: (side px, true letter, best, confidence, steadiness, margin, likeness); rows of six (before session 18) have no
#: likeness, and the fits then take it as passing
TaughtRow = tuple[float, ...]


def taught_face_job(job: tuple[str, int, int, list[str], str, bool]) -> list[TaughtRow]:
    """``count`` held-out-font dreidels, each taught 3 stills of every letter it has (as a recording's enroll/)
    and asked 3 stills each of Nun and Gimel and one Hey, read as at run time by the taught recognizer (pose ->
    cut -> network, steadiness) with the taught-face margin of every Nun/Gimel read: one row per readable query.

    ``kind`` "twin": the digital twin's stills in one scene per dreidel (its camera, tray and light), the queries
    stored as the table's MJPG stores a frame (JPEG 80-95); "synth": letter_synth's plain and varied dreidels
    with a face of 12-34 px in a 640 x 480 picture, with its blur, noise and JPEG."""
    from dataclasses import replace as dc_replace

    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still as twin_render
    from hardware.sim.render import Scene
    from vision.recognizer import LetterRecognizer

    kind, seed0, count, fonts, model, worn = job
    cv2.setNumThreads(1)
    generic = LetterRecognizer(LetterModel.load(Path(model)))
    asked = (Letter.NUN, Letter.GIMEL) * TAUGHT_QUERIES + (Letter.HEY,)
    out: list[TaughtRow] = []
    for i in range(count):
        seed = seed0 + i
        rng = np.random.default_rng([seed, 0x7A])
        font = fonts[int(rng.integers(len(fonts)))]
        if kind == "twin":
            style = dc_replace(resolve_style(None, seed), font_path=font)
            scene = Scene.random(seed)
            letters = style.letters
            still_seed = iter(range(seed0 + 50_000 + 20 * i, seed0 + 50_000 + 20 * (i + 1)))

            def draw(letter: Letter, query: bool) -> np.ndarray:
                image, _ = twin_render(style, letter, next(still_seed), scene=scene)  # noqa: B023
                if query:
                    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])  # noqa: B023
                    image = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image
                return image
        else:
            synth_style = (DreidelStyle.random_varied if rng.random() < 0.5 else DreidelStyle.random)(rng, [font])
            if worn:
                synth_style = maybe_worn(synth_style, seed)
            along = synth_style.body_len + synth_style.tip_len + synth_style.handle_len
            length = float(rng.uniform(*SMALL_FACE_PX) * along)
            letters = LETTERS

            def draw(letter: Letter, query: bool) -> np.ndarray:
                return render_still(synth_style, letter, rng, size=(640, 480), length_px=length).image  # noqa: B023
        teach = [(letter, draw(letter, False)) for letter in letters for _ in range(TAUGHT_STILLS)]
        taught, _ = generic.with_usable_enrollment(teach)
        for letter in asked:
            image = draw(letter, True)
            pose = find_resting_dreidel(image)
            if pose is None or pose.face_quad is None:
                continue
            got = taught.assess(image, pose)
            if got is None:
                continue
            best, conf, steady, side = got
            compared = taught.taught_comparison(face_input(image, pose.face_quad), best, pose.confidence)
            margin, likeness = (float("nan"), float("nan")) if compared is None else (compared.margin,
                                                                                      compared.likeness)
            out.append((side, LETTERS.index(letter), best, conf, steady, margin, likeness))
    return out


def taught_face_rows(args: argparse.Namespace, held: list[str], model: Path) -> list[TaughtRow]:
    """The taught-face fit's rows (``args.taught_faces`` dreidels, half twin, half letter_synth)."""
    chunk = 5
    jobs: list[tuple[str, int, int, list[str], str, bool]] = []
    for kind, seed0 in (("twin", TAUGHT_TWIN_SEED0), ("synth", TAUGHT_SYNTH_SEED0)):
        n = args.taught_faces // 2
        jobs += [(kind, seed0 + k, min(chunk, n - k), held, str(model), args.styles == "worn")
                 for k in range(0, n, chunk)]
    with get_context("spawn").Pool(args.workers) as pool:  # spawned: see small_face_rows
        parts = pool.map(taught_face_job, jobs, chunksize=1)
    return [r for part in parts for r in part]


def fit_taught_faces(rows: list[TaughtRow], floor: float, calibration: Calibration
                     ) -> tuple[TaughtFaceRule | None, dict[str, object]]:
    """The taught-face rule, fitted on the Nun/Gimel reads that pass the letter's own threshold ``floor`` and the
    steadiness check (what the rule may admit): from the smallest face size of ``TAUGHT_SIDE_EDGES`` on which
    it is safe, the margin a read must reach is ``TAUGHT_MARGIN_STEP`` above the largest margin of a wrong read
    on faces of that size or more (at least the step, at most ``TAUGHT_MAX_MARGIN``), with at least
    ``TAUGHT_MIN_READS`` right reads that the face-size thresholds of ``calibration`` refuse and the margin
    admits. None when no size qualifies. Also a report (the reads, and per size tried: wrong reads, their
    largest margin, the right reads gained)."""
    confusable = [LETTERS.index(x) for x in (Letter.NUN, Letter.GIMEL)]
    side, truth, best, conf, steady, margin, _ = taught_columns(rows)
    cand = np.isin(best, confusable) & (conf >= floor) & (steady >= floor) & np.isfinite(margin)
    at_size = np.array([t if (t := calibration.confusable_threshold(x)) is not None else np.inf for x in side])
    refused = cand & (np.minimum(conf, steady) < at_size)  # as read() decides: refused at its size
    report: dict[str, object] = {
        "queries": len(rows), "nun_gimel_reads": int(cand.sum()), "wrong_reads": int((cand & (best != truth)).sum()),
        "right_refused_by_size": int((refused & (best == truth)).sum()),
        "right_below_zero": int((cand & (best == truth) & (margin < 0)).sum()),
    }
    tried: list[list[float]] = []
    report["by_min_side"] = tried
    for edge in TAUGHT_SIDE_EDGES:
        wrong = cand & (side >= edge) & (best != truth)
        worst = float(margin[wrong].max()) if wrong.any() else 0.0
        m = max(TAUGHT_MARGIN_STEP, worst + TAUGHT_MARGIN_STEP)
        gained = int((refused & (side >= edge) & (best == truth) & (margin >= m)).sum())
        tried.append([edge, int(wrong.sum()), round(worst, 4), round(m, 4), gained])
        if m <= TAUGHT_MAX_MARGIN and gained >= TAUGHT_MIN_READS:
            return TaughtFaceRule(round(m, 4), edge), report
    return None, report


def fit_taught_below(rows: list[TaughtRow], floor: float) -> tuple[TaughtBelowRule | None, dict[str, object]]:
    """The rule by which the taught faces vouch for a Nun or Gimel read whose confidence or steadiness is *below*
    the letter's own threshold ``floor`` (a read counts at min(confidence, steadiness), as ``read`` decides) but at
    least ``TAUGHT_BELOW_FLOOR``, on a face at least ``TAUGHT_BELOW_LIKENESS`` like a taught face of its letter. From
    the smallest face size of ``TAUGHT_SIDE_EDGES`` where it is safe, the margin a read must reach is
    ``TAUGHT_BELOW_STEP`` above the largest margin of a wrong read that alike (at any confidence from
    ``TAUGHT_BELOW_WRONG_FROM`` up) on faces of that size or more, at most ``TAUGHT_BELOW_MAX_MARGIN``, with at least
    ``TAUGHT_MIN_READS`` right reads under ``floor`` that it admits. None when no size qualifies. Rows without a
    likeness (six columns) count as alike. Also a report (per size tried: wrong reads, their largest margin, the
    margin, the right reads gained)."""
    confusable = [LETTERS.index(x) for x in (Letter.NUN, Letter.GIMEL)]
    side, truth, best, conf, steady, margin, likeness = taught_columns(rows)
    score = np.minimum(conf, steady)
    alike = ~(likeness < TAUGHT_BELOW_LIKENESS)  # NaN (no likeness): alike
    cand = np.isin(best, confusable) & np.isfinite(margin) & alike
    tried: list[list[float]] = []
    report: dict[str, object] = {"below_threshold_tried": tried}
    for edge in TAUGHT_SIDE_EDGES:
        sel = cand & (side >= edge)
        wrong = sel & (best != truth) & (score >= TAUGHT_BELOW_WRONG_FROM)
        worst = float(margin[wrong].max()) if wrong.any() else 0.0
        m = max(TAUGHT_BELOW_STEP, worst + TAUGHT_BELOW_STEP)
        gained = int((sel & (score >= TAUGHT_BELOW_FLOOR) & (score < floor) & (best == truth) & (margin >= m)).sum())
        tried.append([edge, int(wrong.sum()), round(worst, 4), round(m, 4), gained])
        if m <= TAUGHT_BELOW_MAX_MARGIN and gained >= TAUGHT_MIN_READS:
            return TaughtBelowRule(TAUGHT_BELOW_FLOOR, round(m, 4), edge, TAUGHT_BELOW_LIKENESS), report
    return None, report


def taught_columns(rows: list[TaughtRow]) -> tuple[np.ndarray, ...]:
    """The taught-face fit's rows as seven columns (side, truth, best, confidence, steadiness, margin, likeness);
    rows of six get a likeness of NaN."""
    a = np.array(rows, np.float64)
    a = a.reshape(-1, a.shape[1] if a.ndim == 2 else 6)
    if a.shape[1] == 6:
        a = np.hstack([a, np.full((len(a), 1), np.nan)])
    return tuple(a.T)


def calibrate_taught_faces(args: argparse.Namespace, held: list[str], calibration: Calibration) -> Calibration:
    """Fit ``taught_faces`` for the network in ``args.out`` (whose json must already hold ``calibration``)."""
    if args.taught_faces <= 0:
        return calibration
    t0 = time.time()
    rows = taught_face_rows(args, held, args.out)
    floor = max(calibration.threshold_of(LETTERS.index(x)) for x in (Letter.NUN, Letter.GIMEL))
    rule, report = fit_taught_faces(rows, floor, calibration)
    below, below_report = fit_taught_below(rows, floor)
    if rule is not None:  # the below rule is kept in the taught-face entry: without a size rule there is none
        rule = replace(rule, below=below)
    report = {**report, **below_report}
    print(f"taught faces: {len(rows)} queries read in {time.time() - t0:.0f} s: {report}; rule {rule}", flush=True)
    if args.taught_rows is not None:
        np.save(args.taught_rows, np.array(rows, np.float64).reshape(-1, 7))
    return replace(calibration, taught_faces=rule, meta={**calibration.meta, "taught_faces": args.taught_faces,
                                                         "taught_face_fit": report})


# -- the network ----------------------------------------------------------------------------------


def conv_stage(cin: int, cout: int) -> list[object]:
    """One stage of both letter networks (this one and the Nun/Gimel second look's): two 3x3 convolutions,
    each batch-normed and rectified, then a 2x2 max-pool."""
    from torch import nn

    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.MaxPool2d(2)]


def build_net() -> object:
    """The CNN: three conv stages (16, 32, 64 channels) on 32x32, a 128-wide embedding, 21 classes."""
    import torch
    from torch import nn

    class LetterNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*conv_stage(CHANNELS, 16), *conv_stage(16, 32), *conv_stage(32, 64))
            self.embed = nn.Sequential(nn.Flatten(), nn.Linear(64 * (PATCH // 8) ** 2, EMBEDDING), nn.ReLU())
            self.drop = nn.Dropout(0.3)
            self.head = nn.Linear(EMBEDDING, CLASSES)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            e = self.embed(self.features(x))
            return torch.cat([self.head(self.drop(e)), e], dim=1)

    return LetterNet()


def augment(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A batch turned by random quarter turns (labels follow), with polarity, contrast and noise changes."""
    out = np.empty_like(x)
    labels = y.copy()
    for i in range(len(x)):
        k = int(rng.integers(4))
        out[i] = np.rot90(x[i], k, axes=(1, 2))
        if y[i] != NONE_CLASS:
            labels[i] = (y[i] // ORIENTATIONS) * ORIENTATIONS + (y[i] % ORIENTATIONS - k) % ORIENTATIONS
    flip = rng.random(len(x)) < 0.3  # the other polarity (light letter on a dark face and back)
    out[flip, 1] *= -1
    gain = rng.uniform(0.75, 1.25, (len(x), 1, 1, 1)).astype(np.float32)
    out = out * gain + rng.normal(0, rng.uniform(0, 0.08), out.shape).astype(np.float32)
    out[:, 0] = np.clip(out[:, 0], 0, 1.5)
    out[:, 1] = np.clip(out[:, 1], -1.5, 1.5)
    return out.astype(np.float32), labels


def load_onnx_weights(net: object, path: Path) -> None:
    """Start from an exported network (``--init``): its convolutions carry the batch norms folded in,
    so the batch norms become fixed identities and the folded biases their shifts."""
    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    graph = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    modules = list(net.features)  # type: ignore[attr-defined]
    pairs = [(m, modules[i + 1]) for i, m in enumerate(modules) if isinstance(m, nn.Conv2d)]
    if len(pairs) != len(convs):
        sys.exit(f"--init {path}: {len(convs)} convolutions, this network has {len(pairs)}")
    with torch.no_grad():
        for (conv, bn), node in zip(pairs, convs, strict=True):
            conv.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(init[node.input[2]].copy()))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        state = {k: torch.from_numpy(v.copy()) for k, v in init.items() if k.startswith(("embed.", "head."))}
        net.load_state_dict(state, strict=False)  # type: ignore[attr-defined]


def pair_penalty(logits: object, labels: object) -> object:
    """Per sample, ``-log(1 - p(partner))`` for a Nun or Gimel face, where the partner is the other letter of the
    pair (its four orientations summed), else 0. Cross-entropy pays for every wrong class alike; this pays again
    for the one confusion that reads a wrong letter (``--pair-weight``), so a face whose foot is in doubt pulls
    the network towards hedging rather than towards a confident guess."""
    import torch

    logp = torch.log_softmax(logits, dim=1)  # type: ignore[call-overload]
    swapped = partner_labels(labels)
    pair = swapped != labels  # type: ignore[operator]
    partner = torch.where(pair, swapped // ORIENTATIONS, torch.zeros_like(swapped))  # type: ignore[operator]
    cols = partner[:, None] * ORIENTATIONS + torch.arange(ORIENTATIONS)[None, :]
    p_partner = torch.exp(torch.gather(logp, 1, cols)).sum(1).clamp(max=1.0 - 1e-6)
    return torch.where(pair, -torch.log1p(-p_partner), torch.zeros_like(p_partner))


def partner_labels(labels: object) -> object:
    """Each Nun or Gimel class with the other letter of the pair at the same orientation (other classes as they are)."""
    import torch

    letter = labels // ORIENTATIONS  # type: ignore[operator]
    nun, gimel = LETTERS.index(Letter.NUN), LETTERS.index(Letter.GIMEL)
    swapped = torch.where(letter == nun, torch.full_like(letter, gimel), torch.full_like(letter, nun))
    pair = ((letter == nun) | (letter == gimel)) & (labels != NONE_CLASS)  # type: ignore[operator]
    return torch.where(pair, swapped * ORIENTATIONS + labels % ORIENTATIONS, labels)  # type: ignore[operator]


def hedged_loss(loss_fn: object, logits: object, labels: object, hedge: object) -> object:
    """The batch's mean cross-entropy against a target that puts ``hedge`` of each face's weight on the other letter
    of the Nun/Gimel pair (``--hedge``; 0 for every other face): a face whose foot is gone is taught "one of the
    two, either way", so the network learns to hedge there instead of guessing surely."""
    own = loss_fn(logits, labels)  # type: ignore[operator]
    other = loss_fn(logits, partner_labels(labels))  # type: ignore[operator]
    return ((1 - hedge) * own + hedge * other).mean()  # type: ignore[operator]


def train(samples: list[Sample], epochs: int, seed: int, init: Path | None = None, lr: float = 3e-3,
          pair_weight: float = 0.0) -> object:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    x = np.stack([s[0] for s in samples]).astype(np.float32)
    y = np.array([s[1] for s in samples], np.int64)
    hedges = np.array([s[4] for s in samples], np.float32)
    net = build_net()
    if init is not None:
        load_onnx_weights(net, init)
        for m in net.modules():  # type: ignore[attr-defined]
            if isinstance(m, nn.BatchNorm2d):
                m.weight.requires_grad_(False)
    params = [p for p in net.parameters() if p.requires_grad]  # type: ignore[attr-defined]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=1e-4)
    batch = 128
    steps = epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    per_face = nn.CrossEntropyLoss(label_smoothing=0.05, reduction="none")
    hedging = bool(hedges.any())  # without it, the loss is computed exactly as the committed stages computed it
    for epoch in range(epochs):
        net.train()
        if init is not None:  # fine-tuning: the batch norms stay the fixed identities the start had
            for m in net.modules():  # type: ignore[attr-defined]
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        order = rng.permutation(len(x))
        total, right, t0 = 0.0, 0, time.time()
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            xb, yb = augment(x[idx], y[idx], rng)
            out = net(torch.from_numpy(xb))[:, :CLASSES]
            labels = torch.from_numpy(yb)
            if hedging:
                hedge = torch.from_numpy(hedges[idx])
                loss = hedged_loss(per_face, out, labels, hedge)
                if pair_weight > 0:  # the pair emphasis only where the face tells the two apart
                    loss = loss + pair_weight * (pair_penalty(out, labels) * (hedge == 0)).mean()
            else:
                loss = loss_fn(out, labels)
                if pair_weight > 0:
                    loss = loss + pair_weight * pair_penalty(out, labels).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            right += int((out.argmax(1).numpy() // ORIENTATIONS == yb // ORIENTATIONS).sum())
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}, letter right {right / len(x):.4f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    net.eval()
    return net


def export(net: object, path: Path, patch: int = PATCH) -> None:
    """Write the network (its input: ``CHANNELS`` x ``patch`` x ``patch`` faces) as ONNX and check that cv2.dnn
    reads it and agrees with PyTorch."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    probe = torch.from_numpy(np.random.default_rng(0).normal(0, 0.5, (4, CHANNELS, patch, patch)).astype(np.float32))
    torch.onnx.export(net, (probe,), str(path), input_names=["face"], output_names=["scores"], opset_version=17,
                      dynamic_axes={"face": {0: "n"}, "scores": {0: "n"}}, dynamo=False)
    cvnet = cv2.dnn.readNetFromONNX(str(path))
    cvnet.setInput(probe.numpy())
    got = np.asarray(cvnet.forward()).reshape(4, -1)
    with torch.no_grad():
        want = net(probe).numpy()
    err = float(np.abs(got - want).max())
    if err > 1e-3:
        sys.exit(f"cv2.dnn disagrees with PyTorch on the exported network (max error {err})")
    print(f"exported {path} ({path.stat().st_size / 1e6:.2f} MB); cv2.dnn agrees within {err:.1e}", flush=True)


# -- calibration ------------------------------------------------------------------------------------


def nll(probs: list[np.ndarray], labels: list[int]) -> float:
    return float(-np.mean([np.log(p[y] + 1e-12) for p, y in zip(probs, labels, strict=True)]))


def fit_letter_thresholds(conf: np.ndarray, best: np.ndarray, right: np.ndarray, threshold: float
                          ) -> tuple[float, ...]:
    """Each letter's own threshold: the lowest, from its floor (``letter_threshold_floor``: 0.9, Pe's higher)
    up to the global ``threshold``, at which the faces read as that letter pass the global rule (>= 99.8%
    right, and >= 99% within 0.05 above it) with no wrong read at all among them: a letter the network never
    mistakes (on the held-out fonts) need not wait for the cap, a letter it does mistake keeps the global one."""
    out = []
    for i in range(len(LETTERS)):
        floor = letter_threshold_floor(LETTERS[i])
        chosen = max(threshold, floor)
        for t in np.linspace(floor, chosen, 11):
            kept = (best == i) & (conf >= t)
            edge = kept & (conf < t + 0.05)
            if kept.sum() >= 50 and right[kept].all() and (edge.sum() < 5 or right[edge].mean() >= 0.99):
                chosen = float(round(t, 4))
                break
        out.append(chosen)
    return tuple(out)


def calibrate(model: LetterModel, val: list[Sample], max_threshold: float) -> tuple[Calibration, dict[str, object]]:
    """Temperature, threshold and enrollment weights fitted on the held-out fonts' stills."""
    from vision.features import FaceInput

    scored = [model.score(FaceInput(s[0].astype(np.float32), 50.0)) for s in val]
    y = [s[1] // ORIENTATIONS for s in val]
    priors = [orientation_prior(s[2]) for s in val]

    def probs(t: float) -> tuple[list[np.ndarray], list[float]]:
        ps, nones = [], []
        for (z, zn, _), pr in zip(scored, priors, strict=True):
            p, p_none, _ = posterior(z / t, zn / t, pr)
            ps.append(p * (1 - p_none))
            nones.append(p_none)
        return ps, nones

    temps = np.exp(np.linspace(np.log(0.3), np.log(6), 40))
    temperature = float(min(temps, key=lambda t: nll(probs(t)[0], y)))
    ps, _ = probs(temperature)
    conf = np.array([p.max() for p in ps])
    right = np.array([int(np.argmax(p)) == yv for p, yv in zip(ps, y, strict=True)])
    # The lowest threshold above which the letters read are >= 99.8% right AND the stills just above
    # it (the next 0.05 of confidence) are >= 99% right: a margin, since an unseen renderer or
    # camera is read less surely than unseen fonts (the altsim stills showed it).
    threshold = max_threshold
    for t in np.linspace(0.4, max_threshold, 56):
        kept = conf >= t
        edge = kept & (conf < t + 0.05)
        if kept.any() and right[kept].mean() >= 0.998 and (edge.sum() < 5 or right[edge].mean() >= 0.99):
            threshold = float(t)
            break
    letter_thresholds = fit_letter_thresholds(conf, np.array([int(np.argmax(p)) for p in ps]), right, threshold)
    print("per-letter thresholds: " + ", ".join(f"{x.value} {t:.2f}" for x, t in zip(LETTERS, letter_thresholds, strict=True)),
          flush=True)
    print(f"held-out fonts: top-1 {right.mean():.4f}, temperature {temperature:.2f}; threshold {threshold:.2f} "
          f"reads {np.mean(conf >= threshold):.4f} of stills, {right[conf >= threshold].mean():.4f} of them right",
          flush=True)
    edges = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0001]
    table = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        sel = (conf >= lo) & (conf < hi)
        if sel.any():
            table.append([lo, min(hi, 1.0), int(sel.sum()), round(float(conf[sel].mean()), 4),
                          round(float(right[sel].mean()), 4)])
            print(f"  confidence [{lo:.2f}, {min(hi, 1):.2f}): n {sel.sum():4d}, mean {conf[sel].mean():.3f}, "
                  f"right {right[sel].mean():.3f}", flush=True)

    # enrollment: per held-out dreidel, the first 3 stills of each letter teach, the rest query
    by_group: dict[int, list[int]] = {}
    for i, s in enumerate(val):
        by_group.setdefault(s[3], []).append(i)
    queries: list[tuple[int, np.ndarray]] = []
    for idxs in by_group.values():
        seen: dict[int, int] = {}
        protos, labels, ask = [], [], []
        for i in idxs:
            li = y[i]
            if seen.get(li, 0) < 3:
                seen[li] = seen.get(li, 0) + 1
                z, _, emb = scored[i]
                o = int(np.argmax(z[li] / temperature + np.log(priors[i])))
                protos.append(emb[o])
                labels.append(li)
            else:
                ask.append(i)
        if protos:
            for i in ask:
                queries.append((i, enrolled_similarity(scored[i][2], np.stack(protos), np.array(labels))))
    q_y = [y[i] for i, _ in queries]

    def enrolled(weight: float, t2: float) -> list[np.ndarray]:
        out = []
        for i, sim in queries:
            z, zn, _ = scored[i]
            p, p_none, _ = posterior((z / temperature + weight * sim) / t2, zn / temperature / t2, priors[i])
            out.append(p * (1 - p_none))
        return out

    best = (nll(enrolled(0.0, 1.0), q_y), 0.0, 1.0)
    for weight in (1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0):
        for t2 in np.exp(np.linspace(np.log(0.5), np.log(8), 16)):
            score = nll(enrolled(weight, float(t2)), q_y)
            if score < best[0]:
                best = (score, weight, float(t2))
    _, weight, t2 = best
    ep, gp = enrolled(weight, t2), enrolled(0.0, 1.0)

    def rates(ps: list[np.ndarray]) -> tuple[float, float, float]:
        read = [(int(np.argmax(p)) == yv) for p, yv in zip(ps, q_y, strict=True) if p.max() >= threshold]
        n = len(ps)
        return sum(read) / n, (n - len(read)) / n, (len(read) - sum(read)) / n

    g, e = rates(gp), rates(ep)
    print(f"held-out dreidels (right/unreadable/wrong): generic {g[0]:.4f}/{g[1]:.4f}/{g[2]:.4f} -> "
          f"taught {e[0]:.4f}/{e[1]:.4f}/{e[2]:.4f} (weight {weight}, temperature {t2:.2f})", flush=True)
    report = {"held_out_top1": round(float(right.mean()), 4), "held_out_read": round(float(np.mean(conf >= threshold)), 4),
              "held_out_read_right": round(float(right[conf >= threshold].mean()), 4), "reliability": table,
              "held_out_generic": [round(v, 4) for v in g], "held_out_taught": [round(v, 4) for v in e]}
    return Calibration(temperature, threshold, weight, t2, EMBEDDING, letter_thresholds=letter_thresholds), report


def recalibrate(args: argparse.Namespace, train_fonts: list[str], held: list[str], t0: float) -> None:
    """Refit temperature, threshold and enrollment of the network in ``args.out`` on freshly read stills."""
    side = args.out.with_suffix(".json")
    old = json.loads(side.read_text())
    side.write_text(json.dumps({**old, "temperature": 1.0, "threshold": 0.5, "enroll_weight": 0.0,
                                "enroll_temperature": 1.0}))
    try:
        _, val = generate(args, train_fonts, held, training=False)
        print(f"{len(val)} calibration faces in {time.time() - t0:.0f} s", flush=True)
        calibration, report = calibrate(LetterModel.load(args.out), val, args.max_threshold)
    except BaseException:
        side.write_text(json.dumps(old, indent=1) + "\n")  # leave the old, working calibration in place
        raise
    meta = {**old.get("meta", {}), **report, "recalibrated": True}
    final = replace(calibration, meta=meta)
    side.write_text(json.dumps(final.to_json(), indent=1) + "\n")
    try:
        final = calibrate_small_faces(args, held, side, final)
        final = calibrate_taught_faces(args, held, final)
    except BaseException:
        side.write_text(json.dumps(old, indent=1) + "\n")
        raise
    side.write_text(json.dumps(final.to_json(), indent=1) + "\n")
    print(f"wrote {side} in {time.time() - t0:.0f} s", flush=True)


#: the committed model: a network trained afresh on plain dreidels and twin stills, then fine-tuned on
#: dreidels with engraved letters, wood grain and bold strokes (``--recipe`` runs these stages in order)
RECIPE: tuple[tuple[str, ...], ...] = (
    ("--synth", "3000", "--twin", "400", "--val-styles", "40", "--epochs", "12", "--styles", "plain", "--seed", "1"),
    ("--synth", "1500", "--twin", "0", "--val-styles", "40", "--epochs", "4", "--styles", "varied", "--seed", "3",
     "--lr", "1e-3", "--init", "{previous}"),
    # session 16: two fine-tune stages on worn paint, the decorative print faces and twin stills lettered in the
    # training fonts (session 15's stages 1-2 with build seeds 5 and 6 instead of 7 and 17, which put the twin's
    # training stills on the face-size fit's seeds)
    ("--synth", "2000", "--twin", "300", "--val-styles", "40", "--epochs", "5", "--styles", "worn", "--extra-fonts",
     "--twin-train-fonts", "--seed", "5", "--lr", "1e-3", "--init", "{previous}"),
    ("--synth", "2000", "--twin", "300", "--val-styles", "40", "--epochs", "5", "--styles", "worn", "--extra-fonts",
     "--twin-train-fonts", "--seed", "6", "--lr", "1e-3", "--init", "{previous}"),
)


def run_recipe(args: argparse.Namespace) -> None:
    """Build the committed model from nothing: every stage of ``RECIPE``, the last one writing ``--out``."""
    import subprocess
    import tempfile

    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="letters_") as tmp:
        previous = ""
        for i, stage in enumerate(RECIPE):
            out = args.out if i == len(RECIPE) - 1 else Path(tmp) / f"stage{i + 1}.onnx"
            cmd = [sys.executable, __file__, *[a.replace("{previous}", previous) for a in stage], "--out", str(out),
                   "--workers", str(args.workers)]
            if args.cache is not None:
                cmd += ["--cache", str(args.cache)]
            if i < len(RECIPE) - 1:  # only the final network's thresholds by face size matter
                cmd += ["--small-faces", "0", "--taught-faces", "0"]
            print(f"== stage {i + 1}/{len(RECIPE)}: {' '.join(cmd[1:])}", flush=True)
            subprocess.run(cmd, check=True)
            previous = str(out)
    print(f"recipe done in {time.time() - t0:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synth", type=int, default=4000, help="letter_synth training stills")
    ap.add_argument("--twin", type=int, default=600, help="digital-twin training stills")
    ap.add_argument("--jitters", type=int, default=2, help="jittered cuts per still (besides the true and the pose's)")
    ap.add_argument("--val-styles", type=int, default=40, help="held-out dreidels for calibration (30 stills each)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--max-threshold", type=float, default=0.95, help="cap on the unreadable threshold")
    ap.add_argument("--cache", type=Path, default=None, help="keep/reuse the rendered samples in this folder")
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--styles", choices=["plain", "varied", "finishes", "worn"], default="varied",
                    help="letter_synth dreidels: plain (DreidelStyle.random), also engraved, grained, bolder (varied), "
                         "or half of them also metal, faint, outlined, brushed, in harder scenes (finishes), or varied "
                         "and three in ten with rubbed-off paint (worn; the calibration stills too)")
    ap.add_argument("--extra-fonts", action="store_true",
                    help="also train on the print-like decorative fonts of culmus-fancy and fonts-ldco "
                         "(letter_synth.extra_training_fonts; scripts/install-system-deps.sh installs them)")
    ap.add_argument("--twin-train-fonts", action="store_true",
                    help="letter the twin's training stills in the training fonts (without it, in the twin's own, "
                         "which include held-out families)")
    ap.add_argument("--sizes", choices=["any", "small", "confusable"], default="any",
                    help="any: letter_synth's dreidels 40-150 px long in small pictures; small: mostly 12-34 px faces in "
                         "640x480 pictures, and twin stills in training fonts stored as MJPG stores a frame; confusable: "
                         "mostly Nun and Gimel, at 12-34 px faces and at 34-64 px faces with small glyphs too, and the "
                         "same twin stills")
    ap.add_argument("--hedge", action="store_true",
                    help="train each Nun and Gimel face with a target split between the two as far as the face looks "
                         "the same with the other letter painted on (a Gimel whose foot is lost), see HEDGE_DIFF")
    ap.add_argument("--pair-weight", type=float, default=0.0,
                    help="extra loss on a Nun or Gimel face's probability of the other letter (0: none)")
    ap.add_argument("--init", type=Path, default=None, help="fine-tune this exported network instead of starting afresh")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    ap.add_argument("--recalibrate", action="store_true",
                    help="keep the network in --out, only render the calibration stills again and refit (after a "
                         "change to vision/pose.py); a few minutes")
    ap.add_argument("--small-faces", type=int, default=None,
                    help="held-out-font stills with 12-34 px faces on which the Nun/Gimel thresholds by face size are "
                         f"fitted (default {RATE_FIT_STILLS} for the rate rule, 1000 for the margin rule; 0: none, a Nun "
                         "or Gimel is then read only on faces of 26 px or more)")
    ap.add_argument("--small-face-rule", choices=["rate", "margin"], default="rate",
                    help=f"rate: one threshold for the 14-34 px faces (under 14 px never), the lowest at which at most "
                         f"{100 * SMALL_FACE_MAX_WRONG_SHARE:.1f}%% of their Nun/Gimel reads are wrong at "
                         f"{100 * SMALL_FACE_BOUND_CONFIDENCE:.0f}%% confidence (letter_synth's fit stills worn three in "
                         "ten); "
                         "margin (before session 16): per bin, just above its surest wrong read")
    ap.add_argument("--large-faces", type=int, default=1500,
                    help="held-out-font stills with 34-64 px faces on which the last, open-ended face-size bin is "
                         "fitted (0: none; faces of 34 px or more then keep the letters' own threshold)")
    ap.add_argument("--refit-small-faces", action="store_true",
                    help="keep the network in --out and its calibration, only fit the Nun/Gimel thresholds by face "
                         "size again (--small-faces stills)")
    ap.add_argument("--taught-faces", type=int, default=960,
                    help="held-out-font dreidels, taught and asked at small sizes, on which the taught-face rules are "
                         "fitted (0: none; taught faces then never vouch for a Nun or Gimel that is refused)")
    ap.add_argument("--refit-taught-faces", action="store_true",
                    help="keep the network in --out and its calibration, only fit the taught-face rule again")
    ap.add_argument("--taught-rows", type=Path, default=None, help="save the taught-face fit's rows (.npy)")
    ap.add_argument("--recipe", action="store_true", help="build the committed model from nothing (every stage)")
    args = ap.parse_args()
    if args.small_faces is None:
        args.small_faces = RATE_FIT_STILLS if args.small_face_rule == "rate" else 1000
    if args.recipe:
        run_recipe(args)
        return
    try:
        import torch  # noqa: F401
    except ImportError:
        sys.exit("PyTorch is needed to build the model: .venv/bin/pip install -e '.[model]'")

    fonts = list(hebrew_fonts())
    if not fonts:
        sys.exit("no Hebrew fonts found: run scripts/install-system-deps.sh")
    held = [f for f in fonts if font_family(f) in HELD_OUT_FAMILIES]
    train_fonts = [f for f in fonts if f not in held]
    if not held:  # an unusual font set: hold out every fifth font instead
        held, train_fonts = fonts[::5], [f for i, f in enumerate(fonts) if i % 5]
    if args.extra_fonts:
        extra = list(extra_training_fonts())
        if not extra:
            sys.exit("--extra-fonts: none of culmus-fancy's or fonts-ldco's fonts is installed: "
                     "run scripts/install-system-deps.sh")
        train_fonts += extra
    print(f"{len(train_fonts)} training fonts, {len(held)} held-out fonts", flush=True)

    if args.twin and TWIN_SEED0 + args.seed * 100_000 + args.twin > SMALL_TWIN_SEED0 and not (
            args.recalibrate or args.refit_small_faces or args.refit_taught_faces):
        # the twin's training seeds would run into the face-size fit's (and, from --seed 10, the benches') stills
        sys.exit(f"--seed {args.seed} with --twin {args.twin}: twin training seeds from {TWIN_SEED0 + args.seed * 100_000}"
                 f" reach the face-size calibration's ({SMALL_TWIN_SEED0} on); use --seed 6 or lower, or --twin 0")
    t0 = time.time()
    if args.recalibrate:
        recalibrate(args, train_fonts, held, t0)
        return
    if args.refit_taught_faces:
        side = args.out.with_suffix(".json")
        calibration = calibrate_taught_faces(args, held, LetterModel.load(args.out).calibration)
        side.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
        print(f"wrote {side} in {time.time() - t0:.0f} s", flush=True)
        return
    if args.refit_small_faces:
        side = args.out.with_suffix(".json")
        calibration = calibrate_small_faces(args, held, side, LetterModel.load(args.out).calibration)
        calibration = calibrate_taught_faces(args, held, calibration)
        side.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
        print(f"wrote {side} in {time.time() - t0:.0f} s", flush=True)
        return
    key = f"{args.styles}_s{args.seed}_n{args.synth}_t{args.twin}_j{args.jitters}_v{args.val_styles}"
    key += "" if args.sizes == "any" else f"_{args.sizes}"
    key += "_hedge" if args.hedge else ""
    key += "_xf" if args.extra_fonts else ""
    key += "_ttf" if args.twin_train_fonts else ""
    cache = None if args.cache is None else args.cache / f"letters_{key}.npz"
    if cache is not None and cache.is_file():
        with np.load(cache) as z:
            th = z["th"].tolist() if "th" in z.files else [0.0] * len(z["ty"])
            train_s = list(zip(z["tx"], z["ty"].tolist(), z["tc"].tolist(), z["tg"].tolist(), th, strict=True))
            val = list(zip(z["vx"], z["vy"].tolist(), z["vc"].tolist(), z["vg"].tolist(), [0.0] * len(z["vy"]),
                           strict=True))
        print(f"read {len(train_s)} + {len(val)} samples from {cache}", flush=True)
    else:
        train_s, val = generate(args, train_fonts, held)
        if cache is not None:
            cache.parent.mkdir(parents=True, exist_ok=True)
            np.savez(cache, tx=np.stack([s[0] for s in train_s]), ty=[s[1] for s in train_s],
                     tc=[s[2] for s in train_s], tg=[s[3] for s in train_s], th=[s[4] for s in train_s],
                     vx=np.stack([s[0] for s in val]),
                     vy=[s[1] for s in val], vc=[s[2] for s in val], vg=[s[3] for s in val])
    counts = np.bincount([s[1] for s in train_s], minlength=CLASSES)
    print(f"{len(train_s)} training faces ({counts[NONE_CLASS]} not a letter), {len(val)} calibration faces, "
          f"in {time.time() - t0:.0f} s", flush=True)
    if args.hedge:
        shares = np.array([s[4] for s in train_s if s[1] != NONE_CLASS and LETTERS[s[1] // ORIENTATIONS] in PAIR])
        print(f"hedged: {int((shares > 0).sum())} of {len(shares)} Nun/Gimel faces ({int((shares >= 0.5).sum())} "
              f"split evenly), mean share {float(shares.mean()) if len(shares) else 0.0:.3f}", flush=True)

    net = train(train_s, args.epochs, args.seed, args.init, args.lr, args.pair_weight)
    export(net, args.out)
    side = args.out.with_suffix(".json")
    side.write_text(json.dumps(Calibration(1.0, 0.5, 0.0, 1.0, EMBEDDING).to_json()))
    model = LetterModel.load(args.out)
    calibration, report = calibrate(model, val, args.max_threshold)
    meta: dict[str, object] = {
        "built_by": "scripts/build_letter_model.py", "seed": args.seed, "synth_stills": args.synth,
        "twin_stills": args.twin, "styles": args.styles, "sizes": args.sizes, "pair_weight": args.pair_weight, "hedge": args.hedge, "extra_fonts": args.extra_fonts,
        "twin_train_fonts": args.twin_train_fonts, "epochs": args.epochs, "init": None if args.init is None else args.init.name, "training_faces": len(train_s),
        "train_fonts": [Path(f).name for f in train_fonts], "held_out_fonts": [Path(f).name for f in held],
        "letters": [letter.value for letter in Letter], **report,
    }
    calibration = replace(calibration, meta=meta)
    side.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
    calibration = calibrate_small_faces(args, held, side, calibration)
    calibration = calibrate_taught_faces(args, held, calibration)
    side.write_text(json.dumps(calibration.to_json(), indent=1) + "\n")
    print(f"wrote {args.out} and {side} in {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
