"""The numba ray-tracing kernel of the alternative renderer (scalars only in the inner loops: no allocation).

One camera ray per sample is intersected exactly with the dreidel (a convex solid of half-spaces,
a cylinder handle and a ball knob, in the body frame of its pose) and the arm's capsules; a ray
that misses lands on the floor, which keeps its precomputed lit colour minus the direct light that
the dreidel (rays to random points of the lamp's disc) and the arm (penumbra from the closest
approach of the light ray to each capsule) take away.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: surface codes: 0..3 the lettered faces, then these
PART_BODY = 10
PART_TIP = 11
PART_HANDLE = 12

_MUL = np.uint64(6364136223846793005)
_ADD = np.uint64(1442695040888963407)


@njit(cache=True, inline="always")
def _next(state):  # type: ignore[no-untyped-def]
    state = state * _MUL + _ADD
    return state, float((state >> np.uint64(40)) & np.uint64(0xFFFFFF)) / 16777216.0


@njit(cache=True)
def dreidel_hit(ox, oy, oz, dx, dy, dz, R, T, planes, hz0, hz1, hr, kr):  # type: ignore[no-untyped-def]
    """World ray against the dreidel posed (R, T): (t or -1, body normal xyz, body point xyz, plane or -1/1000)."""
    # into the body frame: b = R^T (p - T)
    px, py, pz = ox - T[0], oy - T[1], oz - T[2]
    bo0 = R[0, 0] * px + R[1, 0] * py + R[2, 0] * pz
    bo1 = R[0, 1] * px + R[1, 1] * py + R[2, 1] * pz
    bo2 = R[0, 2] * px + R[1, 2] * py + R[2, 2] * pz
    bd0 = R[0, 0] * dx + R[1, 0] * dy + R[2, 0] * dz
    bd1 = R[0, 1] * dx + R[1, 1] * dy + R[2, 1] * dz
    bd2 = R[0, 2] * dx + R[1, 2] * dy + R[2, 2] * dz
    best, part = -1.0, -1
    nx, ny, nz = 0.0, 0.0, 0.0
    # the convex body and tip
    tn, tf, idx = -1e30, 1e30, -1
    ok = True
    for i in range(planes.shape[0]):
        nd = planes[i, 0] * bd0 + planes[i, 1] * bd1 + planes[i, 2] * bd2
        dist = planes[i, 3] - (planes[i, 0] * bo0 + planes[i, 1] * bo1 + planes[i, 2] * bo2)
        if abs(nd) < 1e-12:
            if dist < 0:
                ok = False
                break
            continue
        t = dist / nd
        if nd < 0:
            if t > tn:
                tn, idx = t, i
        elif t < tf:
            tf = t
        if tn > tf:
            ok = False
            break
    if ok and tn > 1e-6 and idx >= 0:
        best, part = tn, idx
        nx, ny, nz = planes[idx, 0], planes[idx, 1], planes[idx, 2]
    # the handle: cylinder side and top
    a = bd0 * bd0 + bd1 * bd1
    if a > 1e-12:
        b = bo0 * bd0 + bo1 * bd1
        c = bo0 * bo0 + bo1 * bo1 - hr * hr
        h = b * b - a * c
        if h >= 0:
            t = (-b - math.sqrt(h)) / a
            z = bo2 + t * bd2
            if t > 1e-6 and hz0 <= z <= hz1 and (best < 0 or t < best):
                best, part = t, 1000
                qx, qy = bo0 + t * bd0, bo1 + t * bd1
                ln = math.sqrt(qx * qx + qy * qy) + 1e-12
                nx, ny, nz = qx / ln, qy / ln, 0.0
    if abs(bd2) > 1e-12:
        t = (hz1 - bo2) / bd2
        qx, qy = bo0 + t * bd0, bo1 + t * bd1
        if t > 1e-6 and qx * qx + qy * qy <= hr * hr and (best < 0 or t < best):
            best, part = t, 1000
            nx, ny, nz = 0.0, 0.0, 1.0
    if kr > 0:
        sx, sy, sz = bo0, bo1, bo2 - hz1
        b = sx * bd0 + sy * bd1 + sz * bd2
        c = sx * sx + sy * sy + sz * sz - kr * kr
        h = b * b - c
        if h >= 0:
            t = -b - math.sqrt(h)
            if t > 1e-6 and (best < 0 or t < best):
                best, part = t, 1000
                nx, ny, nz = (sx + t * bd0) / kr, (sy + t * bd1) / kr, (sz + t * bd2) / kr
    return best, nx, ny, nz, bo0 + best * bd0, bo1 + best * bd1, bo2 + best * bd2, part


@njit(cache=True)
def capsule_hit(ox, oy, oz, dx, dy, dz, cap):  # type: ignore[no-untyped-def]
    """Ray against a capsule (p0, p1, r): distance or -1 (after Inigo Quilez)."""
    r = cap[6]
    bax, bay, baz = cap[3] - cap[0], cap[4] - cap[1], cap[5] - cap[2]
    oax, oay, oaz = ox - cap[0], oy - cap[1], oz - cap[2]
    baba = bax * bax + bay * bay + baz * baz
    bard = bax * dx + bay * dy + baz * dz
    baoa = bax * oax + bay * oay + baz * oaz
    rdoa = dx * oax + dy * oay + dz * oaz
    oaoa = oax * oax + oay * oay + oaz * oaz
    a = baba - bard * bard
    b = baba * rdoa - baoa * bard
    c = baba * oaoa - baoa * baoa - r * r * baba
    h = b * b - a * c
    if h >= 0.0 and a > 1e-12:
        t = (-b - math.sqrt(h)) / a
        y = baoa + t * bard
        if 0.0 < y < baba and t > 1e-6:
            return t
        if y <= 0.0:
            cx, cy, cz = oax, oay, oaz
        else:
            cx, cy, cz = ox - cap[3], oy - cap[4], oz - cap[5]
        b2 = dx * cx + dy * cy + dz * cz
        c2 = cx * cx + cy * cy + cz * cz - r * r
        h2 = b2 * b2 - c2
        if h2 > 0.0:
            t2 = -b2 - math.sqrt(h2)
            if t2 > 1e-6:
                return t2
    return -1.0


@njit(cache=True)
def arm_shadow(px, py, pz, lamp, lamp_r, caps, boxes, u, v):  # type: ignore[no-untyped-def]
    """The fraction of the lamp that the arm's capsules leave visible from a point (soft edges).

    ``boxes`` (C x 4: x0, y0, x1, y1) bound, in the picture, where each capsule's shadow can fall.
    """
    lx, ly, lz = lamp[0] - px, lamp[1] - py, lamp[2] - pz
    dist = math.sqrt(lx * lx + ly * ly + lz * lz)
    ux, uy, uz = lx / dist, ly / dist, lz / dist
    lit = 1.0
    for c in range(caps.shape[0]):
        r = caps[c, 6]
        if r <= 0 or u < boxes[c, 0] or u > boxes[c, 2] or v < boxes[c, 1] or v > boxes[c, 3]:
            continue
        vx, vy, vz = caps[c, 3] - caps[c, 0], caps[c, 4] - caps[c, 1], caps[c, 5] - caps[c, 2]
        wx, wy, wz = px - caps[c, 0], py - caps[c, 1], pz - caps[c, 2]
        B = ux * vx + uy * vy + uz * vz
        C = vx * vx + vy * vy + vz * vz
        D = ux * wx + uy * wy + uz * wz
        E = vx * wx + vy * wy + vz * wz
        den = C - B * B
        if den < 1e-9:
            s, tt = 0.0, min(max(E / max(C, 1e-9), 0.0), 1.0)
        else:
            s = (B * E - C * D) / den
            tt = (E - B * D) / den
            if s < 0:
                s = 0.0
                tt = min(max(E / C, 0.0), 1.0)
            elif tt < 0 or tt > 1:
                tt = min(max(tt, 0.0), 1.0)
                s = max(tt * B - D, 0.0)
        if s <= 0.0:
            continue
        ex, ey, ez = wx + s * ux - tt * vx, wy + s * uy - tt * vy, wz + s * uz - tt * vz
        dd = math.sqrt(ex * ex + ey * ey + ez * ez)
        w = max(s * lamp_r / dist, 0.5)
        occ = (r + w - dd) / (2 * w)
        if occ > 0:
            lit *= 1.0 - min(occ, 1.0)
    return lit


@njit(cache=True)
def trace(
    out, mask, x0, y0, x1, y1, origin, c2w, focal, cx, cy, k1,
    lit, direct,
    dR, dT, planes, parts, hz0, hz1, hr, kr, half_w, face_z0, face_z1, tex, body_col, tip_col, handle_col,
    gloss, metal, bsph,
    caps, cap_col, cap_box, shadow_box,
    lamp, lamp_r, ambient, spp, seed,
):  # type: ignore[no-untyped-def]
    """Trace the masked pixels of x0..x1, y0..y1 into ``out`` (H x W x 3 float32), ``spp`` samples each.

    Sample k sees dreidel pose ``k % len(dR)`` and arm pose ``k % len(caps)`` (poses over the shutter).
    """
    nd = dR.shape[0]
    nh = caps.shape[0]
    ncap = caps.shape[1] if nh > 0 else 0
    th, tw = tex.shape[1], tex.shape[2]
    state = np.uint64(seed) | np.uint64(1)
    ox, oy, oz = origin[0], origin[1], origin[2]
    for v in range(y0, y1):
        for u in range(x0, x1):
            if mask[v, u] == 0:
                continue
            acc0, acc1, acc2 = 0.0, 0.0, 0.0
            for k in range(spp):
                state, r1 = _next(state)
                state, r2 = _next(state)
                if spp >= 4:
                    sx, sy = ((k % 2) + r1) / 2.0, (((k // 2) % 2) + r2) / 2.0
                else:
                    sx, sy = r1, r2
                xd = (u + sx - cx) / focal
                yd = (v + sy - cy) / focal
                kk = 1.0 + k1 * (xd * xd + yd * yd)
                xu, yu = xd * kk, yd * kk
                dx = c2w[0, 0] * xu + c2w[0, 1] * yu + c2w[0, 2]
                dy = c2w[1, 0] * xu + c2w[1, 1] * yu + c2w[1, 2]
                dz = c2w[2, 0] * xu + c2w[2, 1] * yu + c2w[2, 2]
                ln = math.sqrt(dx * dx + dy * dy + dz * dz)
                dx, dy, dz = dx / ln, dy / ln, dz / ln
                best = 1e30
                what = 0  # 0 floor, 1 dreidel, 2 arm
                di = k % nd if nd > 0 else 0
                hi = k % nh if nh > 0 else 0
                part = -1
                nwx, nwy, nwz = 0.0, 0.0, 1.0
                pbx, pby, pbz = 0.0, 0.0, 0.0
                if nd > 0:
                    sx_, sy_, sz_ = ox - bsph[di, 0], oy - bsph[di, 1], oz - bsph[di, 2]
                    b = sx_ * dx + sy_ * dy + sz_ * dz
                    if b * b - (sx_ * sx_ + sy_ * sy_ + sz_ * sz_ - bsph[di, 3] ** 2) >= 0:
                        t, nbx, nby, nbz, qx, qy, qz, pt = dreidel_hit(
                            ox, oy, oz, dx, dy, dz, dR[di], dT[di], planes, hz0, hz1, hr, kr)
                        if t > 0:
                            best, what, part = t, 1, pt
                            R = dR[di]
                            nwx = R[0, 0] * nbx + R[0, 1] * nby + R[0, 2] * nbz
                            nwy = R[1, 0] * nbx + R[1, 1] * nby + R[1, 2] * nbz
                            nwz = R[2, 0] * nbx + R[2, 1] * nby + R[2, 2] * nbz
                            pbx, pby, pbz = qx, qy, qz
                ci = -1
                for c in range(ncap):
                    if caps[hi, c, 6] <= 0 or u < cap_box[hi, c, 0] or u > cap_box[hi, c, 2] or (
                            v < cap_box[hi, c, 1] or v > cap_box[hi, c, 3]):
                        continue
                    t = capsule_hit(ox, oy, oz, dx, dy, dz, caps[hi, c])
                    if t > 0 and t < best:
                        best, what, ci = t, 2, c
                if what == 0:
                    t = -oz / dz
                    px, py, pz = ox + t * dx, oy + t * dy, 0.0
                    sh = 1.0
                    ao = 1.0
                    if nd > 0:
                        blocked = 0
                        # one ray to a random point of the lamp per sample (two when samples are few):
                        # the samples together make the penumbra
                        nsh = 1 if spp >= 4 else 2
                        for _j in range(nsh):
                            state, a1 = _next(state)
                            state, a2 = _next(state)
                            rr = lamp_r * math.sqrt(a1)
                            lx = lamp[0] + rr * math.cos(6.283185307 * a2) - px
                            ly = lamp[1] + rr * math.sin(6.283185307 * a2) - py
                            lz = lamp[2] - pz
                            ll = math.sqrt(lx * lx + ly * ly + lz * lz)
                            lx, ly, lz = lx / ll, ly / ll, lz / ll
                            sx_, sy_, sz_ = px - bsph[di, 0], py - bsph[di, 1], pz - bsph[di, 2]
                            b = sx_ * lx + sy_ * ly + sz_ * lz
                            if b < 0 and b * b - (sx_ * sx_ + sy_ * sy_ + sz_ * sz_ - bsph[di, 3] ** 2) >= 0:
                                t2 = dreidel_hit(px, py, pz, lx, ly, lz, dR[di], dT[di], planes, hz0, hz1, hr, kr)[0]
                                if t2 > 0:
                                    blocked += 1
                        sh = 1.0 - blocked / nsh
                        # contact shadow: the felt right under the body sees less of the room
                        cxy = math.sqrt((px - bsph[di, 0]) ** 2 + (py - bsph[di, 1]) ** 2)
                        ao = 1.0 - 0.3 * math.exp(-max(cxy - 0.5 * bsph[di, 3], 0.0) / (0.3 * bsph[di, 3])) * (
                            math.exp(-bsph[di, 2] / (1.5 * bsph[di, 3])))
                    if nh > 0:
                        sh *= arm_shadow(px, py, pz, lamp, lamp_r, caps[hi], shadow_box[hi], u, v)
                    f = direct[v, u]
                    g = (1.0 - f * (1.0 - sh)) * ao
                    acc0 += lit[v, u, 0] * g
                    acc1 += lit[v, u, 1] * g
                    acc2 += lit[v, u, 2] * g
                    continue
                px, py, pz = ox + best * dx, oy + best * dy, oz + best * dz
                if what == 2:
                    cp = caps[hi, ci]
                    bax, bay, baz = cp[3] - cp[0], cp[4] - cp[1], cp[5] - cp[2]
                    baba = bax * bax + bay * bay + baz * baz
                    f0 = ((px - cp[0]) * bax + (py - cp[1]) * bay + (pz - cp[2]) * baz) / max(baba, 1e-9)
                    f0 = min(max(f0, 0.0), 1.0)
                    nwx = (px - cp[0] - f0 * bax) / cp[6]
                    nwy = (py - cp[1] - f0 * bay) / cp[6]
                    nwz = (pz - cp[2] - f0 * baz) / cp[6]
                    c0, c1, c2 = cap_col[ci, 0], cap_col[ci, 1], cap_col[ci, 2]
                    g_loss = 0.04
                    is_metal = False
                else:
                    if 0 <= part < 4 and face_z0 <= pbz <= face_z1:
                        ang = part * 1.5707963267948966
                        rs = -math.sin(ang) * pbx + math.cos(ang) * pby
                        ty = min(max((face_z1 - pbz) / (face_z1 - face_z0), 0.0), 1.0) * (th - 1)
                        tx = min(max((rs + half_w) / (2 * half_w), 0.0), 1.0) * (tw - 1)
                        iy, ix = int(ty), int(tx)
                        iy1, ix1 = min(iy + 1, th - 1), min(ix + 1, tw - 1)
                        fy, fx = ty - iy, tx - ix
                        w00, w01, w10, w11 = (1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy
                        c0 = (tex[part, iy, ix, 0] * w00 + tex[part, iy, ix1, 0] * w01 + tex[part, iy1, ix, 0] * w10
                              + tex[part, iy1, ix1, 0] * w11)
                        c1 = (tex[part, iy, ix, 1] * w00 + tex[part, iy, ix1, 1] * w01 + tex[part, iy1, ix, 1] * w10
                              + tex[part, iy1, ix1, 1] * w11)
                        c2 = (tex[part, iy, ix, 2] * w00 + tex[part, iy, ix1, 2] * w01 + tex[part, iy1, ix, 2] * w10
                              + tex[part, iy1, ix1, 2] * w11)
                    elif part == 1000:
                        c0, c1, c2 = handle_col[0], handle_col[1], handle_col[2]
                    elif part >= 0 and parts[part] == PART_TIP:
                        c0, c1, c2 = tip_col[0], tip_col[1], tip_col[2]
                    else:
                        c0, c1, c2 = body_col[0], body_col[1], body_col[2]
                    g_loss = gloss
                    is_metal = metal
                # shading: the lamp (minus the arm's shadow), the room, a highlight
                lx, ly, lz = lamp[0] - px, lamp[1] - py, lamp[2] - pz
                ll = math.sqrt(lx * lx + ly * ly + lz * lz)
                lx, ly, lz = lx / ll, ly / ll, lz / ll
                ndl = nwx * lx + nwy * ly + nwz * lz
                if what == 2:
                    ndl = (ndl + 0.3) / 1.3  # skin scatters light round its edge
                ndl = max(ndl, 0.0)
                sh = 1.0
                if nh > 0 and what == 1:
                    sh = arm_shadow(px, py, pz, lamp, lamp_r, caps[hi], shadow_box[hi], u, v)
                sky = ambient * (0.55 + 0.45 * nwz)
                hx, hy, hz = lx - dx, ly - dy, lz - dz
                hl = math.sqrt(hx * hx + hy * hy + hz * hz)
                ndh = max((nwx * hx + nwy * hy + nwz * hz) / hl, 0.0)
                spec = g_loss * 255.0 * ndh ** (60.0 if is_metal else 25.0) * sh
                light = sky + (1.0 - ambient) * 1.1 * ndl * sh
                if is_metal:
                    rz = dz - 2 * (dx * nwx + dy * nwy + dz * nwz) * nwz
                    light = 0.35 * light + 0.5 * (0.5 + 0.5 * rz)
                acc0 += c0 * light + spec
                acc1 += c1 * light + spec
                acc2 += c2 * light + spec
            out[v, u, 0] = acc0 / spp
            out[v, u, 1] = acc1 / spp
            out[v, u, 2] = acc2 / spp
