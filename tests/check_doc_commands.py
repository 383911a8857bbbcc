#!/usr/bin/python3
"""Every symplan command the README and docs/*.md show runs as shown (run by `make test`).

Takes each line of a ```sh block (indented ones too) that starts with `build/symplan` or
`symplan`, and runs it with /bin/sh, unchanged, in one scratch folder laid out like the
top of the sources: `data` and `examples` are links to the real ones, `build/symplan` a
link to the command under test, so what a command writes (build/..., camera.json) stays
in the scratch folder. The README goes first, then docs/*.md in name order, each block in
its order, so a command may read what an earlier one wrote (a study's folder, say). A
command passes when it exits 0, or N after a `<!-- exit N -->` line just before its block.
Left out:

  - a command with a placeholder: a word in capitals, alone or before an extension
    (FILE.json, RESULT.json, DIR, FIG.svg, A.json), or an ellipsis (…);
  - a block after a `<!-- not run: why -->` line (installs, pip, MPI, long benches).

    tests/check_doc_commands.py [-v] BUILD/symplan

Prints a line for each command that fails (each command and its time with -v) and one
for them all; exits 1 if any fails. About 2 s."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLACEHOLDER = re.compile(r"(^|[\s=/\[])[A-Z][A-Z0-9_]*(\.[a-z]+)?($|[\s\]])|…")
COMMAND = re.compile(r"^(build/)?symplan(\s|$)")
MARK = re.compile(r"^\s*<!--\s*(not run:.*|exit\s+(\d+))\s*-->\s*$")


def commands(path):
    """(line number, command, expected exit) of the runnable commands of a Markdown file."""
    out, fence, skip, status, mark = [], None, False, 0, None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        stripped = line.strip()
        if fence is None:
            m = MARK.match(line)
            if m:
                mark = m
                continue
            if stripped.startswith("```"):
                fence = stripped[3:].strip()
                skip = mark is not None and mark.group(1).startswith("not run")
                status = int(mark.group(2)) if mark is not None and mark.group(2) else 0
            if stripped:
                mark = None
            continue
        if stripped.startswith("```"):
            fence = None
            continue
        if fence != "sh" or skip or not COMMAND.match(stripped):
            continue
        command = re.sub(r"\s+#.*$", "", stripped)  # (a comment after the command)
        if PLACEHOLDER.search(command):
            continue
        out.append((n, command, status))
    return out


def main():
    verbose = "-v" in sys.argv[1:]
    symplan = os.path.abspath([a for a in sys.argv[1:] if a != "-v"][0])
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    scratch = tempfile.mkdtemp(prefix="symplan-doc-commands-")
    failed, ran, start = 0, 0, time.time()
    try:
        os.makedirs(os.path.join(scratch, "build"))
        for name in ("data", "examples"):
            os.symlink(os.path.join(ROOT, name), os.path.join(scratch, name))
        os.symlink(symplan, os.path.join(scratch, "build", "symplan"))
        env = dict(os.environ, PATH=os.path.join(scratch, "build") + os.pathsep + os.environ.get("PATH", ""))
        for path in files:
            rel = os.path.relpath(path, ROOT)
            for n, command, status in commands(path):
                t = time.time()
                r = subprocess.run(["/bin/sh", "-c", command], cwd=scratch, env=env, capture_output=True, text=True,
                                   timeout=120)
                ran += 1
                ok = r.returncode == status
                if verbose or not ok:
                    print("%s %s:%d (%.2f s): %s" % ("ok  " if ok else "FAIL", rel, n, time.time() - t, command))
                if not ok:
                    failed += 1
                    print("     exit %d, expected %d; stderr: %s" % (r.returncode, status, r.stderr.strip()[:2000]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("doc commands: %d run, %d failed, %.1f s" % (ran, failed, time.time() - start))
    return 1 if failed or not ran else 0


if __name__ == "__main__":
    sys.exit(main())
