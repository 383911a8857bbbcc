#!/usr/bin/python3
"""An independent reference for round-metric sphere plans: the Riemannian cubic of the
unit sphere through or near keyframes, solved by scipy.integrate.solve_bvp, and its cost
1/2 ∫_0^T |∇ₜẏ|² dt + Σ_i |y(t_i) − y_i|²/(2σ²).

Reads a symplan problem file (a cubic_spline plan, "space": "sphere", "sigma" 0 or
positive, "xi0": "free" or a start velocity, optionally "xiT": [0, 0, 0], the last
keyframe at T or before it) on stdin, prints the cost as one number.

Equations (Noakes, Heinzinger & Paden, "Cubic splines on curved spaces", 1989): between
keyframes ∇ₜ³ẏ + |ẏ|²∇ₜẏ − ⟨∇ₜẏ, ẏ⟩ẏ = 0, written in R³ for y, v = ẏ, a = ∇ₜẏ,
j = ∇ₜ²ẏ as
    ẏ = v,  v̇ = a − |v|² y,  ȧ = j − ⟨a, v⟩ y,  j̇ = −|v|² a + ⟨a, v⟩ v − ⟨j, v⟩ y,
with ċ = ½|a|² for the cost. Each segment between knots (the start, the keyframes, and T
when the last keyframe is before it) is mapped onto s ∈ [0, 1] and the segments are
stacked into one boundary value problem: v, a, j tangent at every segment's start, c = 0
there, y(0) given, v and a continuous across interior knots (two tangential components
each). At an exact keyframe (σ = 0) y is the keyframe at both sides (three conditions at
the next segment's start, two tangential ones at the segment's end: the flow keeps
|y| = 1); at a weighted one y is continuous and j jumps by the gradient of the target
term, j⁺ − j⁻ = P_y(y_i)/σ² (P_y the projection onto the tangent plane). The ends: a = 0
at a free start or end, v prescribed or zero otherwise; past the last knot nothing pulls,
so j(T⁺) = 0 where y(T) is free (a weighted keyframe at T, or a tail). This shares
nothing with the C solver but the equations.

Run it with /usr/bin/python3 (python3-scipy):
    /usr/bin/python3 tests/round_sphere_reference.py < problem.json
"""
import json
import sys

import numpy as np
from scipy.integrate import solve_bvp

D = 13  # y, v, a, j, c


def basis(y):
    u = np.zeros(3)
    u[np.argmin(np.abs(y))] = 1.0
    e1 = np.cross(y, u)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(y, e1)


