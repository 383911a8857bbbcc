#!/usr/bin/python3
"""The file formats against schema/*.schema.json (run by tests/test_schema.c):

  a. the schemas are valid draft 2020-12 and, with docs/reference.md, what schema/generate.py
     writes; every file in data/, data/custom/ and data/car/ validates against the problem
     schema, every file in data/studies/ against the study schema;
  b. the results symplan writes validate against the result schema: every data/ problem
     solved (parallel_parking with fewer starts), a study's case files (whose "case.problem"
     validates against the problem schema), and failures: newton_failed, maxeval_reached,
     non_finite and interrupted;
  c. the reader (`symplan check`) and the problem schema agree on a bad-input corpus: the
     malformed documents of tests/test_problem_file.c (its bad_cases table, edited as that
     file edits them), the derived problems of tests/test_failures.c, tests/fuzz/corpus/
     and tests/fuzz/regress/, data/ and data/car/. Every document the reader accepts, the schema accepts;
     every document it refuses for a reason a schema can express, the schema refuses.

What the schema cannot express (the reader's refusals listed in NOT_EXPRESSIBLE below):
text that is not one JSON document (malformed JSON, content after it, NaN), duplicate
members (a JSON Schema sees one of them), numbers that overflow to infinity (1e999),
the resource limits (--max-steps, --max-evaluations, --max-targets, --max-memory: options,
not the format), cross-field consistency of values (T = h * steps, target times within
(0, T] and increasing, enough steps for the keyframes), geometry (non-zero directions and
quaternions, rotation and SE(2) matrices, the heavy top's triangle inequality), and the
physics of the initial state (on the constraint, tangent to it, a velocity that satisfies
the constraints, a model that can be evaluated there).

Usage: schema_check.py SYMPLAN TMPDIR. Prints figures on stdout; exits 1 on a mismatch."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import jsonschema
from jsonschema import Draft202012Validator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def fail(msg):
    failures.append(msg)


# Reader messages whose reason no schema can express (the kinds above).
NOT_EXPRESSIBLE = [
    "malformed JSON", "content after the document", "NUL", "duplicate field", "must be a finite number",
    "exceeds the limit", "above the limit", "targets exceed",
    "is inconsistent with T/steps", "overflows", "must be within (0, T=", "must be later than",
    "one step per segment",
    "must be within [0, T=", "samples over T", "must be a non-zero direction", "must be a non-zero quaternion",
    "must be a rotation matrix",
    "must be an SE(2) matrix", "triangle inequality",
    "violates the constraint", "is off the constraint", "is not tangent", "cannot evaluate", "cannot be evaluated",
    "refuses these parameters", "non-finite momentum", "must not be the origin", "gives no body velocity",
    "the car's footprint here", "with xmin < xmax",
]


def load_schemas():
    s = {}
    for name in ("problem", "study", "result"):
        with open(os.path.join(ROOT, "schema", name + ".schema.json"), encoding="utf-8") as f:
            s[name] = json.load(f)
        Draft202012Validator.check_schema(s[name])
    return {k: Draft202012Validator(v) for k, v in s.items()}


def strict_json(text):
    """The document, or None when it is not one strict JSON document (NaN, Infinity), or
    nests deeper than Python's recursion allows (tests/fuzz/corpus/hostile-deep-nesting*.json nest 1000 deep)."""
    def refuse(c):
        raise ValueError(c)
    try:
        return json.loads(text, parse_constant=refuse)
    except (ValueError, RecursionError):
        return None


def has_duplicates(text):
    dup = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            dup.append(1)
        return dict(pairs)
    try:
        json.loads(text, object_pairs_hook=hook)
    except ValueError:
        pass
    return bool(dup)


def first_error(validator, doc):
    e = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    return None if e is None else "%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200])


# ------------------------------------------------- C tables of the test suite --

TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*)|([{},])|(-?\d+)|(\s+|/\*.*?\*/|//[^\n]*)', re.S)


def c_string(body):
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode("utf-8") \
        if "\\" in body else body


def c_macros(text):
    macros = {}
    for m in re.finditer(r'^#define (\w+)[ \t]*\\?\n?((?:.*\\\n)*.*)$', text, re.M):
        body = m.group(2).replace("\\\n", "\n")
        parts = re.findall(r'"((?:[^"\\]|\\.)*)"', body)
        if parts and re.fullmatch(r'(\s*"(?:[^"\\]|\\.)*"\s*)+', body):
            macros[m.group(1)] = "".join(c_string(p) for p in parts)
    return macros


def c_initializer(text, name):
    """The initializer of `static const T name[] = {...};` as nested lists of strings/None/ints."""
    start = re.search(r'\b' + re.escape(name) + r'\[\]\s*=\s*\{', text)
    pos, macros = start.end() - 1, c_macros(text)

    def parse(pos):  # at '{'
        items, cur, pos = [], None, pos + 1
        while True:
            m = TOKEN.match(text, pos)
            if not m:
                raise ValueError("cannot read %s near %r" % (name, text[pos:pos + 40]))
            pos = m.end()
            s, ident, punct, num, _ = m.groups()
            if s is not None:
                cur = (cur or "") + c_string(s)
            elif ident is not None:
                cur = (cur or "") + macros[ident] if ident in macros else (None if ident == "NULL" else cur)
            elif num is not None:
                cur = int(num)
            elif punct == "{":
                cur, pos = parse(pos - 1)
            elif punct is not None:
                if cur is not None or punct == ",":
                    items.append(cur)
                cur = None
                if punct == "}":
                    return items, pos
    return parse(pos)[0]


class Raw:
    def __init__(self, text):
        self.text = text


def dump(v):
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, list) and not (v and isinstance(v[0], tuple)):
        return "[" + ",".join(dump(x) for x in v) + "]"
    if isinstance(v, list):  # an object as pairs
        return "{" + ",".join(json.dumps(k) + ":" + dump(x) for k, x in v) + "}"
    return json.dumps(v)


def apply_edit(doc, path, value):
    """tests/test_problem_file.c apply_edit: replace, add (raw text) or remove (NULL)."""
    steps = re.findall(r'([^.\[\]]+)|\[(\d+)\]', path)
    node = doc
    for key, idx in steps[:-1]:
        node = dict(node)[key] if key else node[int(idx)]
    key, idx = steps[-1]
    if value is None:
        if key:
            node[:] = [(k, x) for k, x in node if k != key]
        else:
            del node[int(idx)]
        return
    for i, (k, _) in enumerate(node):
        if k == key:
            node[i] = (k, Raw(value))
            return
    node.append((key, Raw(value)))


def pairs(text):
    return json.loads(text, object_pairs_hook=list)


def bad_case_documents():
    with open(os.path.join(ROOT, "tests", "test_problem_file.c"), encoding="utf-8") as f:
        text = f.read()
    docs = []
    for entry in c_initializer(text, "bad_cases"):
        name, base, edits = entry[0], entry[1], [e for e in entry[2] if isinstance(e, list) and e and e[0]]
        if not edits:
            docs.append(("test_problem_file.c:" + name, base))
            continue
        doc = pairs(base)
        for e in edits:
            apply_edit(doc, e[0], e[1] if len(e) > 1 else None)
        docs.append(("test_problem_file.c:" + name, dump(doc)))
    return docs


def derived(file, changes):
    """tests/test_failures.c derived_problem: members replaced, null removes."""
    with open(os.path.join(ROOT, "data", file), encoding="utf-8") as f:
        doc = json.load(f)
    for k, v in json.loads(changes).items():
        doc.pop(k, None)
        if v is not None:
            doc[k] = v
    return json.dumps(doc)


def failure_documents():
    with open(os.path.join(ROOT, "tests", "test_failures.c"), encoding="utf-8") as f:
        text = f.read()
    docs = []
    for table in ("newton_cases", "limit_cases"):
        for e in c_initializer(text, table):
            docs.append(("test_failures.c:%s:%s" % (table, e[0]), derived(e[1], e[2])))
    return docs


