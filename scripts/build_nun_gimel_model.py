#!/usr/bin/env python3
"""Build the Nun/Gimel second look ``vision/models/nun_gimel.onnx`` (+ ``nun_gimel.json``), H47 (session 12).

The letter network refuses most Nuns: a Nun or Gimel must reach a threshold fitted per face size
(``confusable_bins``, about 0.99) because held-out-font Gimels whose foot is lost are read as Nun at up to
0.987. The second look is a separate, smaller witness for that pair only: a binary Nun-or-Gimel network on a
larger patch of the face (``PAIR_PATCH`` = 48 px instead of 32, the same two channels), trained on the training
fonts only, every quarter turn (it is read on all four turns, logits averaged). A Nun or Gimel that the letter
network reads at the letter's own threshold, steadily, but that its face size refuses, is read when the second
look names the same letter on the face's cut and on every nudged cut at least at the threshold fitted for that
face size (``pair_bins`` in the json): on held-out-font dreidels read exactly as at run time, just above the most
confident wrong read that the rule would have let through, with at least ``MIN_READS`` right reads above it; a
size where no threshold is safe is left to the letter network's rules (refused, as before).

1. Render Nun and Gimel stills of random dreidels (letter_synth's plain, varied and finished styles, training
   fonts only; faces 12-34 px, 34-64 px and letter_synth's usual sizes) and of the twin lettered in training fonts
   stored as MJPG stores a frame; cut each face by its true outline, two jittered copies and the pose's outline.
2. Train (PyTorch, CPU, a few minutes) and export to ONNX; check cv2.dnn agrees.
3. Calibrate on held-out-font dreidels (``HELD_OUT_FAMILIES``; the build script's small-face seeds: twin
   6,700,000+, letter_synth 5,000,000+ and 5,400,000+, never a benchmark's or the session's held-out seeds),
   read by the committed letter network (or ``--letter-model``) exactly as ``LetterRecognizer.read`` reads (pose, cut, network,
   steadiness) plus the second look.

Needs the optional ``model`` extra (``.venv/bin/pip install -e '.[model]'``); the table does not.
Usage: .venv/bin/python scripts/build_nun_gimel_model.py --cache /tmp/h47/cache     (every step)
       .venv/bin/python scripts/build_nun_gimel_model.py --recalibrate --cache DIR (refit the json only, e.g. after
           a new letters.onnx: the calibration stills are read again by it)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass, replace
from multiprocessing import get_context
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_letter_model import (  # noqa: E402
    LARGE_FACE_PX,
    LARGE_SYNTH_SEED0,
    RATE_FIT_STILLS,
    RATE_STEP,
    SMALL_FACE_EDGES,
    SMALL_FACE_MAX_WRONG_SHARE,
    SMALL_FACE_PX,
    SMALL_SYNTH_SEED0,
    SMALL_TWIN_SEED0,
    SYNTH_SIZES,
    _near,
    calibration_still,
    clockwise,
    conv_stage,
    export,
    jitter,
    wrong_share_bound,
)

from controller.rules.letters import Letter  # noqa: E402
from vision.features import CHANNELS, face_input  # noqa: E402
from vision.letter_synth import HELD_OUT_FAMILIES, DreidelStyle, font_family, hebrew_fonts, render_still  # noqa: E402
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import (  # noqa: E402
    DEFAULT_MODEL,
    DEFAULT_PAIR_MODEL,
    LETTERS,
    MIN_CONTRAST,
    PAIR_PATCH,
    ConfusableBin,
    LetterModel,
    LetterRecognizer,
    PairConfirm,
    PairLook,
)

PAIR = (Letter.NUN, Letter.GIMEL)
#: training stills' seeds (apart from every other stage's, benchmark's and held-out range)
TRAIN_SYNTH_SEED0 = 4_700_000
TRAIN_TWIN_SEED0 = 6_500_000
#: a bin's threshold lies this far above the most confident wrong read the rule would let through there ...
MARGIN = 0.005
#: ... never below this (the second look must be sure of the letter, not lean to it) ...
FLOOR = 0.95
#: ... and is used only when it adds at least this many right reads the face size refused; at most this high
MIN_READS = 20
MAX_THRESHOLD = 0.999
#: the second look is asked only from this face size up (below 14 px no Nun/Gimel is ever read)
MIN_SIDE_PX = 14.0

Sample = tuple[np.ndarray, int]  # (2 x PAIR_PATCH x PAIR_PATCH float16, 0 Nun / 1 Gimel)


def _cuts(image: np.ndarray, truth: np.ndarray, label: int, rng: np.random.Generator, jitters: int = 2
          ) -> list[Sample]:
    quads = [truth] + [jitter(truth, rng) for _ in range(jitters)]
    pose = find_resting_dreidel(image)
    if pose is not None and pose.face_quad is not None and _near(pose.face_quad, truth):
        quads.append(np.asarray(pose.face_quad, np.float64))
    out = []
    for q in quads:
        f = face_input(image, q, size=PAIR_PATCH)
        if f.contrast >= MIN_CONTRAST:
            out.append((f.tensor.astype(np.float16), label))
    return out


def synth_job(job: tuple[int, int, list[str]]) -> list[Sample]:
    """``count`` letter_synth stills, Nun and Gimel in turn: half with a 12-34 px face (400 x 300 picture), a
    quarter 34-64 px (half of those with a small glyph), a quarter letter_synth's usual sizes; plain, varied and
    finished styles in thirds."""
    seed, count, fonts = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    out: list[Sample] = []
    for i in range(count):
        r = rng.random()
        make = DreidelStyle.random if r < 1 / 3 else DreidelStyle.random_varied if r < 2 / 3 else DreidelStyle.random_finished
        style = make(rng, fonts)
        along = style.body_len + style.tip_len + style.handle_len
        label = i % 2
        r = rng.random()
        if r < 0.5:
            size, length = (400, 300), float(rng.uniform(*SMALL_FACE_PX) * along)
        elif r < 0.75:
            size, length = (640, 480), float(rng.uniform(*LARGE_FACE_PX) * along)
            if rng.random() < 0.5:
                style = replace(style, glyph_height=float(rng.uniform(0.35, 0.55)))
        else:
            size, length = SYNTH_SIZES[int(rng.integers(len(SYNTH_SIZES)))], None
        s = render_still(style, PAIR[label], rng, size=size, length_px=length)
        out += _cuts(s.image, clockwise(s.face_quad), label, rng)
    return out


def twin_job(job: tuple[int, int, list[str]]) -> list[Sample]:
    """``count`` twin stills lettered in training fonts, a Nun or Gimel up, stored as the table's MJPG does."""
    from dataclasses import replace as dc_replace

    from hardware.sim.dreidel import resolve_style
    from hardware.sim.recorder import render_still as twin_render

    seed0, count, fonts = job
    cv2.setNumThreads(1)
    out: list[Sample] = []
    for i in range(count):
        seed = seed0 + i
        rng = np.random.default_rng(seed)
        style = dc_replace(resolve_style(None, seed), font_path=fonts[int(rng.integers(len(fonts)))])
        label = i % 2
        image, truth = twin_render(style, PAIR[label], seed)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(80, 96))])
        image = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image
        out += _cuts(image, clockwise(np.array(truth["face_quad_px"], np.float64)), label, rng)
    return out


