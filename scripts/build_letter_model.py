#!/usr/bin/env python3
"""Build the generic letter model ``vision/models/letters.npz`` from data this repo makes.

1. Render overhead stills of random dreidels (``vision.letter_synth``) in every installed Hebrew
   font (``fc-list :lang=he``), with varied colours, sizes, tilt, light, noise, blur and JPEG.
2. Run the real pipeline on each still (``find_resting_dreidel`` -> face -> normalized glyph), so
   the model learns the pipeline's own mistakes (loose faces, slivers, swapped tip/handle).
3. Train a small two-layer network in NumPy on the descriptors of the glyph's four quarter turns,
   labelled letter x orientation.
4. Calibrate on stills drawn in font families held out of training: the temperature of the generic
   model, then the weight and temperature of enrollment (3 taught stills per letter of one dreidel,
   queries of the same dreidel), and pick the "unreadable" threshold.

Usage: .venv/bin/python scripts/build_letter_model.py [--stills 9000] [--workers 2] [--seed 1]
Takes a few minutes on two cores. Deterministic for a given seed, font set and library versions.
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.rules.letters import Letter  # noqa: E402
from vision.features import describe_rotations, glyph_from_face  # noqa: E402
from vision.letter_synth import (  # noqa: E402
    HELD_OUT_FAMILIES,
    DreidelStyle,
    font_family,
    hebrew_fonts,
    render_still,
)
from vision.pose import find_resting_dreidel  # noqa: E402
from vision.recognizer import (  # noqa: E402
    DEFAULT_MODEL,
    LETTERS,
    MIN_CONTRAST,
    ORIENTATIONS,
    LetterModel,
    enrolled_similarity,
    letter_posterior,
    orientation_prior,
    tta_logits,
)


def orientation_label(truth_tip: tuple[float, float], truth_handle: tuple[float, float], quad: np.ndarray) -> int:
    """Where the letter's top truly points in the handle-up face patch (quarter turns clockwise)."""
    h = np.subtract(truth_handle, truth_tip)
    up = (quad[0] + quad[1]) / 2 - (quad[2] + quad[3]) / 2
    right = quad[1] - quad[0]
    a_up, a_right = float(h @ up) / (np.linalg.norm(up) + 1e-9), float(h @ right) / (np.linalg.norm(right) + 1e-9)
    if abs(a_up) >= abs(a_right):
        return 0 if a_up > 0 else 2
    return 1 if a_right > 0 else 3


