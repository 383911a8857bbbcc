"""Finding and loading libsymplan.so, the prototypes of what the package calls, and the
error type. Everything else in the package goes through `lib()` and `call_text()`."""
import ctypes
import ctypes.util
import functools
import os
import threading
import time
from pathlib import Path
from typing import Iterator

# The codes of planner/api/sp_text_api.h.
TEXT_OK, TEXT_INTERNAL, TEXT_BAD_INPUT, TEXT_INTERRUPTED = 0, 1, 2, 3
ERROR_SIZE = 1024


class SymplanError(Exception):
    """A failure the library reported, with its one line ("steps: must be positive").
    `code` is the code of sp_text_api.h (2: bad input, 1: internal) or, from a stepper,
    the name of its sp_status ("newton_failed")."""

    def __init__(self, message, code=TEXT_BAD_INPUT):
        super().__init__(message)
        self.code = code


def _candidates() -> Iterator[Path]:
    """Where the library is looked for, in order (docs/python.md)."""
    env = os.environ.get("SYMPLAN_LIBRARY")
    if env:
        yield Path(env)
        return
    here = Path(__file__).resolve().parent
    # a wheel (pip install): the library built with it, inside the package
    yield here / "libsymplan.so"
    # installed: PREFIX/lib/python3/dist-packages/symplan beside PREFIX/lib/libsymplan.so
    if here.parent.name in ("dist-packages", "site-packages"):
        yield here.parents[2] / "libsymplan.so"
    # the source tree: python/symplan beside build/libsymplan.so
    yield here.parents[1] / "build" / "libsymplan.so"
    found = ctypes.util.find_library("symplan")
    if found:
        yield Path(found)


@functools.lru_cache(maxsize=None)
def lib() -> ctypes.CDLL:
    """The loaded library with its prototypes (loaded once, on first use)."""
    tried = []
    for path in _candidates():
        # a bare name from find_library is the loader's to resolve
        if path.is_file() or path.parent == Path("."):
            return _declare(ctypes.CDLL(str(path)))
        tried.append(str(path))
    if not tried:
        raise SymplanError("SYMPLAN_LIBRARY is set to nothing", TEXT_INTERNAL)
    raise SymplanError("libsymplan.so not found (tried %s); in the source tree build it with `make`, install the "
                       "package with `pip install --no-build-isolation .`, or set SYMPLAN_LIBRARY to its path"
                       % ", ".join(tried), TEXT_INTERNAL)


def _declare(so):
    c_char_p, c_size_t, c_int, c_void_p = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p
    flag = ctypes.POINTER(c_int)  # const volatile sig_atomic_t *, an int on Linux
    prototypes = {
        "sp_version": (c_char_p, []),
        "sp_status_name": (c_char_p, [c_int]),
        "sp_status_message": (c_char_p, [c_int]),
        # (char **) as a void pointer: the text is released with sp_free_text, not by ctypes
        "sp_solve_text": (c_int, [c_char_p, c_size_t, flag, ctypes.POINTER(c_void_p), c_char_p, c_size_t]),
        "sp_check_text": (c_int, [c_char_p, c_size_t, c_char_p, c_char_p, c_size_t]),
        "sp_study_text": (c_int, [c_char_p, c_size_t, c_char_p, c_char_p, flag, c_char_p, c_size_t]),
        "sp_free_text": (None, [c_void_p]),
        # a plan's curve (an opaque sp_plan_curve *); sample's arrays as addresses of doubles
        "sp_plan_curve_text": (c_int, [c_char_p, c_size_t, flag, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p),
                                       c_char_p, c_size_t]),
        "sp_plan_curve_kind": (c_int, [c_void_p]),
        "sp_plan_curve_dim": (c_int, [c_void_p]),
        "sp_plan_curve_elem_size": (c_int, [c_void_p]),
        "sp_plan_curve_start": (ctypes.c_double, [c_void_p]),
        "sp_plan_curve_end": (ctypes.c_double, [c_void_p]),
        "sp_plan_curve_y0": (c_int, [c_void_p, ctypes.POINTER(ctypes.c_double)]),
        "sp_plan_curve_sample": (c_int, [c_void_p, c_size_t, c_void_p, c_void_p, c_void_p, c_void_p]),
        "sp_plan_curve_free": (None, [c_void_p]),
    }
    for name, (restype, argtypes) in prototypes.items():
        fn = getattr(so, name)
        fn.restype, fn.argtypes = restype, argtypes
    return so


def _plain(value):
    """numpy's arrays and scalars (int64, float32, bool_) as the lists and numbers JSON
    has: whatever has tolist() gives it."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError("%s is not a JSON value" % type(value).__name__)


def text(document):
    """A document as the bytes the library reads: a dict is printed as JSON (Python
    prints floats so that they read back bitwise equal; numpy values as lists and
    numbers). A value JSON cannot hold is a SymplanError naming its type."""
    import json
    if not isinstance(document, dict):
        return document
    try:
        return json.dumps(document, default=_plain, allow_nan=True).encode()
    except (TypeError, ValueError) as e:
        raise SymplanError("problem: %s" % e) from None


def call_text(call, max_seconds=None):
    """Runs call(stop, error, error_size), a call of an sp_*_text function given the stop
    flag and the error buffer, and raises SymplanError unless it returns TEXT_OK. The
    call runs in a thread of its own so that Ctrl-C reaches Python while the library
    works: the flag is set, the library stops at its next check (sp_progress.h) and the
    KeyboardInterrupt goes on. After max_seconds (None: no limit) the flag is set the
    same way; returns whether that happened."""
    error = ctypes.create_string_buffer(ERROR_SIZE)
    flag = ctypes.c_int(0)
    outcome = {}
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    timed_out = False

    def run():
        try:
            outcome["rc"] = call(ctypes.byref(flag), error, ERROR_SIZE)
        except BaseException as e:  # a bad argument ctypes refused: raised below, in the caller's thread
            outcome["raised"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0.0 and not timed_out:
                flag.value = 1
                timed_out = True
            worker.join(0.1 if left is None or timed_out else min(0.1, max(left, 0.0)))
    except KeyboardInterrupt:
        flag.value = 1
        worker.join()
        raise
    if "raised" in outcome:
        raise outcome["raised"]
    if outcome["rc"] != TEXT_OK:
        raise SymplanError(error.value.decode(errors="replace"), outcome["rc"])
    return timed_out