def file_documents():
    docs = []
    for folder in ("data", os.path.join("data", "car"), os.path.join("tests", "fuzz", "corpus"),
                   os.path.join("tests", "fuzz", "regress")):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(".json") or name.split("-")[0] in ("result", "study", "summary"):
                continue
            with open(os.path.join(ROOT, folder, name), encoding="utf-8", errors="surrogateescape") as f:
                docs.append((os.path.join(folder, name), f.read()))
    return docs


# ------------------------------------------------------------------- checks --

def check_reader_agrees(symplan, tmp, v):
    docs = bad_case_documents() + failure_documents() + file_documents()
    folder = os.path.join(tmp, "corpus")
    os.makedirs(folder, exist_ok=True)

    def reader(i):
        path = os.path.join(folder, "doc-%04d.json" % i)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(docs[i][1])
        r = subprocess.run([symplan, "check", path], capture_output=True, text=True, errors="replace")
        return r.returncode, r.stderr.strip().replace(path + ": ", "", 1)
    with ThreadPoolExecutor(2) as pool:
        verdicts = list(pool.map(reader, range(len(docs))))
    figures = {"documents": len(docs), "accepted": 0, "refused": 0, "refused_expressible": 0,
               "refused_not_expressible": 0, "not_expressible_refused_by_schema_too": 0}
    for (name, text), (rc, message) in zip(docs, verdicts):
        doc = strict_json(text)
        schema_error = None if doc is None else first_error(v["problem"], doc)
        if rc == 0:
            figures["accepted"] += 1
            if doc is None or has_duplicates(text):
                fail("%s: the reader accepts what is not strict JSON" % name)
            elif schema_error:
                fail("%s: the reader accepts it, the schema refuses it: %s" % (name, schema_error))
            continue
        if rc != 2:
            fail("%s: symplan check exited %d: %s" % (name, rc, message))
            continue
        figures["refused"] += 1
        if doc is None or has_duplicates(text) or any(k in message for k in NOT_EXPRESSIBLE):
            figures["refused_not_expressible"] += 1
            figures["not_expressible_refused_by_schema_too"] += doc is not None and schema_error is not None
            continue
        figures["refused_expressible"] += 1
        if schema_error is None:
            fail("%s: the reader refuses it (%s), the schema accepts it" % (name, message))
    return figures


def shortened(name):
    """A data/ problem as it is, but simulations cut to 2000 steps (the horizon with them)
    and the parking plan to one start of two evaluations (status target_not_reached); a
    simulation that chooses its steps from error_tolerance runs as it is."""
    with open(os.path.join(ROOT, "data", name), encoding="utf-8") as f:
        doc = json.load(f)
    if os.path.basename(name) == "parallel_parking.json":
        doc["starts"], doc["optimizer"] = 1, {"maxeval": 2}
    elif doc["task"] == "simulate" and doc.get("steps", 0) > 2000:  # not an error_tolerance run
        if "T" in doc:
            doc["T"] = doc["T"] * 2000 / doc["steps"]
        doc["steps"] = 2000
        if "T" in doc and "h" in doc:
            del doc["T"]
    return json.dumps(doc)


def solve(symplan, problem, out, extra=()):
    return subprocess.run([symplan, "solve", problem, "-o", out, *extra], capture_output=True, text=True)


