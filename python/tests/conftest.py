"""Shared by the tests: matplotlib without a display, the repository's paths and the
command they compare with (build/symplan, or $SYMPLAN_BIN). They test the package that
`import symplan` finds: python/symplan with PYTHONPATH=python (make test), or an installed
wheel (tests/check_wheel.sh)."""
import json
import os
import subprocess
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
BIN = Path(os.environ.get("SYMPLAN_BIN", ROOT / "build" / "symplan"))

# tests/check_wheel.sh runs these tests against a wheel installed in a virtual environment
# and names it here: the package under test must be that one, with its own library.
if os.environ.get("SYMPLAN_TEST_PACKAGE"):
    import symplan
    import symplan._lib

    _package = Path(symplan.__file__).resolve().parent
    assert Path(os.environ["SYMPLAN_TEST_PACKAGE"]).resolve() in _package.parents, "testing %s" % _package
    assert symplan._lib.lib()._name == str(_package / "libsymplan.so"), symplan._lib.lib()._name


def command(*args, cwd=None):
    """Runs the symplan command; returns (exit code, stderr)."""
    done = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    return done.returncode, done.stderr.strip()


@pytest.fixture
def data():
    return DATA


@pytest.fixture
def load():
    return lambda path: json.loads(Path(path).read_text())
