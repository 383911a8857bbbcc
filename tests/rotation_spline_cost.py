#!/usr/bin/python3
"""The cost 1/2 ∫_0^T |ω̇(t)|² dt of scipy's RotationSpline through a list of keyframes.

Reads JSON from stdin,
    {"t": [0, t1, ..., tn], "R": [[9 numbers, row-major], ...]}
(the first entry is the start orientation at t = 0), builds
scipy.spatial.transform.RotationSpline through the rotations and prints the integral of
half the squared angular acceleration over [t0, tn] as one number.

Frame. scipy writes the curve on each interval as R_i exp(r(t)) and returns the angular
rate J(r) ṙ and its time derivative, that is the body rate ω_b and ω̇_b. The norm does not
depend on the frame: with ω_s = R ω_b the space rate, Ṙ = R ω̂_b gives
    ω̇_s = Ṙ ω_b + R ω̇_b = R (ω_b × ω_b) + R ω̇_b = R ω̇_b,
so |ω̇_s| = |ω̇_b|.

Integration. The spline is smooth inside each interval, so adaptive Gauss–Kronrod
(scipy.integrate.quad) per interval is accurate to near machine precision.

Run it with /usr/bin/python3 (python3-scipy):
    /usr/bin/python3 tests/rotation_spline_cost.py < keyframes.json
"""
import json
import sys

import numpy as np
from scipy.integrate import quad
from scipy.spatial.transform import Rotation, RotationSpline


def spline_cost(times, matrices):
    times = np.asarray(times, dtype=float)
    rotations = Rotation.from_matrix(np.asarray(matrices, dtype=float).reshape(-1, 3, 3))
    spline = RotationSpline(times, rotations)

    def integrand(t):
        a = spline(t, 2)
        return 0.5 * float(np.dot(a, a))

    total = 0.0
    for a, b in zip(times[:-1], times[1:]):
        value, _ = quad(integrand, a, b, epsabs=0.0, epsrel=1e-13, limit=200)
        total += value
    return total


def main():
    doc = json.load(sys.stdin)
    times, matrices = doc["t"], doc["R"]
    if len(times) != len(matrices) or len(times) < 2:
        sys.exit("rotation_spline_cost: need matching 't' and 'R' lists of at least two entries")
    print("%.12g" % spline_cost(times, matrices))


if __name__ == "__main__":
    main()
