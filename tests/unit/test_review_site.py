"""The review site builder on publications written into a real local store (tests/site_support):
what each page holds, incremental rebuilds, byte-stable output, and clear errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from storage.content import FilesystemStore
from cli.arkevo import main
from review_site.build import STATE, SiteOutputError, build_site
from review_site.sources import SiteSourceError, Source
from storage.objects import FilesystemObjects
from tests.site_support.publications import frozen_revision, write_reviewed_publication, write_revision


@pytest.fixture
def var(tmp_path, monkeypatch):
    root = tmp_path / "var"
    root.mkdir()
    monkeypatch.setenv("ARKEVO_VAR", str(root))
    monkeypatch.delenv("ARKEVO_STORE", raising=False)
    monkeypatch.delenv("ARKEVO_OBJECTS", raising=False)
    return root


@pytest.fixture
def source(var) -> Source:
    return Source(FilesystemObjects(var), FilesystemStore(var / "store"))


def test_a_frozen_revision_gives_an_index_task_trial_pages_images_and_plots(source, tmp_path):
    frozen_revision(source, tmp_path)
    out = tmp_path / "site"
    result = build_site(source, out, dataset=("rv", "r1"))
    assert (result.tasks, result.campaigns) == (2, 0)
    index = (out / "index.html").read_text()
    assert 'data-group="MOD"' in index and 'data-profession="PRF-LOOKDEV"' in index
    # the revision's yield and cost (`arkevo dataset report`), with its funnel drawn
    assert "<h2>Yield and cost</h2>" in index and 'src="plots/funnel-' in index
    assert 'data-split="test"' in index and ">train</option>" in index
    task = (out / "tasks" / "table-model.html").read_text()
    assert "Model a four-legged dining table" in task and "Spec for table-model: 1.2 m wide." in task
    assert "defect:short_legs" in task and "0.600" in task  # calibration table and margin
    assert "[1.000, 1.000] n=3" in task  # oracle's interval over its 3 attempts
    # 6 evaluation trials + 3 calibration samples per task, each its own page
    assert len(list((out / "trials" / "table-model").glob("*.html"))) == 9
    trial = (out / "trials" / "table-model" / "nop-2.html").read_text()
    assert "silhouette_iou" in trial and "REQ-SIZE" in trial and "score record" in trial
    # every image a page references is in the site, and the plot is a valid SVG
    for page in out.rglob("*.html"):
        for ref in _refs(page.read_text()):
            assert (page.parent / ref).resolve().is_file(), f"{page}: {ref} missing"
    [plot] = [p for p in (out / "plots").glob("scores-*.svg") if p.name in task]
    assert ET.parse(plot).getroot().tag.endswith("svg")
    state = json.loads((out / STATE).read_text())
    assert "index.html" in state["pages"] and state["scope"]["frozen"] is True


def _refs(html: str) -> list[str]:
    import re

    return [r for r in re.findall(r'(?:src|href)="([^"#]+)"', html) if not r.startswith(("http", "mailto"))]


def test_rebuilds_are_incremental_and_a_new_publication_writes_only_its_pages(source, tmp_path):
    write_revision(source.objects, "rv", "r2", {"train": 2})
    write_reviewed_publication(source.objects, source.store, tmp_path, "rv", "r2", "table-model", 1)
    out = tmp_path / "site"
    first = build_site(source, out, dataset=("rv", "r2"))
    assert first.pages_written == 1 + 1 + 9 and first.pages_unchanged == 0  # index, task, trials
    again = build_site(source, out, dataset=("rv", "r2"))
    assert (again.pages_written, again.files_written, again.plots_drawn) == (0, 0, 0)
    before = {p: p.stat().st_mtime_ns for p in (out / "trials" / "table-model").glob("*.html")}
    write_reviewed_publication(source.objects, source.store, tmp_path, "rv", "r2", "render-setup", 2)
    landed = build_site(source, out, dataset=("rv", "r2"))
    assert landed.pages_written == 1 + 1 + 9  # the index again, and the new task's pages
    assert landed.pages_unchanged == 1 + 9
    assert before == {p: p.stat().st_mtime_ns for p in (out / "trials" / "table-model").glob("*.html")}
    assert "render-setup" in (out / "index.html").read_text()


def test_the_same_inputs_give_the_same_bytes(source, tmp_path):
    frozen_revision(source, tmp_path)
    a, b = tmp_path / "a", tmp_path / "b"
    build_site(source, a, dataset=("rv", "r1"))
    build_site(source, b, dataset=("rv", "r1"))
    files_a = {p.relative_to(a): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert files_a == files_b


def test_a_single_publication_site(source, tmp_path, var):
    pubs = frozen_revision(source, tmp_path)
    folder = pubs["mug-material"][0]
    out = tmp_path / "one"
    assert main(["site", "build", "--publication", str(var / folder), "--out", str(out)]) == 0
    index = (out / "index.html").read_text()
    assert "mug-material" in index and "table-model" not in index


def test_a_changed_publication_file_is_named_and_no_page_is_recorded(source, tmp_path, var, capsys):
    pubs = frozen_revision(source, tmp_path)
    target = var / pubs["table-model"][0] / "task" / "instruction.md"
    target.chmod(0o644)
    target.write_text("something else\n")
    out = tmp_path / "site"
    with pytest.raises(SiteSourceError, match="instruction.md: sha256 [0-9a-f]{64} .* but publication.json lists"):
        build_site(source, out, dataset=("rv", "r1"))
    assert json.loads((out / STATE).read_text())["pages"] == {}  # nothing recorded as built
    assert main(["site", "build", "--dataset", "rv/r1", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "instruction.md: sha256" in err and "but publication.json lists" in err


def test_a_folder_holding_something_else_is_refused(source, tmp_path):
    frozen_revision(source, tmp_path)
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(SiteOutputError, match="is not an arkevo site"):
        build_site(source, out, dataset=("rv", "r1"))
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("argv", [["site"], ["site", "build"]])
def test_help_exits_zero_and_writes_nothing(argv, var, capsys):
    with pytest.raises(SystemExit) as e:
        main([*argv, "--help"])
    assert e.value.code == 0
    assert "usage: arkevo site" in capsys.readouterr().out
    assert list(var.iterdir()) == []


@pytest.mark.parametrize("argv, words", [
    (["site", "build", "--out", "x"], "--dataset NAMESPACE/REVISION or --publication"),
    (["site", "build", "--dataset", "rv", "--out", "x"], "expected NAMESPACE/REVISION"),
    (["site", "build", "--dataset", "no/such", "--out", "x"], "dataset no/such not found"),
    (["site", "build", "--publication", "publications/none/none-r1", "--out", "x"], "not a publication folder"),
])
def test_bad_input_exits_2_naming_the_problem(argv, words, var, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_watch_rebuilds_when_a_publication_lands(source, tmp_path, var):
    """`arkevo site build --watch`: the running command picks up a new publication by itself."""
    import os
    import subprocess
    import sys
    import threading
    import time

    from workers.settings import PROJECT_ROOT

    write_revision(source.objects, "rv", "r3", {"train": 2})
    write_reviewed_publication(source.objects, source.store, tmp_path, "rv", "r3", "table-model", 1)
    out = tmp_path / "site"
    env = {**os.environ, "ARKEVO_VAR": str(var), "PYTHONPATH": str(PROJECT_ROOT)}
    watch = subprocess.Popen([sys.executable, "-m", "cli", "site", "build", "--dataset", "rv/r3",
                              "--out", str(out), "--watch", "0.3"], cwd=PROJECT_ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(watch.stdout), daemon=True).start()

    def builds_printed(n: int) -> bool:
        deadline = time.monotonic() + 60
        while sum("site: " in line for line in lines) < n and time.monotonic() < deadline:
            time.sleep(0.1)
        return sum("site: " in line for line in lines) == n

    try:
        assert builds_printed(1)
        write_reviewed_publication(source.objects, source.store, tmp_path, "rv", "r3", "render-setup", 2)
        assert builds_printed(2)  # rounds that change nothing print nothing
        assert (out / "tasks" / "render-setup.html").exists()
    finally:
        watch.terminate()
        watch.wait(timeout=30)
    assert watch.returncode == 0  # SIGTERM ends it like Ctrl-C
    assert "1 tasks" in lines[0] and "2 tasks" in "".join(lines[2:])