def main():
    pb = json.load(sys.stdin)
    g0 = np.array(pb.get("g0", np.eye(3).tolist()), dtype=float)
    y0 = np.array(pb["y0"], dtype=float)
    y0 /= np.linalg.norm(y0)
    sigma = float(pb.get("sigma", 0.0))
    T = float(pb["T"])
    targets = [np.array(k["y"], dtype=float) / np.linalg.norm(k["y"]) for k in pb["targets"]]
    times = [0.0] + [float(k["t"]) for k in pb["targets"]]
    nt = len(targets)
    tail = T - times[-1] > 1e-9 * T
    if tail:
        times.append(T)
    K = len(times) - 1
    h = np.diff(times)
    free = pb["xi0"] == "free"
    start = g0 @ y0
    v_start = None if free else g0 @ np.cross(np.array(pb["xi0"], dtype=float), y0)
    rest = "xiT" in pb
    # the start: each keyframe segment along its great circle at constant speed, a = j = 0;
    # a tail continues the last one's circle (half as far at rest)
    points = [start] + targets
    if tail:
        p, q = points[-2], points[-1]
        u = q - (p @ q) * p
        ang = np.arccos(np.clip(p @ q, -1, 1))
        if np.linalg.norm(u) > 0 and ang > 0:
            u /= np.linalg.norm(u)
            th = ang / h[-2] * h[-1] * (0.5 if rest else 1.0)
            w = -(q @ p) * q + p
            w = -(w - (w @ q) * q)
            w /= np.linalg.norm(w) if np.linalg.norm(w) > 0 else 1.0
            points.append(np.cos(th) * q + np.sin(th) * w)
        else:
            points.append(q)
    E = [basis(p) for p in points]

    def rhs(s, Z):
        out = np.empty_like(Z)
        for i in range(K):
            z = Z[D * i:D * (i + 1)]
            y, v, a, j = z[0:3], z[3:6], z[6:9], z[9:12]
            vv = np.einsum("ij,ij->j", v, v)
            av = np.einsum("ij,ij->j", a, v)
            jv = np.einsum("ij,ij->j", j, v)
            f = np.empty_like(z)
            f[0:3] = v
            f[3:6] = a - vv * y
            f[6:9] = j - av * y
            f[9:12] = -vv * a + av * v - jv * y
            f[12] = 0.5 * np.einsum("ij,ij->j", a, a)
            out[D * i:D * (i + 1)] = h[i] * f
        return out

    def tangential(i, d):
        e1, e2 = E[i]
        return [e1 @ d, e2 @ d]

    def bc(Za, Zb):
        r = []
        for i in range(K):
            za = Za[D * i:D * (i + 1)]
            y, v, a, j = za[0:3], za[3:6], za[6:9], za[9:12]
            r += [y @ v, y @ a, y @ j, za[12]]
        r += list(Za[0:3] - start)
        first = Za[0:D]
        r += tangential(0, first[6:9] if free else first[3:6] - v_start)
        for i in range(1, K + 1):  # the knot between segments i-1 and i (i = K: the end)
            zb = Zb[D * (i - 1):D * i]
            keyframe = i <= nt
            target = targets[i - 1] if keyframe else None
            if i < K:
                zn = Za[D * i:D * (i + 1)]
                if keyframe and sigma == 0.0:
                    r += tangential(i, zb[0:3] - target)
                    r += list(zn[0:3] - target)
                else:
                    r += list(zn[0:3] - zb[0:3])
                    jump = zn[9:12] - zb[9:12]
                    if keyframe:
                        jump = jump - (target - (target @ zb[0:3]) * zb[0:3]) / sigma ** 2
                    r += tangential(i, jump)
                for q in (3, 6):
                    r += tangential(i, zn[q:q + 3] - zb[q:q + 3])
            else:
                r += tangential(i, zb[3:6] if rest else zb[6:9])
                if keyframe and sigma == 0.0:
                    r += tangential(i, zb[0:3] - target)
                else:
                    j_after = zb[9:12]
                    if keyframe:
                        j_after = j_after + (target - (target @ zb[0:3]) * zb[0:3]) / sigma ** 2
                    r += tangential(i, j_after)
        return np.array(r)

    s = np.linspace(0.0, 1.0, 101)
    Z = np.zeros((D * K, s.size))
    for i in range(K):
        p, q = points[i], points[i + 1]
        ang = np.arccos(np.clip(p @ q, -1, 1))
        u = q - (p @ q) * p
        u = u / np.linalg.norm(u) if np.linalg.norm(u) > 0 else basis(p)[0]
        th = ang * s
        Z[D * i:D * i + 3] = np.outer(p, np.cos(th)) + np.outer(u, np.sin(th))
        Z[D * i + 3:D * i + 6] = (ang / h[i]) * (np.outer(-p, np.sin(th)) + np.outer(u, np.cos(th)))
    sol = solve_bvp(rhs, bc, s, Z, tol=1e-8, bc_tol=1e-12, max_nodes=100000)
    if not sol.success:
        print("solve_bvp: " + sol.message, file=sys.stderr)
        sys.exit(1)
    end = sol.sol(1.0)
    cost = sum(end[D * i + 12] for i in range(K))
    if sigma > 0.0:
        for i in range(nt):
            d = end[D * i:D * i + 3] - targets[i]
            cost += 0.5 * (d @ d) / sigma ** 2
    print("%.17g" % cost)


if __name__ == "__main__":
    main()