def check_results(symplan, tmp, v):
    folder = os.path.join(tmp, "results")
    os.makedirs(folder, exist_ok=True)
    jobs = []
    for name in sorted(os.listdir(os.path.join(ROOT, "data"))):
        if name.endswith(".json"):
            jobs.append((name, shortened(name), None))
    for name in sorted(os.listdir(os.path.join(ROOT, "data", "custom"))):
        if name.endswith(".json"):
            jobs.append(("custom_" + name, shortened(os.path.join("custom", name)), None))
    failures_wanted = [
        ("newton_failed", derived("heisenberg.json", '{"h": 1000, "steps": 3}'), "newton_failed"),
        ("newton_failed_rattle", derived("spherical_pendulum.json",
                                         '{"h": 10, "steps": 3, "record_every": null, "symplecticity_defect": null}'),
         "newton_failed"),
        ("maxeval", derived("sphere_interpolation.json",
                            '{"optimizer": {"maxeval": 3}, "method": "single_shooting"}'), "maxeval_reached"),
        ("non_finite", derived("sphere_simulate.json", '{"xi0": [1e-310, 2, 0], "p0": [0, 0, 0], '
                                                       '"nu0": [1e-10, 0, 1.5], "T": 10, "steps": 10}'),
         "non_finite"),
    ]
    jobs += failures_wanted

    def run(job):
        name, text, _ = job
        problem, out = os.path.join(folder, "problem-" + name), os.path.join(folder, "result-" + name)
        problem += "" if problem.endswith(".json") else ".json"
        out += "" if out.endswith(".json") else ".json"
        with open(problem, "w", encoding="utf-8") as f:
            f.write(text)
        solve(symplan, problem, out)
        return out
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(run, jobs))
    # interrupted: SIGINT once the run reports its first step
    problem, out = os.path.join(folder, "problem-interrupted.json"), os.path.join(folder, "result-interrupted.json")
    with open(problem, "w", encoding="utf-8") as f:
        f.write(derived("spherical_pendulum.json", '{"steps": 5000000, "record_every": 1000}'))
    p = subprocess.Popen([symplan, "solve", problem, "-o", out, "-v"], stderr=subprocess.PIPE, text=True)
    for line in p.stderr:
        if "step" in line:
            p.send_signal(signal.SIGINT)
            break
    p.stderr.read()
    p.wait()
    outs.append(out)
    jobs.append(("interrupted", None, "interrupted"))
    # a study's case files
    study_dir = os.path.join(folder, "study")
    subprocess.run([symplan, "study", os.path.join(ROOT, "data", "studies", "convergence.json"), "-o", study_dir,
                    "-j", "2"], capture_output=True)
    cases = sorted(os.path.join(study_dir, n) for n in os.listdir(study_dir) if n.startswith("case-")) \
        if os.path.isdir(study_dir) else []
    if not cases:
        fail("the convergence study wrote no case file")
    statuses = {}
    for (name, _, want), out in list(zip(jobs, outs)) + [((os.path.basename(c), None, None), c) for c in cases]:
        if not os.path.exists(out):
            fail("%s: no result written" % name)
            continue
        with open(out, encoding="utf-8") as f:
            res = json.load(f)
        statuses[res.get("status")] = statuses.get(res.get("status"), 0) + 1
        if want and res.get("status") != want:
            fail("%s: status %s, expected %s" % (name, res.get("status"), want))
        err = first_error(v["result"], res)
        if err:
            fail("%s: the result does not validate: %s" % (name, err))
        if "case" in res:
            err = first_error(v["problem"], res["case"]["problem"])
            if err:
                fail("%s: case.problem does not validate: %s" % (name, err))
    return len(outs) + len(cases), statuses


def main():
    symplan, tmp = sys.argv[1], sys.argv[2]
    start = time.time()
    tmp = os.path.join(tmp, "schema-check")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    v = load_schemas()
    r = subprocess.run([sys.executable, os.path.join(ROOT, "schema", "generate.py"), "--check"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(r.stdout.strip() or r.stderr.strip())
    # a. the files in data/
    n_data = 0
    for folder, kind in (("data", "problem"), (os.path.join("data", "custom"), "problem"),
                         (os.path.join("data", "car"), "problem"), (os.path.join("data", "studies"), "study")):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".json"):
                with open(os.path.join(ROOT, folder, name), encoding="utf-8") as f:
                    err = first_error(v[kind], json.load(f))
                n_data += 1
                if err:
                    fail("%s/%s: does not validate against the %s schema: %s" % (folder, name, kind, err))
    # b. results
    n_results, statuses = check_results(symplan, tmp, v)
    # c. the reader and the schema
    figures = check_reader_agrees(symplan, tmp, v)
    print("data files validated: %d" % n_data)
    print("results validated: %d (%s)" % (n_results, ", ".join("%s %d" % kv for kv in sorted(statuses.items()))))
    print("reader against schema: " + ", ".join("%s %d" % kv for kv in figures.items()))
    print("seconds: %.1f" % (time.time() - start))
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
