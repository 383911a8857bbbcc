"""solve, check, study and version: documents to the library as JSON text
(planner/api/sp_text_api.h) and results back as dicts with numpy arrays."""
from __future__ import annotations

import ctypes
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple, TypeVar, Union

import numpy as np

from ._lib import SymplanError, call_text, lib, text

# A problem or a study: a dict (numpy arrays and scalars in it are read as the lists and
# numbers they hold), or the path of a JSON file.
Document = Union[Dict[str, Any], str, "os.PathLike[str]"]
# A result as docs/results.md, "Results", describes it, trajectory and samples as numpy arrays.
Result = Dict[str, Any]
_T = TypeVar("_T")


def version() -> str:
    """The version of the library loaded ("0.2.0"): sp_version(), the same string as the
    package's version (symplan.__version__) when the library is the one it was built with."""
    return lib().sp_version().decode()


def _document(source: Document) -> Tuple[bytes, Optional[str], Optional[str]]:
    """(JSON bytes, the folder a study's relative "base" is read from, the file's name
    for error messages) of a dict or of a file's path."""
    if isinstance(source, dict):
        return text(source), None, None
    path = Path(source)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise SymplanError("%s: cannot read: %s" % (path, e.strerror)) from None
    return data, str(path.resolve().parent), str(path)


def _named(fn: Callable[[], _T], where: Optional[str]) -> _T:
    """Runs fn(); a SymplanError gets the file's name in front, as the command says it."""
    try:
        return fn()
    except SymplanError as e:
        if where is None:
            raise
        raise SymplanError("%s: %s" % (where, e), e.code) from None


def arrays(result: Result) -> Result:
    """The result with every numeric list of its "trajectory" and "samples" (rows per
    time) as a numpy array (a list of rows as a 2-D array; null, a non-finite number the
    library refused, as NaN); lists of names ("coordinates") stay lists."""
    for block in ("trajectory", "samples"):
        rows = result.get(block)
        if isinstance(rows, dict):
            for name, value in rows.items():
                if isinstance(value, list) and all(isinstance(x, (int, float, list)) or x is None for x in value):
                    rows[name] = np.array(value, dtype=float)
    return result


def solve(problem: Document, max_seconds: Optional[float] = None) -> Result:
    """Solves a problem (a dict, or the path of a problem file) and returns its result as
    `symplan solve` writes it (docs/results.md, "Results"), the rows of "trajectory" and
    "samples" as numpy arrays. A result that did not converge is returned too: read its
    "status". Raises SymplanError for a problem the reader refuses. With max_seconds the
    run stops after that long, as `symplan solve --max-seconds` does, and returns what it
    has with status "maxtime_reached".

        r = symplan.solve("data/heisenberg.json")
        r["status"], r["trajectory"]["q"].shape            # ('ok', (101, 3))"""
    data, _, where = _document(problem)
    out = ctypes.c_void_p()

    if max_seconds is not None and not (max_seconds > 0.0):
        raise SymplanError("max_seconds: must be a positive number of seconds (got %r)" % (max_seconds,), 2)

    def run():
        timed_out = call_text(
            lambda stop, error, size: lib().sp_solve_text(data, len(data), stop, ctypes.byref(out), error, size),
            max_seconds)
        try:
            result = json.loads(ctypes.string_at(out.value))
        finally:
            lib().sp_free_text(out)
        if timed_out and result.get("status") == "interrupted":
            result["status"] = "maxtime_reached"  # stopped by the clock, as the command says it
        return result

    return arrays(_named(run, where))


def check(document: Document) -> None:
    """Validates a problem or a study (a dict or a file's path) without running it, as
    `symplan check` does; a study's cases are expanded and each one is validated.
    Returns None; raises SymplanError with the line naming the JSON path at fault."""
    data, base_dir, where = _document(document)
    base = base_dir.encode() if base_dir else None
    _named(lambda: call_text(lambda stop, error, size: lib().sp_check_text(data, len(data), base, error, size)), where)


class StudyRun(NamedTuple):
    """What `study` returns: the results in case order (None for a case that failed; its
    summary row says why) and the summary (docs/studies.md)."""
    results: List[Optional[Result]]
    summary: Dict[str, Any]


def study(document: Document, out_dir: Optional[Union[str, "os.PathLike[str]"]] = None) -> StudyRun:
    """Runs a study (a dict or a study file's path) case by case, as `symplan study -j 1`
    does. With out_dir the case files and summary.json/summary.csv are written there,
    and a second call with the same folder resumes where a stopped one (Ctrl-C) ended;
    without, they go to a temporary folder that is removed. Returns a StudyRun."""
    data, base_dir, where = _document(document)
    base = base_dir.encode() if base_dir else None
    if out_dir is None:
        with tempfile.TemporaryDirectory(prefix="symplan-study-") as tmp:
            return study(document if where is None else where, tmp)
    os.makedirs(out_dir, exist_ok=True)
    folder = os.fsencode(out_dir)
    _named(lambda: call_text(
        lambda stop, error, size: lib().sp_study_text(data, len(data), base, folder, stop, error, size)), where)
    summary = json.loads(Path(out_dir, "summary.json").read_text())
    results = [arrays(json.loads(Path(out_dir, row["file"]).read_text())) if row["status"] != "failed" else None
               for row in summary["rows"]]
    return StudyRun(results, summary)
