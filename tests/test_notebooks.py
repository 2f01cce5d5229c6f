"""The notebooks run top to bottom (the analyst one on Neo4j too), and are committed without
outputs."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.backends import backend_env, open_settings

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_both_notebooks_exist() -> None:
    assert [p.name for p in NOTEBOOKS] == ["analyst.ipynb", "quickstart.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    book = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: strip outputs"


RUNS = [pytest.param(p, "embedded", id=p.stem) for p in NOTEBOOKS] + [
    pytest.param(p, "neo4j", id=f"{p.stem}-neo4j", marks=pytest.mark.neo4j)
    for p in NOTEBOOKS if p.stem == "analyst"
]


@pytest.mark.parametrize(("path", "backend"), RUNS)
def test_notebook_runs(path: Path, backend: str, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    open_settings(backend, tmp_path)  # on Neo4j: an empty database
    for name, value in backend_env(backend, tmp_path).items():
        monkeypatch.setenv(name, value)  # the kernel's Memory.open reads them
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))  # where the kernel's tempfile makes its directories
    book = nbformat.read(path, as_version=4)  # type: ignore[no-untyped-call]
    NotebookClient(book, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()  # fmt: skip
    outputs = [o for cell in book.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert images, f"{path.name} draws a picture"  # the graph, or the confidence plot
    text = "".join(o.get("text", "") for o in outputs)
    assert "Traceback" not in text
    # A reader runs a notebook again and again: each run removes the memory it made.
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("hindsight-")]
