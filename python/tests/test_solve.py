"""solve, check, version and the errors, against the command on the same files."""
import json
import re

import numpy as np
import pytest

import symplan
from conftest import ROOT, command


def same(python, written, path="result"):
    """The Python result equals the command's file number for number (bitwise), arrays
    included; wall-clock numbers (*_seconds) differ from run to run and are skipped."""
    if isinstance(python, np.ndarray):
        assert np.array_equal(python, np.array(written, dtype=float)), path
    elif isinstance(python, dict):
        assert python.keys() == written.keys(), path
        for k in python:
            if not k.endswith("_seconds"):
                same(python[k], written[k], "%s.%s" % (path, k))
    elif isinstance(python, list):
        assert len(python) == len(written), path
        for i, (a, b) in enumerate(zip(python, written)):
            same(a, b, "%s[%d]" % (path, i))
    else:
        assert python == written and type(python) is type(written), path


@pytest.mark.parametrize("name", ["sphere_interpolation", "heisenberg"])
def test_solve_equals_the_command(name, data, load, tmp_path):
    out = tmp_path / "result.json"
    assert command("solve", data / (name + ".json"), "-o", out)[0] == 0
    result = symplan.solve(data / (name + ".json"))
    same(result, load(out))
    # trajectories are arrays, rows as 2-D arrays
    q = result["trajectory"]["q"]
    assert isinstance(q, np.ndarray) and q.ndim == 2 and q.shape[0] == len(result["trajectory"]["t"])


def test_a_dict_is_the_file(data, load):
    problem = load(data / "heisenberg.json")
    a, b = symplan.solve(problem), symplan.solve(str(data / "heisenberg.json"))
    assert np.array_equal(a["trajectory"]["p"], b["trajectory"]["p"])
    assert a["diagnostics"] == b["diagnostics"]


def test_numpy_values_in_a_dict_are_json(data, load):
    """Arrays and numpy scalars (int64 steps, a float32 array) read as the lists and
    numbers they hold; what JSON cannot hold is a SymplanError, not a TypeError."""
    problem = load(data / "heisenberg.json")
    plain = symplan.solve(problem)
    problem["steps"] = np.int64(problem["steps"])
    problem["q0"] = np.array(problem["q0"], dtype=float)
    numpy = symplan.solve(problem)
    assert np.array_equal(plain["trajectory"]["q"], numpy["trajectory"]["q"])
    problem["steps"] = object()
    with pytest.raises(symplan.SymplanError, match="problem: object is not a JSON value"):
        symplan.solve(problem)


def test_numpy_everywhere_in_a_plan(data, load):
    """A keyframe plan whose every number is numpy's (float64 scalars, float64 and int64
    arrays, a tuple of targets; numpy booleans in a simulation) is the plan of plain
    numbers, bit for bit; results come back as arrays, the samples' rows too."""
    problem = load(data / "keyframes_camera.json")
    plain = symplan.solve(problem)
    problem["T"] = np.float64(problem["T"])
    problem["g0"] = np.array(problem["g0"], dtype=np.int64)
    for target in problem["targets"]:
        target["t"], target["q"] = np.float64(target["t"]), np.array(target["q"])
    problem["targets"] = tuple(problem["targets"])
    numpy = symplan.solve(problem)
    for block in ("trajectory", "samples"):
        for name, rows in plain[block].items():
            assert isinstance(rows, np.ndarray) and np.array_equal(rows, numpy[block][name]), (block, name)
    assert plain["samples"]["q"].shape == (241, 4) and plain["cost"] == numpy["cost"]
    simulation = load(data / "heisenberg.json")
    simulation.update(symplecticity_defect=np.bool_(False), q0=np.zeros(3), p0=np.array([[0.1, 0.3, 1.0]])[0])
    assert "symplecticity_defect" not in symplan.solve(simulation)["diagnostics"]


def test_version():
    header = (ROOT / "lie" / "sp_version.h").read_text()
    assert symplan.version() == symplan.__version__ == re.search(r'SP_VERSION_STRING "(.*)"', header).group(1)


