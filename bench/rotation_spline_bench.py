#!/usr/bin/python3
"""make bench, part curve: scipy's RotationSpline through the bench's schedules.

Reads JSON from stdin,
    {"schedules": [{"t": [0, t1, ..., tn], "R": [[9 numbers, row-major], ...]}, ...]}
(the first entry of each is the start orientation at t = 0) and prints one line per
schedule, in order:
    <construction seconds> <energy>
The construction time is that of RotationSpline(times, rotations) alone (the rotations
already built), the minimum over repeated runs: at least MIN_RUNS, and more while the
runs of that schedule together stay under BUDGET seconds (MAX_RUNS at most). Every
schedule is timed before any energy is integrated. The energy is 1/2 ∫|ω̇|² of the same
spline, integrated per interval by tests/rotation_spline_cost.py's spline_cost (imported,
not copied).

Run it from anywhere with /usr/bin/python3 (python3-scipy):
    /usr/bin/python3 bench/rotation_spline_bench.py < schedules.json
"""
import json
import os
import sys
import time

import numpy as np
from scipy.spatial.transform import Rotation, RotationSpline

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from rotation_spline_cost import spline_cost  # noqa: E402

MIN_RUNS = 5
MAX_RUNS = 200
BUDGET = 0.3  # seconds of construction per schedule


def construction_seconds(times, rotations):
    RotationSpline(times, rotations)  # warm-up (first-call overheads)
    best, spent, runs = float("inf"), 0.0, 0
    while runs < MIN_RUNS or (runs < MAX_RUNS and spent < BUDGET):
        t0 = time.perf_counter()
        RotationSpline(times, rotations)
        dt = time.perf_counter() - t0
        best, spent, runs = min(best, dt), spent + dt, runs + 1
    return best


def main():
    schedules = json.load(sys.stdin)["schedules"]
    data = []
    for s in schedules:
        times = np.asarray(s["t"], dtype=float)
        matrices = np.asarray(s["R"], dtype=float).reshape(-1, 3, 3)
        if len(times) != len(matrices) or len(times) < 2:
            sys.exit("rotation_spline_bench: need matching 't' and 'R' lists of at least two entries")
        data.append((times, matrices))
    seconds = [construction_seconds(t, Rotation.from_matrix(m)) for t, m in data]
    for (t, m), sec in zip(data, seconds):
        print("%.9g %.17g" % (sec, spline_cost(t, m)), flush=True)


if __name__ == "__main__":
    main()