def make_stills(job: tuple[int, int, list[str], int]) -> list[tuple[np.ndarray, int, int, float, int]]:
    """Render ``count`` stills (style per still, or per ``per_style`` stills) and run the pipeline on them.

    Returns (glyph, letter index, orientation, pose confidence, style id) for every still the pipeline read.
    """
    seed, count, fonts, per_style = job
    cv2.setNumThreads(1)  # the pool already uses every core
    rng = np.random.default_rng(seed)
    out = []
    style = DreidelStyle.random(rng, fonts)
    for i in range(count):
        if per_style == 0 or i % per_style == 0:
            style = DreidelStyle.random(rng, fonts)
        letter_idx = (i // max(1, per_style // 5)) % 5 if per_style else int(rng.integers(5))
        # a small picture is enough: the dreidel's own size in pixels is what matters, and it is cheap
        size = (360, 280) if rng.random() < 0.7 else (480, 360)
        still = render_still(style, LETTERS[letter_idx], rng, size=size)
        pose = find_resting_dreidel(still.image)
        if pose is None or pose.face_quad is None:
            continue
        glyph = glyph_from_face(still.image, pose.face_quad)
        if glyph.contrast < MIN_CONTRAST or glyph.mass <= 0:
            continue
        o = orientation_label(still.tip, still.handle, pose.face_quad)
        style_id = seed * 100000 + (i // per_style if per_style else i)
        out.append((glyph.image.astype(np.float16), letter_idx, o, float(pose.confidence), style_id))
    return out


def generate(seed: int, n: int, fonts: list[str], workers: int, per_style: int = 0
             ) -> list[tuple[np.ndarray, int, int, float, int]]:
    chunk = 50 if per_style == 0 else per_style
    jobs = [(seed * 1000 + k, min(chunk, n - k * chunk), fonts, per_style) for k in range((n + chunk - 1) // chunk)]
    with Pool(workers) as pool:
        parts = pool.map(make_stills, jobs)
    return [row for part in parts for row in part]


def augment_glyph(glyph: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glyph varied as another font or camera would: small affine, stroke weight, blur and noise."""
    n = glyph.shape[0]
    angle = rng.uniform(-8, 8)
    scale = rng.uniform(0.9, 1.1)
    m = cv2.getRotationMatrix2D((n / 2, n / 2), angle, scale)
    m[0, 1] += rng.uniform(-0.12, 0.12)
    m[:, 2] += rng.uniform(-1.5, 1.5, 2)
    out = cv2.warpAffine(glyph, m, (n, n), flags=cv2.INTER_LINEAR, borderValue=0)
    r = rng.random()
    if r < 0.25:
        out = cv2.dilate(out, np.ones((2, 2), np.uint8))
    elif r < 0.5:
        out = cv2.erode(out, np.ones((2, 2), np.uint8))
    sigma = rng.uniform(0, 0.9)
    if sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    out = out + rng.normal(0, 0.05, out.shape).astype(np.float32)
    return np.clip(out, 0, 1).astype(np.float32)


def font_glyphs(n: int, fonts: list[str], seed: int) -> list[tuple[np.ndarray, int, int, float, int]]:
    """Glyphs drawn straight from the fonts, degraded as the pipeline degrades a face (cheap, plentiful).

    The letter (white on black, so the picture *is* the ink) is drawn on a face, squeezed as a tilted
    face is, sometimes with the sliver of a neighbour face, shrunk to the size a 40-150 px dreidel's
    face has in the picture, blurred and noised, then normalized exactly as a real face is.
    """
    from vision.features import PATCH, normalize_glyph
    from vision.letter_synth import _glyph_texture

    rng = np.random.default_rng(seed)
    out = []
    inner = int(round(PATCH / (1 + 2 * 0.08)))
    for i in range(n):
        letter_idx = int(rng.integers(5))
        style = DreidelStyle.random(rng, fonts)
        style = DreidelStyle(**{**style.__dict__, "body_bgr": (0, 0, 0), "letter_bgr": (255, 255, 255)})
        tex = _glyph_texture(style, LETTERS[letter_idx], 96, int(96 * rng.uniform(0.95, 1.35)), rng)[:, :, 1]
        face = cv2.resize(tex, (96, 96), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        if rng.random() < 0.4:  # a neighbour face's sliver along one side, darker and squeezed
            other = LETTERS[(letter_idx + 1 + int(rng.integers(3))) % 5]
            tex2 = _glyph_texture(style, other, 96, 96, rng)[:, :, 1].astype(np.float32) / 255.0
            frac = rng.uniform(0.1, 0.35)
            w_s = max(2, int(96 * frac))
            sliver = cv2.resize(tex2, (w_s, 96), interpolation=cv2.INTER_AREA) * rng.uniform(0.4, 1.0)
            sliver += rng.uniform(0.15, 0.5)  # the sliver's own shade differs from the face
            main = cv2.resize(face, (96 - w_s, 96), interpolation=cv2.INTER_AREA)
            face = np.hstack([main, sliver] if rng.random() < 0.5 else [sliver, main])
        side = int(rng.integers(10, 48))
        small = cv2.resize(face, (side, side), interpolation=cv2.INTER_AREA)
        big = cv2.resize(small, (inner, inner), interpolation=cv2.INTER_LINEAR)
        patch = np.zeros((PATCH, PATCH), np.float32)
        m = (PATCH - inner) // 2
        patch[m:m + inner, m:m + inner] = big
        blur = rng.uniform(0, 1.5)
        if blur > 0.3:
            patch = cv2.GaussianBlur(patch, (0, 0), blur)
        patch += rng.normal(0, rng.uniform(0.01, 0.08), patch.shape).astype(np.float32)
        scale = max(float(np.percentile(patch[m:m + inner, m:m + inner], 95)), 0.2)
        ink = np.clip((patch / scale - 0.3) / 0.5, 0, 1).astype(np.float32)
        glyph = normalize_glyph(ink, 50.0)
        o = int(rng.choice(4, p=[0.7, 0.05, 0.2, 0.05]))
        g = np.rot90(glyph.image, -o).copy()  # top turned o quarter turns clockwise
        out.append((g.astype(np.float16), letter_idx, o, 1.0, -1 - i))
    return out


def rotated_training_set(rows: list[tuple[np.ndarray, int, int, float, int]], copies: int, seed: int
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Descriptors of every glyph (and ``copies`` augmented variants) in all four quarter turns,
    labelled letter x orientation."""
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for glyph, letter_idx, o, _conf, _sid in rows:
        g = glyph.astype(np.float32)
        for variant in [g] + [augment_glyph(g, rng) for _ in range(copies)]:
            rot = describe_rotations(variant)
            for k in range(4):
                xs.append(rot[k])
                ys.append(letter_idx * ORIENTATIONS + (o - k) % 4)
    return np.stack(xs), np.array(ys)


def train_mlp(x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A ReLU network trained with Adam on softmax cross-entropy; returns mean, std, w1, b1, w2, b2."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    xs = ((x - mean) / std).astype(np.float32)
    n, d = xs.shape
    k = int(y.max()) + 1
    params = [rng.normal(0, np.sqrt(2 / d), (d, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, k)).astype(np.float32), np.zeros(k, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, b1, b2, eps, decay, batch, step = 2e-3, 0.9, 0.999, 1e-8, 1e-4, 256, 0
    onehot = np.eye(k, dtype=np.float32)
    for epoch in range(epochs):
        order = rng.permutation(n)
        rate = lr * 0.5 * (1 + np.cos(np.pi * epoch / epochs))  # cosine decay
        loss_sum = 0.0
        for s in range(0, n, batch):
            idx = order[s:s + batch]
            xb, yb = xs[idx], onehot[y[idx]]
            # input dropout-like noise: robustness to descriptor perturbations of unseen renderers
            xb = xb + rng.normal(0, 0.15, xb.shape).astype(np.float32)
            h_pre = xb @ params[0] + params[1]
            h = np.maximum(h_pre, 0)
            z = h @ params[2] + params[3]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            loss_sum += float(-np.log((p * yb).sum(axis=1) + 1e-9).sum())
            dz = (p - yb) / len(idx)
            grads = [None, None, h.T @ dz + decay * params[2], dz.sum(axis=0)]
            dh = (dz @ params[2].T) * (h_pre > 0)
            grads[0] = xb.T @ dh + decay * params[0]
            grads[1] = dh.sum(axis=0)
            step += 1
            for i, g in enumerate(grads):
                m[i] = b1 * m[i] + (1 - b1) * g
                v[i] = b2 * v[i] + (1 - b2) * g * g
                mh = m[i] / (1 - b1 ** step)
                vh = v[i] / (1 - b2 ** step)
                params[i] -= (rate * mh / (np.sqrt(vh) + eps)).astype(np.float32)
        print(f"  epoch {epoch + 1}/{epochs}: loss {loss_sum / n:.4f}", flush=True)
    return mean.astype(np.float32), std.astype(np.float32), params[0], params[1], params[2], params[3]


def nll(probs: list[np.ndarray], labels: list[int]) -> float:
    return float(-np.mean([np.log(p[y] + 1e-12) for p, y in zip(probs, labels, strict=True)]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stills", type=int, default=5000, help="training stills to render")
    ap.add_argument("--val-styles", type=int, default=40, help="held-out dreidels for calibration")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--copies", type=int, default=2, help="augmented variants per rendered glyph")
    ap.add_argument("--max-threshold", type=float, default=0.85, help="cap on the unreadable threshold")
    ap.add_argument("--font-glyphs", type=int, default=6000, help="extra glyphs drawn straight from the fonts")
    ap.add_argument("--out", type=Path, default=DEFAULT_MODEL)
    args = ap.parse_args()

    fonts = list(hebrew_fonts())
    if not fonts:
        sys.exit("no Hebrew fonts found: run scripts/install-system-deps.sh")
    held = [f for f in fonts if font_family(f) in HELD_OUT_FAMILIES]
    train_fonts = [f for f in fonts if f not in held]
    if not held:  # an unusual font set: hold out every fifth font instead
        held, train_fonts = fonts[::5], [f for i, f in enumerate(fonts) if i % 5]
    print(f"{len(train_fonts)} training fonts, {len(held)} held-out fonts", flush=True)

    t0 = time.time()
    train_rows = generate(args.seed, args.stills, train_fonts, args.workers)
    # calibration: per held-out dreidel 5 letters x 6 stills (3 to enroll, 3 to query)
    val_rows = generate(args.seed + 7919, args.val_styles * 30, held, args.workers, per_style=30)
    print(f"rendered and read {len(train_rows)} + {len(val_rows)} stills in {time.time() - t0:.0f} s", flush=True)

    train_rows = train_rows + font_glyphs(args.font_glyphs, train_fonts, args.seed + 17)
    x, y = rotated_training_set(train_rows, args.copies, args.seed)
    print(f"{len(x)} training descriptors", flush=True)
    mean, std, w1, b1, w2, b2 = train_mlp(x, y, args.hidden, args.epochs, args.seed)
    model = LetterModel(mean, std, w1, b1, w2, b2, temperature=1.0, enroll_weight=0.0, enroll_temperature=1.0,
                        threshold=0.5)
    # 16-bit weights as saved: calibrate the model exactly as it will run
    model = LetterModel(mean, std, w1.astype(np.float16).astype(np.float32), b1,
                        w2.astype(np.float16).astype(np.float32), b2, 1.0, 0.0, 1.0, 0.5)

    # generic temperature on held-out fonts
    val_rot = [describe_rotations(g.astype(np.float32)) for g, *_ in val_rows]
    val_z = [tta_logits(model, r) for r in val_rot]
    val_y = [row[1] for row in val_rows]
    val_prior = [orientation_prior(row[3]) for row in val_rows]

    def generic_probs(t: float) -> list[np.ndarray]:
        return [letter_posterior(z / t, pr)[0] for z, pr in zip(val_z, val_prior, strict=True)]

    temps = np.exp(np.linspace(np.log(0.3), np.log(6), 40))
    temperature = float(min(temps, key=lambda t: nll(generic_probs(t), val_y)))
    probs = generic_probs(temperature)
    acc = float(np.mean([np.argmax(p) == yv for p, yv in zip(probs, val_y, strict=True)]))
    print(f"held-out fonts: generic accuracy {acc:.4f}, temperature {temperature:.2f}", flush=True)

    # enrollment: per style, the first 3 stills of each letter teach, the rest query
    by_style: dict[int, list[int]] = {}
    for i, row in enumerate(val_rows):
        by_style.setdefault(row[4], []).append(i)
    queries: list[tuple[int, np.ndarray, np.ndarray]] = []  # (row, protos, proto letters)
    for idxs in by_style.values():
        seen: dict[int, int] = {}
        teach, ask = [], []
        for i in idxs:
            li = val_rows[i][1]
            if seen.get(li, 0) < 3:
                teach.append(i)
                seen[li] = seen.get(li, 0) + 1
            else:
                ask.append(i)
        protos, plabels = [], []
        for i in teach:
            zl = val_z[i][val_rows[i][1]] / temperature + np.log(val_prior[i])
            o = int(np.argmax(zl))
            protos.append(model.standardize(val_rot[i][o]))
            plabels.append(val_rows[i][1])
        if protos:
            for i in ask:
                queries.append((i, np.stack(protos), np.array(plabels)))
    sims = {i: enrolled_similarity(model, val_rot[i], p, pl) for i, p, pl in queries}
    q_y = [val_rows[i][1] for i, _, _ in queries]

    def enrolled_probs(weight: float, t2: float) -> list[np.ndarray]:
        return [letter_posterior((val_z[i] / temperature + weight * sims[i]) / t2, val_prior[i])[0]
                for i, _, _ in queries]

    best = (nll(enrolled_probs(0.0, 1.0), q_y), 0.0, 1.0)
    for weight in (2.0, 4.0, 8.0, 12.0, 16.0, 24.0, 32.0):
        for t2 in np.exp(np.linspace(np.log(0.5), np.log(8), 20)):
            score = nll(enrolled_probs(weight, float(t2)), q_y)
            if score < best[0]:
                best = (score, weight, float(t2))
    _, enroll_weight, enroll_temperature = best
    ep = enrolled_probs(enroll_weight, enroll_temperature)
    gp = [generic_probs(temperature)[i] for i, _, _ in queries]
    acc_e = float(np.mean([np.argmax(p) == yv for p, yv in zip(ep, q_y, strict=True)]))
    acc_g = float(np.mean([np.argmax(p) == yv for p, yv in zip(gp, q_y, strict=True)]))
    print(f"held-out dreidels: generic {acc_g:.4f} -> enrolled {acc_e:.4f} "
          f"(weight {enroll_weight}, temperature {enroll_temperature:.2f})", flush=True)

    # "unreadable" threshold: the lowest that keeps the read letters >= 99.5% right on held-out stills
    conf = np.array([p.max() for p in probs])
    right = np.array([np.argmax(p) == yv for p, yv in zip(probs, val_y, strict=True)])
    threshold = 0.5
    for t in np.linspace(0.5, 0.95, 46):
        kept = conf >= t
        if kept.any() and right[kept].mean() >= 0.995:
            threshold = float(t)
            break
    else:
        threshold = args.max_threshold
    # The held-out set is harsher than a table (tiny, blurred, unseen fonts): past the cap the
    # threshold would send most good readings to a judge for little gain in accuracy.
    threshold = min(threshold, args.max_threshold)
    print(f"threshold {threshold:.2f}: reads {np.mean(conf >= threshold):.3f} of held-out stills, "
          f"{right[conf >= threshold].mean():.4f} of them right", flush=True)

    meta = {
        "built_by": "scripts/build_letter_model.py", "seed": args.seed, "stills": args.stills,
        "train_rows": len(train_rows), "train_fonts": [Path(f).name for f in train_fonts],
        "held_out_fonts": [Path(f).name for f in held], "held_out_generic_accuracy": round(acc, 4),
        "held_out_enrolled_accuracy": round(acc_e, 4), "letters": [letter.value for letter in Letter],
    }
    final = LetterModel(mean, std, w1, b1, w2, b2, temperature, enroll_weight, enroll_temperature, threshold, meta)
    final.save(args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
