#!/bin/sh
# The Python package as `pip install` makes it (make check-wheel, part of make test):
#   1. a copy of the checkout's files (a fresh clone with the working changes; nothing
#      of build/) builds a wheel offline: pip wheel --no-build-isolation --no-deps
#      --no-index, whose setup.py compiles libsymplan.so from the sources (the Makefile's
#      rule) and bundles it. Its objects go to CBUILD (SYMPLAN_BUILD_DIR), kept between
#      runs: the copy keeps the files' times, so a second run recompiles only what changed;
#   2. the wheel installs into a fresh virtual environment (python3 -m venv
#      --system-site-packages: Debian's numpy, pytest, matplotlib and pip are seen);
#   3. there, from a folder outside the checkout and with no PYTHONPATH or
#      SYMPLAN_LIBRARY, symplan is the installed package, loads the library inside it,
#      and its versions (the wheel's, __version__, sp_version()) are lie/sp_version.h's;
#   4. python/tests/ runs under pytest against it (SYMPLAN_TEST_PACKAGE makes the tests
#      check that they import the installed package, not python/symplan).
# Usage: tests/check_wheel.sh SYMPLAN_BIN CBUILD (run from the top folder; CC honoured).
# The work folder is a temporary one, removed unless a step fails.
set -eu
bin=$1
cbuild=$2
root=$(pwd)
python=/usr/bin/python3
fail() { echo "check_wheel: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symplan-wheel.XXXXXX")
trap 'status=$?; if [ $status -eq 0 ]; then rm -rf "$tmp"; else echo "check_wheel: failed; its files are in $tmp" >&2; fi' EXIT
mkdir "$tmp/src" "$tmp/dist" "$tmp/run"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -z --cached --others --exclude-standard |
        tar -C "$root" --null --ignore-failed-read -T - -cf - | tar -C "$tmp/src" -xf -
else
    tar -C "$root" --exclude=./build -cf - . | tar -C "$tmp/src" -xf -
fi
[ -e "$tmp/src/build" ] && fail "the copy of the checkout holds a build/ folder"

unset PYTHONPATH SYMPLAN_LIBRARY
export PYTHONDONTWRITEBYTECODE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
cd "$tmp/run"
start=$(date +%s)
SYMPLAN_BUILD_DIR=$cbuild $python -m pip wheel -q --no-build-isolation --no-deps --no-index -w "$tmp/dist" "$tmp/src" ||
    fail "pip wheel failed"
wheel=$(ls "$tmp"/dist/symplan-*.whl) || fail "no wheel in $tmp/dist"
built=$(date +%s)
$python -m venv --system-site-packages --without-pip "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --no-deps --no-index "$wheel" || fail "pip install $wheel failed"
version=$(sed -n 's/^#define SP_VERSION_STRING "\(.*\)"/\1/p' "$root/lie/sp_version.h")
"$tmp/venv/bin/python" - "$tmp/venv" "$version" <<'PY' || fail "the installed package is not what it should be"
import importlib.metadata, pathlib, sys
import symplan, symplan._lib
venv, version = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2]
package = pathlib.Path(symplan.__file__).resolve().parent
assert venv in package.parents, "symplan imported from %s, not from the virtual environment" % package
loaded = symplan._lib.lib()._name
assert loaded == str(package / "libsymplan.so"), "loaded %s, not the library in the package" % loaded
versions = (importlib.metadata.version("symplan"), symplan.__version__, symplan.version())
assert versions == (version,) * 3, "versions %s, not %s" % (versions, version)
print("check_wheel: symplan %s installed from the wheel loads %s" % (version, loaded))
PY
SYMPLAN_BIN=$bin SYMPLAN_TEST_PACKAGE="$tmp/venv" "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider \
    "$tmp/src/python/tests" || fail "python/tests failed against the installed wheel"
echo "check_wheel: $(basename "$wheel"): built in $((built - start)) s, installed and tested in $(($(date +%s) - built)) s"
