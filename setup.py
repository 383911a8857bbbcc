"""The build of the Python package's wheel (pyproject.toml names setuptools).

The package itself is pure Python (python/symplan/, ctypes); what the wheel adds is
libsymplan.so, built here from the repository's C sources by the Makefile's own rule
(`make SP_DEPS=check shared`: the same flags, objects and version script as `make`) and
copied into the package as symplan/libsymplan.so, where symplan._lib looks first. The
wheel is therefore tied to its platform (py3-none-linux_*) and needs the Debian libraries it
was built against at run time (libnlopt0, liblapacke, libcjson1).

The C build goes to build/python/c (SYMPLAN_BUILD_DIR overrides); CC is the Makefile's
(cc unless set in the environment). A missing header of NLopt, LAPACKE or cJSON fails
the build with the apt-get command that installs it."""
import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from setuptools.errors import BaseError

ROOT = Path(__file__).resolve().parent


def library_version():
    """SP_VERSION_STRING of lie/sp_version.h: the one place the version is written."""
    header = (ROOT / "lie" / "sp_version.h").read_text()
    found = re.search(r'^#define SP_VERSION_STRING "([^"]+)"', header, re.M)
    if not found:
        raise BaseError("symplan: no SP_VERSION_STRING in lie/sp_version.h")
    return found.group(1)


def _make(build_dir, *goals, quiet=False):
    """Runs make over the repository for goals with BUILD=build_dir; the environment's
    make variables (MAKEFLAGS of a make this build runs under) are left out, so that the
    library is built as `make` alone builds it. Returns (exit code, what it printed)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    command = ["make", "--no-print-directory", "-C", str(ROOT), "-j%d" % (os.cpu_count() or 1),
               "SP_DEPS=check", "BUILD=%s" % build_dir, *goals]
    done = subprocess.run(command, env=env, stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.STDOUT if quiet else None, text=True)
    return done.returncode, done.stdout or ""


def build_library(build_dir):
    """Builds libsymplan.so in build_dir and returns the path of the file (not a link)."""
    compiler = (os.environ.get("CC") or "cc").split()[0]
    if shutil.which("make") is None or shutil.which(compiler) is None:
        raise BaseError("symplan: building libsymplan.so needs make and a C compiler (%s): "
                        "sudo apt-get install make gcc" % compiler)
    # the headers first: a missing one is one line naming the apt-get command
    rc, said = _make(build_dir, "deps", quiet=True)
    if rc != 0:
        lines = [line for line in said.splitlines() if line.startswith("symplan:")]
        raise BaseError(lines[-1] if lines else said.strip() or "symplan: the dependency check failed")
    rc, _ = _make(build_dir, "shared")
    if rc != 0:
        raise BaseError("symplan: building libsymplan.so failed (make exited with %d; its output is above)" % rc)
    return Path(build_dir, "libsymplan.so.%s" % library_version())


class BuildPyWithLibrary(build_py):
    """build_py, then the C library built and copied into the package."""

    def run(self):
        super().run()
        base = self.get_finalized_command("build").build_base
        build_dir = Path(os.environ.get("SYMPLAN_BUILD_DIR") or Path(base, "c")).resolve()
        built = build_library(build_dir)
        target = Path(self.build_lib, "symplan", "libsymplan.so")
        self.mkpath(str(target.parent))
        shutil.copyfile(built, target)
        os.chmod(target, 0o755)


class PlatformDistribution(Distribution):
    """The package holds a platform's binary: installed to platlib, and the wheel is not
    a pure one (its tag: bdist_wheel below)."""

    def has_ext_modules(self):
        return True


commands = {"build_py": BuildPyWithLibrary}
try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """A wheel for this platform but any Python 3: the package holds a shared library
        (not a Python extension module), loaded through ctypes."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = PlatformWheel
except ImportError:  # no wheel package: pip then cannot build a wheel either
    pass

# setuptools' own folders (build/python/lib…, the egg-info) inside the Makefile's build/
SETUPTOOLS_BUILD = str(Path("build", "python"))
Path(SETUPTOOLS_BUILD).mkdir(parents=True, exist_ok=True)
setup(
    version=library_version(),
    cmdclass=commands,
    distclass=PlatformDistribution,
    options={"build": {"build_base": SETUPTOOLS_BUILD}, "egg_info": {"egg_base": SETUPTOOLS_BUILD}},
)
