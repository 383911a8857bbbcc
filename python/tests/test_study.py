"""check and study on study documents, against `symplan study`."""
import json

import pytest

import symplan
from conftest import command


def small_study(data):
    """heisenberg over two step counts (a base path that is absolute: a dict's relative
    base would be read from the working directory)."""
    return {"name": "steps", "base": str(data / "heisenberg.json"), "vary": {"steps": [10, 20]}}


def test_check_a_study(data):
    assert symplan.check(data / "studies" / "convergence.json") is None  # its base is relative to its folder
    assert symplan.check(small_study(data)) is None


def test_a_bad_case_names_the_case_and_path(data, tmp_path):
    study = small_study(data)
    study["vary"]["steps"] = [10, -1]
    path = tmp_path / "bad_study.json"
    path.write_text(json.dumps(study))
    rc, line = command("study", path, "-o", tmp_path / "out")
    assert rc == 2 and "cases[1]: steps" in line
    with pytest.raises(symplan.SymplanError) as e:
        symplan.check(path)
    assert str(e.value) == line
    with pytest.raises(symplan.SymplanError, match=r"^cases\[1\]: steps: "):
        symplan.study(study)


def test_study_writes_what_the_command_writes(data, tmp_path):
    run = symplan.study(small_study(data), tmp_path / "py")
    assert [r["settings"]["steps"] for r in run.results] == [10, 20]
    assert run.summary["done"] == 2 and [row["status"] for row in run.summary["rows"]] == ["ok", "ok"]
    assert run.results[1]["trajectory"]["q"].shape == (21, 3)
    study_file = tmp_path / "study.json"
    study_file.write_text(json.dumps(small_study(data)))
    assert command("study", study_file, "-o", tmp_path / "cli", "-j", "1")[0] == 0
    for name in ("case-0000.json", "case-0001.json"):  # the same bytes whoever wrote them
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    # a second call finds both cases done and keeps their files
    before = [(tmp_path / "py" / n).stat().st_mtime_ns for n in ("case-0000.json", "case-0001.json")]
    again = symplan.study(small_study(data), tmp_path / "py")
    assert [(tmp_path / "py" / n).stat().st_mtime_ns for n in ("case-0000.json", "case-0001.json")] == before
    assert again.summary["rows"][0]["input_hash"] == run.summary["rows"][0]["input_hash"]


def test_without_a_folder_nothing_is_left(data, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", None)
    run = symplan.study(small_study(data))
    assert len(run.results) == 2 and list(tmp_path.iterdir()) == []
