"""symplan from Python: problems, studies and results as dicts, trajectories as numpy
arrays, over the shared library libsymplan.so through ctypes (no compiled extension).

    import numpy as np, symplan
    result = symplan.solve("data/sphere_interpolation.json")
    result["status"], result["trajectory"]["q"].shape      # ('converged', (101, 9))
    curve = symplan.plan("data/keyframes_so3.json")       # a plan's curve, read at any t
    curve(np.linspace(0, curve.T, 200), 1).shape           # ω: (200, 3)

The library is looked for at $SYMPLAN_LIBRARY, else inside the package (a wheel built by
`pip install .` carries the libsymplan.so it built), else beside an installed package
(PREFIX/lib/libsymplan.so for PREFIX/lib/python3/dist-packages/symplan, `make install`),
else in the source tree (build/libsymplan.so), else by ctypes.util.find_library("symplan").
See docs/python.md."""
from typing import Any

from ._api import StudyRun, check, solve, study, version
from ._lib import SymplanError
from .curve import Curve, Pose, plan
from .integrators import Trajectory, rattle
from .plot import plot

# tracebacks name the classes where they are used from: symplan.SymplanError
for _cls in (SymplanError, StudyRun, Trajectory, Curve, Pose):
    _cls.__module__ = __name__
del _cls

__all__ = ["Curve", "Pose", "SymplanError", "StudyRun", "Trajectory", "check", "plan", "plot", "rattle", "solve", "study",
           "version"]


def __getattr__(name: str) -> Any:
    """symplan.__version__: the version of the library loaded, sp_version() (lie/sp_version.h,
    the one place it is written; a wheel's own version is read from there too). Loads the
    library on first use, like every call of the package."""
    if name == "__version__":
        return version()
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
