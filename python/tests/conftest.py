"""Shared by the tests: matplotlib without a display, the repository's paths and the
command they compare with (build/symplan, or $SYMPLAN_BIN)."""
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