def test_bad_problem_names_the_json_path(data, load, tmp_path):
    problem = load(data / "sphere_interpolation.json")
    problem["targets"][2]["t"] = 0.4  # before targets[1]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(problem))
    rc, line = command("check", path)
    assert rc == 2 and "targets[2].t" in line
    for call in (symplan.check, symplan.solve):
        with pytest.raises(symplan.SymplanError) as e:
            call(path)
        assert str(e.value) == line and e.value.code == 2  # the command's line, file name first
        with pytest.raises(symplan.SymplanError) as e:
            call(problem)
        assert str(e.value) == line[len(str(path)) + 2:]  # a dict has no file name


def test_malformed_and_missing_files(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"task": "simulate",\n  "model": }')
    with pytest.raises(symplan.SymplanError, match=r"broken.json: malformed JSON at line 2"):
        symplan.solve(path)
    with pytest.raises(symplan.SymplanError, match="cannot read"):
        symplan.check(tmp_path / "absent.json")


def test_limits_apply(data, load):
    problem = load(data / "heisenberg.json")
    problem["steps"] = 10**9
    with pytest.raises(symplan.SymplanError, match=r"^steps: .*exceeds the limit"):
        symplan.solve(problem)


def test_ctrl_c_stops_the_library(data, load):
    """Ctrl-C during a long solve sets the library's stop flag: the solve ends at its next
    step and the KeyboardInterrupt reaches the caller at once, not minutes later."""
    import os
    import signal
    import threading
    import time

    problem = load(data / "spherical_pendulum.json")
    problem.update(steps=10**7, record_every=10**4, symplecticity_defect=False)  # ~4 s
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        symplan.solve(problem)
    assert time.monotonic() - start < 1.5


def test_quaternion_order_passes_through(data, load, tmp_path):
    """A problem dict with "quaternion_order" reaches the library as it is: the result is
    the command's on the same file, in [x, y, z, w], the input echo holds the member, and
    the caller's dict is left alone."""
    problem = load(data / "keyframes_so3.json")
    problem["quaternion_order"] = "xyzw"
    for target in problem["targets"]:
        target["q"] = target["q"][1:] + target["q"][:1]
    before = json.dumps(problem)
    path = tmp_path / "xyzw.json"
    path.write_text(before)
    out = tmp_path / "result.json"
    assert command("solve", path, "-o", out)[0] == 0
    result = symplan.solve(problem)
    assert json.dumps(problem) == before
    same(result, load(out))
    assert result["quaternion_order"] == "xyzw" and result["input"]["quaternion_order"] == "xyzw"
    twin = symplan.solve(data / "keyframes_so3.json")  # the same keyframes in [w, x, y, z]
    assert twin["quaternion_order"] == "wxyz"
    assert np.array_equal(result["trajectory"]["quaternion"], np.roll(twin["trajectory"]["quaternion"], -1, axis=1))
    assert result["targets"][0]["target"] == twin["targets"][0]["target"][1:] + twin["targets"][0]["target"][:1]


def test_quaternion_order_is_refused_where_there_are_no_orientations(data, load):
    problem = load(data / "sphere_interpolation.json")
    problem["quaternion_order"] = "xyzw"
    with pytest.raises(symplan.SymplanError, match=r"^quaternion_order: only plans of orientations") as e:
        symplan.check(problem)
    assert e.value.code == 2
    problem = load(data / "keyframes_so3.json")
    problem["quaternion_order"] = "XYZW"
    with pytest.raises(symplan.SymplanError, match=r"^quaternion_order: unknown quaternion order 'XYZW' "
                                                   r"\(known: wxyz, xyzw\)$"):
        symplan.check(problem)


def test_max_seconds_stops_a_long_solve(data, load):
    """max_seconds stops the run as `symplan solve --max-seconds` does: the result comes
    back whole with status maxtime_reached, its trajectory up to where it stopped."""
    problem = load(data / "spherical_pendulum.json")
    problem.update(steps=10**7, record_every=10**4, symplecticity_defect=False)  # ~4 s
    result = symplan.solve(problem, max_seconds=0.3)
    assert result["status"] == "maxtime_reached"
    assert 0 < result["trajectory"]["t"][-1] < problem["h"] * problem["steps"]
    with pytest.raises(symplan.SymplanError, match="max_seconds"):
        symplan.solve(problem, max_seconds=0)
