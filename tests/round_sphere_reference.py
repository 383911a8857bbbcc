#!/usr/bin/python3
"""An independent reference for round-metric sphere plans: the Riemannian cubic of the
unit sphere through keyframes, solved by scipy.integrate.solve_bvp, and its cost
1/2 ∫_0^T |∇ₜẏ|² dt.

Reads a symplan problem file (a cubic_spline plan, "space": "sphere", "sigma": 0, the
last keyframe at T, "xi0": "free" or a start velocity, optionally "xiT": [0, 0, 0]) on
stdin, prints the cost as one number.

Equations (Noakes, Heinzinger & Paden, "Cubic splines on curved spaces", 1989): between
keyframes ∇ₜ³ẏ + |ẏ|²∇ₜẏ − ⟨∇ₜẏ, ẏ⟩ẏ = 0, written in R³ for y, v = ẏ, a = ∇ₜẏ,
j = ∇ₜ²ẏ as
    ẏ = v,  v̇ = a − |v|² y,  ȧ = j − ⟨a, v⟩ y,  j̇ = −|v|² a + ⟨a, v⟩ v − ⟨j, v⟩ y,
with ċ = ½|a|² for the cost. Each segment between keyframes is mapped onto s ∈ [0, 1] and
the segments are stacked into one boundary value problem: y at both ends of a segment
(three conditions at its start, two tangential ones at its end: the flow keeps |y| = 1),
v, a, j tangent at the start, v and a continuous across interior keyframes (two
tangential components each), the end conditions (a = 0 at a free end, v prescribed or
zero otherwise) and c = 0 at every segment's start. This shares nothing with the C
solver but the equations.

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
    times = [0.0] + [float(k["t"]) for k in pb["targets"]]
    points = [g0 @ y0] + [np.array(k["y"], dtype=float) / np.linalg.norm(k["y"]) for k in pb["targets"]]
    K = len(times) - 1
    h = np.diff(times)
    free = pb["xi0"] == "free"
    v_start = None if free else g0 @ np.cross(np.array(pb["xi0"], dtype=float), y0)
    rest = "xiT" in pb
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

    def bc(Za, Zb):
        r = []
        for i in range(K):
            za, zb = Za[D * i:D * (i + 1)], Zb[D * i:D * (i + 1)]
            y, v, a, j = za[0:3], za[3:6], za[6:9], za[9:12]
            r += list(y - points[i])
            r += [y @ v, y @ a, y @ j]
            e1, e2 = E[i + 1]
            d = zb[0:3] - points[i + 1]
            r += [e1 @ d, e2 @ d]
            r.append(za[12])
            if i + 1 < K:
                zn = Za[D * (i + 1):D * (i + 2)]
                for q in (3, 6):
                    dd = zb[q:q + 3] - zn[q:q + 3]
                    r += [e1 @ dd, e2 @ dd]
        e1, e2 = E[0]
        first = Za[0:D]
        start = first[6:9] if free else first[3:6] - v_start
        r += [e1 @ start, e2 @ start]
        e1, e2 = E[K]
        last = Zb[D * (K - 1):D * K]
        end = last[3:6] if rest else last[6:9]
        r += [e1 @ end, e2 @ end]
        return np.array(r)

    # start: each segment along its great circle at constant speed, a = j = 0
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
    cost = sum(sol.sol(1.0)[D * i + 12] for i in range(K))
    print("%.17g" % cost)


if __name__ == "__main__":
    main()