def render_training(args: argparse.Namespace, train_fonts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    cache = args.cache / "train.npz" if args.cache else None
    if cache is not None and cache.is_file():
        d = np.load(cache)
        return d["x"], d["y"]
    t0 = time.time()
    chunk = 50
    jobs_s = [(TRAIN_SYNTH_SEED0 + k, min(chunk, args.synth - k * chunk), train_fonts)
              for k in range((args.synth + chunk - 1) // chunk)]
    jobs_t = [(TRAIN_TWIN_SEED0 + k * chunk, min(chunk, args.twin - k * chunk), train_fonts)
              for k in range((args.twin + chunk - 1) // chunk)]
    with get_context("spawn").Pool(args.workers) as pool:
        parts_t = pool.map_async(twin_job, jobs_t, chunksize=1)
        parts = pool.map(synth_job, jobs_s, chunksize=1) + parts_t.get()
    samples = [s for p in parts for s in p]
    x = np.stack([s[0] for s in samples])
    y = np.array([s[1] for s in samples], np.int64)
    print(f"rendered {len(x)} training faces in {time.time() - t0:.0f} s", flush=True)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, x=x, y=y)
    return x, y


def build_net() -> object:
    """Three conv stages (12, 24, 48 channels) on 48 x 48, a 64-wide layer, 2 logits (Nun, Gimel)."""
    import torch
    from torch import nn

    class PairNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(*conv_stage(CHANNELS, 12), *conv_stage(12, 24), *conv_stage(24, 48))
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(48 * (PAIR_PATCH // 8) ** 2, 64), nn.ReLU(),
                                      nn.Dropout(0.3), nn.Linear(64, 2))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.head(self.features(x))

    return PairNet()


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random quarter turns, the other polarity, gain and noise (as the letter network is trained)."""
    out = np.stack([np.rot90(x[i], int(rng.integers(4)), axes=(1, 2)) for i in range(len(x))])
    flip = rng.random(len(x)) < 0.3
    out[flip, 1] *= -1
    gain = rng.uniform(0.75, 1.25, (len(x), 1, 1, 1)).astype(np.float32)
    out = out * gain + rng.normal(0, rng.uniform(0, 0.08), out.shape).astype(np.float32)
    out[:, 0] = np.clip(out[:, 0], 0, 1.5)
    out[:, 1] = np.clip(out[:, 1], -1.5, 1.5)
    return out.astype(np.float32)


def train(x: np.ndarray, y: np.ndarray, epochs: int, seed: int, lr: float) -> object:
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    xf = x.astype(np.float32)
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)  # type: ignore[attr-defined]
    batch = 128
    steps = epochs * ((len(xf) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(epochs):
        net.train()  # type: ignore[attr-defined]
        order = rng.permutation(len(xf))
        total, right, t0 = 0.0, 0, time.time()
        for s in range(0, len(xf), batch):
            idx = order[s:s + batch]
            out = net(torch.from_numpy(augment(xf[idx], rng)))  # type: ignore[operator]
            labels = torch.from_numpy(y[idx])
            loss = loss_fn(out, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
            right += int((out.argmax(1).numpy() == y[idx]).sum())
        print(f"  epoch {epoch + 1}/{epochs}: loss {total / len(xf):.4f}, right {right / len(xf):.4f} "
              f"({time.time() - t0:.0f} s)", flush=True)
    net.eval()  # type: ignore[attr-defined]
    return net


# -- calibration on held-out fonts ----------------------------------------------------------------------

#: the letters of the calibration stills (as the build script's face-size fit draws them)
CALIB_LETTERS = (Letter.NUN, Letter.GIMEL, Letter.HEY, Letter.NUN, Letter.GIMEL, Letter.SHIN, Letter.PE)
#: (side px, true letter, best letter, confidence, steadiness, the second look's least p(best) over the 7 cuts)
Row = tuple[float, int, int, float, float, float]


def calib_job(job: tuple[str, int, int, list[str], str, bool]) -> tuple[list[Row], list[np.ndarray]]:
    """Held-out-font stills drawn exactly as ``build_letter_model.small_face_job`` draws them (same seeds), read
    by the letter network (``--letter-model``, the committed one by default) as ``read`` reads: a row per face, and for every Nun/Gimel read at the
    letter's own threshold, steadily, the second look's inputs of its seven cuts (the face's and the nudged
    ones; zeros otherwise), so that any second look is scored on them afterwards (``agreements``)."""
    from vision.recognizer import nudged_quads

    kind, seed0, count, fonts, letter_model, worn = job
    cv2.setNumThreads(1)
    reader = LetterRecognizer(LetterModel.load(Path(letter_model)))
    floor = max(reader.letter_thresholds[LETTERS.index(x)] for x in PAIR)
    out: list[Row] = []
    inputs: list[np.ndarray] = []
    for i in range(count):
        image, letter = calibration_still(kind, seed0 + i, CALIB_LETTERS[i % len(CALIB_LETTERS)], fonts, worn)
        pose = find_resting_dreidel(image)
        if pose is None:
            continue
        got = reader.assess(image, pose)
        if got is None or (got[3] >= SMALL_FACE_EDGES[-2]) != (kind == "large"):
            continue
        best, conf, steady, side = got
        faces = np.zeros((7, CHANNELS, PAIR_PATCH, PAIR_PATCH), np.float16)
        if LETTERS[best] in PAIR and conf >= floor and steady >= floor:
            quad = np.asarray(pose.face_quad, np.float64).reshape(4, 2)
            faces = np.stack([face_input(image, q, size=PAIR_PATCH).tensor for q in [quad, *nudged_quads(quad)]]
                             ).astype(np.float16)
        out.append((side, LETTERS.index(letter), best, conf, steady, 0.0))
        inputs.append(faces)
    return out, inputs


def calib_rows(args: argparse.Namespace, held: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The calibration rows and their second-look inputs (cached in ``--cache``: they do not depend on the
    second look)."""
    # the rows depend on the letter network that reads the stills (not on the second look)
    worn = args.rule == "rate"  # the letter build's rate rule fits on worn letter_synth dreidels too
    cache = (args.cache / f"calib_{args.letter_model.stem}_{args.small_faces}{'_worn' if worn else ''}.npz"
             if args.cache else None)
    if cache is not None and cache.is_file():
        d = np.load(cache)
        return d["rows"], d["faces"]
    t1 = time.time()
    chunk = 20
    jobs: list[tuple[str, int, int, list[str], str, bool]] = []
    for kind, seed0, n in (("twin", SMALL_TWIN_SEED0, args.small_faces // 2),
                           ("synth", SMALL_SYNTH_SEED0, args.small_faces // 2),
                           ("large", LARGE_SYNTH_SEED0, args.large_faces)):
        jobs += [(kind, seed0 + k, min(chunk, n - k), held, str(args.letter_model), worn) for k in range(0, n, chunk)]
    with get_context("spawn").Pool(args.workers) as pool:
        parts = pool.map(calib_job, jobs, chunksize=1)
    rows = np.array([r for p in parts for r in p[0]], np.float64).reshape(-1, 6)
    faces = np.stack([f for p in parts for f in p[1]]) if len(rows) else np.zeros((0, 7, CHANNELS, PAIR_PATCH,
                                                                                    PAIR_PATCH), np.float16)
    print(f"calibration: {len(rows)} held-out-font faces read in {time.time() - t1:.0f} s", flush=True)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, rows=rows, faces=faces)
    return rows, faces


def agreements(look: PairLook, rows: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """``rows`` with their last column set to the second look's agreement with the best letter (the least
    p(letter) over the seven cuts; 0 where no inputs were kept)."""
    out = rows.copy()
    gimel = LETTERS.index(Letter.GIMEL)
    for k in range(len(rows)):
        if not faces[k].any():
            continue
        p = look.p_gimel(list(faces[k].astype(np.float32)))
        out[k, 5] = float((p if int(rows[k, 2]) == gimel else 1.0 - p).min())
    return out


def fit_pair_bins(rows: np.ndarray, calibration_bins: tuple[ConfusableBin, ...], letter_threshold: float,
                  edges: tuple[float, ...] = SMALL_FACE_EDGES, max_wrong_share: float | None = None,
                  small_rule: SmallRule | None = None) -> tuple[tuple[ConfusableBin, ...], list[list[object]]]:
    """The second look's agreement a Nun or Gimel read must reach when the letter network reads it at the letter's
    own threshold, steadily, but its face size refuses it: one threshold for every face from ``MIN_SIDE_PX`` up,
    ``MARGIN`` above the most confident wrong read among ALL such reads of the calibration (refused by their size
    or not: what the second look says of a wrong read does not depend on the size rule, and more wrong reads are
    more evidence), and never below ``FLOOR`` (the second look must be sure, not lean); used only when it adds at
    least ``MIN_READS`` right reads that the face size refused (None everywhere otherwise). Also a report row per
    bin.

    With ``max_wrong_share`` (the rate rule, session 16) the faces of 14-34 px get the threshold of
    :func:`fit_small_rule` instead: the Nun/Gimel reads that either rule lets through, the face size's and the
    second look's together, are at most that share wrong at 95% confidence (``wrong_share_bound``): the letter
    build fits the size thresholds the same way, and the second look may only add reads within what is left of the
    bound (``small_rule``: that fit, when the caller has made it already). The large faces keep the margin rule, on
    their own wrong reads."""
    confusable = [LETTERS.index(x) for x in PAIR]
    side, truth, best, conf, steady, agree = rows.T
    truth, best = truth.astype(int), best.astype(int)
    at_size = np.array([_threshold(calibration_bins, s) for s in side])
    refused = np.isnan(at_size) | (np.minimum(conf, steady) < np.nan_to_num(at_size, nan=2.0))
    steady_read = np.isin(best, confusable) & (conf >= letter_threshold) & (steady >= letter_threshold) \
        & (side >= MIN_SIDE_PX)
    wrong_all = steady_read & (best != truth)
    if max_wrong_share is not None:
        # the small faces are the rate rule's: the margin rule speaks for the large ones, on their own wrong reads
        # (the 6000 worn small faces' surest, 0.991, would close the large faces to the second look)
        wrong_all = wrong_all & (side >= SMALL_FACE_EDGES[-2])
    worst = float(agree[wrong_all].max()) if wrong_all.any() else 0.0
    t = round(max(FLOOR, worst + MARGIN), 4)
    cand = steady_read & refused & ~np.isnan(at_size)
    added = int((cand & (best == truth) & (agree >= t)).sum())
    ok = t <= MAX_THRESHOLD and added >= MIN_READS
    small_t, small_ok = t, ok
    if max_wrong_share is not None:
        rule = small_rule or fit_small_rule(rows, calibration_bins, letter_threshold, max_wrong_share)
        small_ok = rule is not None
        small_t = rule.pair if rule is not None else t
    fitted: list[float | None] = []
    report: list[list[object]] = []
    lo = 0.0
    for hi in edges:
        sel = cand & (side >= lo) & (side < hi)
        wrong = sel & (best != truth)
        bin_t, bin_ok = (small_t, small_ok) if hi <= SMALL_FACE_EDGES[-2] else (t, ok)
        right = int((sel & (best == truth) & (agree >= bin_t)).sum())
        fitted.append(bin_t if bin_ok and lo >= MIN_SIDE_PX else None)
        report.append([lo, None if math.isinf(hi) else hi, int(sel.sum()), int(wrong.sum()),
                       round(float(agree[wrong].max()) if wrong.any() else 0.0, 4), fitted[-1], right])
        lo = hi
    by = SMALL_FACE_EDGES[-2] if max_wrong_share is not None else MIN_SIDE_PX
    print(f"second look: {int(wrong_all.sum())} wrong of {int((steady_read & (side >= by)).sum())} steady Nun/Gimel "
          f"reads from {by:.0f} px, the surest agreeing {worst:.4f}: threshold {t}"
          + ("" if max_wrong_share is None else
             f"; under {SMALL_FACE_EDGES[-2]:.0f} px by the rate rule: {small_t if small_ok else 'never'}"), flush=True)
    return tuple(ConfusableBin(e, t) for e, t in zip(edges, fitted, strict=True)), report


@dataclass(frozen=True)
class SmallRule:
    """What the rate rule fits for the faces of 14-34 px: the second look's threshold (``pair_bins``), its
    ``confirm`` step (None: none) and the right and wrong Nun/Gimel reads of both rules together on the fit."""

    pair: float
    confirm: PairConfirm | None
    right: int
    wrong: int


#: the candidates of the joint fit: the letter network's score from which ``confirm`` applies (steps of 0.005 from
#: the letter's threshold up to the size's), and the agreement it then needs
CONFIRM_SCORE_STEP = 0.005
CONFIRM_AGREEMENTS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)


def fit_small_rule(rows: np.ndarray, calibration_bins: tuple[ConfusableBin, ...], letter_threshold: float,
                   max_wrong_share: float = SMALL_FACE_MAX_WRONG_SHARE) -> SmallRule | None:
    """The rate rule's second look for faces of ``MIN_SIDE_PX``-34 px (the 6000 stills' faces; not pooled with the
    1500 large faces, whose clean reads loosened the confirm step to 0.97 / 0.75 and let two stored wrong reads
    through: twin 54002 spin 7's 17 px Gimel, synth 98,000,008's 46 px one), fitted with the face size's own thresholds
    (``calibration_bins``, the letter build's) fixed: among the thresholds ``p`` (``FLOOR`` to ``MAX_THRESHOLD`` in
    steps of ``RATE_STEP``) and ``confirm`` steps (a score from ``CONFIRM_SCORE_STEP`` steps, an agreement from
    ``CONFIRM_AGREEMENTS`` below ``p``), the one that reads the most right Nun/Gimel faces while the reads of both
    rules together stay within ``wrong_share_bound`` <= ``max_wrong_share`` and the second look adds at least
    ``MIN_READS`` right reads; on a tie the one with fewer wrong reads, then without a confirm step, then the
    stricter. None when no candidate holds the bound."""
    confusable = [LETTERS.index(x) for x in PAIR]
    side, truth, best, conf, steady, agree = rows.T
    truth, best = truth.astype(int), best.astype(int)
    score = np.minimum(conf, steady)
    at_size = np.array([_threshold(calibration_bins, s) for s in side])
    small = (side >= MIN_SIDE_PX) & (side < SMALL_FACE_EDGES[-2])
    steady_read = np.isin(best, confusable) & (conf >= letter_threshold) & (steady >= letter_threshold) & small
    by_size = steady_read & ~np.isnan(at_size) & (score >= np.nan_to_num(at_size, nan=2.0))
    cand = steady_read & ~np.isnan(at_size) & ~by_size
    right0, wrong0 = int((by_size & (best == truth)).sum()), int((by_size & (best != truth)).sum())
    ok_c, score_c, agree_c = (best == truth)[cand], score[cand], agree[cand]
    top = float(at_size[cand].max()) if cand.any() else letter_threshold
    scores = [round(letter_threshold + k * CONFIRM_SCORE_STEP, 4)
              for k in range(int(round((top - letter_threshold) / CONFIRM_SCORE_STEP)) + 1)]
    best_rule: tuple[tuple[int, int, bool, float, float, float], SmallRule] | None = None
    for k in range(int(round((MAX_THRESHOLD - FLOOR) / RATE_STEP)) + 1):
        p = round(FLOOR + k * RATE_STEP, 4)
        plain = agree_c >= p
        steps: list[tuple[float, float] | None] = [None] + [(s, v) for s in scores for v in CONFIRM_AGREEMENTS if v < p]
        for step in steps:
            extra = plain if step is None else plain | ((score_c >= step[0]) & (agree_c >= step[1]))
            right, wrong = right0 + int((extra & ok_c).sum()), wrong0 + int((extra & ~ok_c).sum())
            if int((extra & ok_c).sum()) < MIN_READS or wrong_share_bound(wrong, right + wrong) > max_wrong_share:
                continue
            confirm = None if step is None else PairConfirm(step[0], step[1], MIN_SIDE_PX, SMALL_FACE_EDGES[-2])
            # the most right reads; on a tie the fewest wrong, no confirm step, the surest second look, the highest step
            key = (right, -wrong, step is None, p, 2.0 if step is None else step[1], 2.0 if step is None else step[0])
            if best_rule is None or key > best_rule[0]:
                best_rule = (key, SmallRule(p, confirm, right, wrong))
    return None if best_rule is None else best_rule[1]


def _threshold(bins: tuple[ConfusableBin, ...], side: float) -> float:
    for b in bins:
        if side < b.below_px:
            return math.nan if b.threshold is None else b.threshold
    return 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synth", type=int, default=3000, help="letter_synth training stills (Nun and Gimel)")
    ap.add_argument("--twin", type=int, default=400, help="twin training stills (Nun and Gimel)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", type=Path, default=None, help="keep/reuse the rendered faces and calibration rows here")
    ap.add_argument("--out", type=Path, default=DEFAULT_PAIR_MODEL)
    ap.add_argument("--small-faces", type=int, default=None,
                    help=f"held-out-font calibration stills, 12-34 px faces (default {RATE_FIT_STILLS} for the rate "
                         "rule, 1000 for the margin rule)")
    ap.add_argument("--rule", choices=["rate", "margin"], default="rate",
                    help="rate: faces under 34 px get the lowest threshold at which their Nun/Gimel reads, the face "
                         f"size's and the second look's together, stay at most {100 * SMALL_FACE_MAX_WRONG_SHARE:.1f}%% wrong at "
                         "95%% confidence (letter_synth's stills worn three in ten, as the letter build fits); "
                         "margin (before session 16): just above the surest wrong read")
    ap.add_argument("--large-faces", type=int, default=1500, help="... and 34-64 px faces")
    ap.add_argument("--recalibrate", action="store_true", help="only refit the json of the network in --out")
    ap.add_argument("--letter-model", type=Path, default=DEFAULT_MODEL,
                    help="the letter network whose reads the second look backs (refit after a new letters.onnx)")
    ap.add_argument("--calib-only", action="store_true",
                    help="only read the calibration stills into --cache (they do not depend on the second look)")
    args = ap.parse_args()
    if args.small_faces is None:
        args.small_faces = RATE_FIT_STILLS if args.rule == "rate" else 1000
    fonts = list(hebrew_fonts())
    train_fonts = [f for f in fonts if font_family(f) not in HELD_OUT_FAMILIES]
    held = [f for f in fonts if font_family(f) in HELD_OUT_FAMILIES]
    if not held or not train_fonts:
        sys.exit("need fonts of both the training and the held-out families (fc-list :lang=he)")
    t0 = time.time()
    side_json = args.out.with_suffix(".json")
    if not args.recalibrate and not args.calib_only:
        x, y = render_training(args, train_fonts)
        print(f"{len(x)} faces ({int((y == 0).sum())} Nun, {int((y == 1).sum())} Gimel)", flush=True)
        net = train(x, y, args.epochs, args.seed, args.lr)
        export(net, args.out, PAIR_PATCH)
        side_json.write_text(json.dumps({"patch": PAIR_PATCH, "pair_bins": None, "meta": {}}, indent=1) + "\n")
    rows, faces = calib_rows(args, held)
    if args.calib_only:
        return
    rows = agreements(PairLook.load(args.out, require_bins=False), rows, faces)
    if args.cache:
        np.save(args.cache / f"rows_{args.out.stem}.npy", rows)
    cal = LetterModel.load(args.letter_model).calibration
    letter_threshold = max(cal.threshold_of(LETTERS.index(x)) for x in PAIR)
    share = SMALL_FACE_MAX_WRONG_SHARE if args.rule == "rate" else None
    small_rule = None if share is None else fit_small_rule(rows, cal.confusable_bins or (), letter_threshold, share)
    bins, report = fit_pair_bins(rows, cal.confusable_bins or (), letter_threshold, max_wrong_share=share,
                                 small_rule=small_rule)
    confirm = None if small_rule is None else small_rule.confirm
    if small_rule is not None:
        print(f"rate rule, faces of {MIN_SIDE_PX:.0f}-{SMALL_FACE_EDGES[-2]:.0f} px: second look from {small_rule.pair}, "
              f"confirm {confirm}; {small_rule.right} right and {small_rule.wrong} wrong Nun/Gimel reads of both "
              f"rules (bound {wrong_share_bound(small_rule.wrong, small_rule.right + small_rule.wrong):.2%})")
    print("second look by face size (px from-to: candidates the size refused, wrong among them, worst wrong "
          "agreement, threshold, right reads added):")
    for r in report:
        print(f"  {r[0]:4.0f}-{'' if r[1] is None else f'{r[1]:4.0f}':4s}: {r[2]:4d} {r[3]:3d} {r[4]:.4f} "
              f"{'never' if r[5] is None else r[5]} {r[6]}")
    trained = {"synth": args.synth, "twin": args.twin, "epochs": args.epochs, "seed": args.seed, "lr": args.lr}
    if args.recalibrate:  # the network was trained before: keep what its json said of that, not this run's defaults
        before = dict(json.loads(side_json.read_text()).get("meta") or {})
        trained = {k: before[k] for k in (*trained, "command") if k in before}
    meta = {"built_by": "scripts/build_nun_gimel_model.py", **trained, "small_faces": args.small_faces,
            "large_faces": args.large_faces, "rule": args.rule, "calibration_faces": len(rows), "report": report,
            "letter_model": args.letter_model.name}
    side_json.write_text(json.dumps({"patch": PAIR_PATCH, "pair_bins": [b.to_json() for b in bins],
                                     "confirm": None if confirm is None else confirm.to_json(), "meta": meta},
                                    indent=1) + "\n")
    print(f"wrote {side_json} ({time.time() - t0:.0f} s in all)")


if __name__ == "__main__":
    main()
