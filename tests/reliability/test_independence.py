"""Independence: what namespace A recalls does not depend on anything namespace B does.

`test_isolation` checks that B's data never comes back in A. This checks the quieter channel:
A's cards, their order, their scores and their traces must be exactly what they are in a
memory where B never existed, whatever B stores (A's own words, sentences, entity names and
session ids included), forgets or reflects on. A score that moved with B's writes (a
collection-wide IDF, a size estimate scaled by B's forgetting) would let A learn what B holds.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine import Memory
from engine.errors import NotFound
from tests.backends import STORES, stores_settings

A_TURNS = [  # (session, day, content)
    ("s1", "2023-05-01", "Priya picked the zebra logo for Atlas."),
    ("s1", "2023-05-01", "The Atlas budget is fifty thousand euros."),
    ("s1", "2023-05-01", "Do you want pasta for lunch?"),
    ("s1", "2023-05-01", "Yes, pasta with basil from the balcony."),
    ("s2", "2023-05-02", "Dana booked the flights to Lisbon for June."),
    ("s2", "2023-05-02", "We decided to move the Atlas launch to Friday."),
    ("s2", "2023-05-02", "我们讨论了预算和斑马标志。"),
    ("s3", "2023-05-03", "Priya adopted a cat after the Lisbon trip was booked."),
]
# An agent's task run in A: its error, and the fix that got past it.
A_ERROR = "python build.py\nModuleNotFoundError: No module named 'zebra_kit'"
A_TASK = [
    {"content": A_ERROR, "role": "python", "outcome": "failure", "occurred_at": "2023-05-01T09:00:00Z"},
    {"content": "pip install zebra-kit==2.1", "role": "pip", "outcome": "success", "occurred_at": "2023-05-01T09:01:00Z"},
    {"content": "python build.py\nbuilt 3 logos", "role": "python", "outcome": "success", "occurred_at": "2023-05-01T09:02:00Z"},
]  # fmt: skip
QUESTIONS = [
    "ModuleNotFoundError: No module named 'zebra_kit' again. How did we fix it?",
    "What have we learned about the zebra_kit import?",
    "zebra logo budget",
    "What did Priya pick for Atlas?",
    "What did we talk about on May 2, 2023?",
    "Which came first, booking the flights to Lisbon or adopting the cat?",
    "Lisbon Dana flights",
    "预算是多少？",
]
NOW = datetime(2023, 5, 4, 9, tzinfo=UTC)
# B's words: A's own (so that IDF and entity counts would move if they were shared) and others.
WORDS = ["zebra", "logo", "Atlas", "budget", "Priya", "Lisbon", "pasta", "cat", "flights",
         "预算", "斑马", "Vega", "Oslo", "bravo", "Dana"]  # fmt: skip

b_operation = st.one_of(
    st.tuples(st.just("copy"), st.integers(0, len(A_TURNS) - 1)),  # one of A's turns, word for word
    st.tuples(st.just("words"), st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)),
    st.tuples(st.just("forget"), st.integers(0, 20)),
    st.tuples(st.just("reflect"), st.booleans()),
    # A's error in B's own task run, fixed another way, or a lesson B states about it.
    st.tuples(st.just("task"), st.sampled_from(["conda install zebra-kit", "pip install zebra-kit==2.1"])),
    st.tuples(st.just("lesson"), st.just("Lesson: ModuleNotFoundError: No module named 'zebra_kit' needs the zebra extra.")),
)
_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}")


def _store_a(memory: Memory, index: int) -> None:
    session, day, content = A_TURNS[index]
    memory.store(content, namespace="a", session_id=session, occurred_at=f"{day}T10:0{index}:00Z",
                 importance=0.6)  # fmt: skip


def _apply_b(memory: Memory, op: tuple[str, Any], stored: list[str], step: int) -> None:
    kind, arg = op
    if kind == "copy":
        session, day, content = A_TURNS[arg]
        stored.append(memory.store(content, namespace="b", session_id=session,
                                   occurred_at=f"{day}T11:00:00Z").id)  # fmt: skip
    elif kind == "words":
        text = f"{' '.join(arg)} note {step}."
        stored.append(memory.store(text, namespace="b", session_id="s1", occurred_at="2023-05-02T12:00:00Z").id)
    elif kind == "forget" and stored:
        try:
            memory.forget(stored[arg % len(stored)], namespace="b")
        except NotFound:
            pass  # forgotten already
    elif kind == "reflect":
        memory.reflect(namespace="b", force=arg)
    elif kind == "task":
        fixed = [{**A_TASK[0], "occurred_at": "2023-05-02T09:00:00Z"}, {"content": arg, "role": "pip", "outcome": "success"},
                 {**A_TASK[2], "occurred_at": "2023-05-02T09:05:00Z"}]  # fmt: skip
        result = memory.store_task("Build the logos", fixed, outcome="success", namespace="b", session_id=f"task-{step}")
        stored.extend(s.id for s in result.steps)
    elif kind == "lesson":
        stored.append(memory.store(arg, layer="semantic", namespace="b", occurred_at="2023-05-03T08:00:00Z").id)


def _canonical(value: Any, names: dict[str, str]) -> Any:
    """Ids renamed by first appearance, wall-clock fields dropped, scores to 9 places (local
    mode's numpy cosine differs in the 16th with the matrix's size): what must match."""
    if isinstance(value, dict):
        return {k: _canonical(v, names) for k, v in value.items() if k != "created_at"}
    if isinstance(value, list):
        return [_canonical(v, names) for v in value]
    if isinstance(value, float):
        return round(value, 9)
    if isinstance(value, str):
        return _ID.sub(lambda m: names.setdefault(m.group(0), f"id{len(names)}"), value)
    return value


def _what_a_sees(memory: Memory) -> list[Any]:
    memory.reflect(namespace="a", force=True)
    names: dict[str, str] = {}
    return [
        _canonical([c.model_dump(mode="json") for c in memory.recall(
            q, namespace="a", top_k=6, now=NOW, include_shared=False)], names)
        for q in QUESTIONS
    ]  # fmt: skip




def _run(stores: str, b_ops: list[tuple[str, Any]]) -> list[Any]:
    """A's turns with B's operations between them (after A's turn i come ops i, i+len, ...)."""
    with (
        tempfile.TemporaryDirectory() as data_dir,
        Memory.open(settings=stores_settings(stores, Path(data_dir), importance_threshold=0.0)) as memory,
    ):  # fmt: skip
        stored: list[str] = []
        memory.store_task("Build the logos", A_TASK, outcome="success", namespace="a", session_id="build",
                          occurred_at="2023-05-01T08:59:00Z")  # fmt: skip
        for index in range(len(A_TURNS)):
            _store_a(memory, index)
            for step, op in enumerate(b_ops[index :: len(A_TURNS)]):
                _apply_b(memory, op, stored, step)
        return _what_a_sees(memory)


_ALONE: dict[str, list[Any]] = {}


@example([("copy", 0), ("words", ["zebra", "zebra", "logo"]), ("copy", 4), ("forget", 0),
          ("words", ["Lisbon", "cat"]), ("reflect", True), ("copy", 7), ("words", ["预算"]),
          ("task", "conda install zebra-kit"), ("lesson", "Lesson: ModuleNotFoundError: No module named 'zebra_kit' "
                                                          "needs the zebra extra."), ("reflect", False)])  # fmt: skip
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(b_operation, min_size=1, max_size=12))
@pytest.mark.parametrize("stores", STORES)
def test_what_a_recalls_does_not_depend_on_b(stores: str, b_ops: list[tuple[str, Any]]) -> None:
    if stores not in _ALONE:
        _ALONE[stores] = _run(stores, [])
    assert _alike(_run(stores, b_ops), _ALONE[stores])


# qdrant-client's local mode (a development mode, not a production path) stores a cosine vector
# normalised in float32, and a vector it holds can come back one float32 rounding away after
# the collection grows: a component moves by at most ~1e-8. Qdrant Edge and the Qdrant server
# give back the bits they were given.
_LOCAL_MODE_DRIFT = 1e-7


def _exported(memory: Memory, path: Path) -> dict[str, Any]:
    """A's export, with its vectors, by record id; the export's own header left out."""
    memory.export(path, with_embeddings=True, namespaces=["a"])
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][1:]
    return {f"{r['kind']}:{r['record'].get('id', json.dumps(r['record'], sort_keys=True))}": r for r in records}


@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(b_operation, min_size=3, max_size=10))
@pytest.mark.parametrize("stores", STORES)
def test_what_a_exports_does_not_move_with_b(stores: str, b_ops: list[tuple[str, Any]]) -> None:
    """A's exported data, vectors included, read before and after whatever B does."""
    with (
        tempfile.TemporaryDirectory() as data_dir,
        Memory.open(settings=stores_settings(stores, Path(data_dir) / "d", importance_threshold=0.0)) as memory,
    ):  # fmt: skip
        for index in range(3):  # the collections' first growth comes with B's first point
            _store_a(memory, index)
        memory.reflect(namespace="a")
        before = _exported(memory, Path(data_dir) / "before.jsonl")
        stored: list[str] = []
        # Enough of B's points to make every store grow its collections, then what was drawn.
        growth = [("words", [WORDS[n % len(WORDS)], "note"]) for n in range(20)]
        for step, op in enumerate([*growth, *b_ops]):
            _apply_b(memory, op, stored, step)
        after = _exported(memory, Path(data_dir) / "after.jsonl")
    assert before.keys() == after.keys()
    tolerance = _LOCAL_MODE_DRIFT if stores == "embedded+qdrant-local" else 0.0
    for key, record in before.items():
        if record["kind"] != "vector":
            assert after[key] == record, key
            continue
        for space, values in record["record"].items():
            moved = after[key]["record"][space]
            if isinstance(values, list) and values and isinstance(values[0], float):
                assert len(moved) == len(values) and max(abs(x - y) for x, y in zip(moved, values, strict=True)) <= tolerance, (key, space)
            else:
                assert moved == values, (key, space)


def _alike(seen: Any, alone: Any) -> bool:
    """Equal, but for scores within float32 rounding (a relative 1e-6): Qdrant Edge sums a
    keyword score's terms in an order of its own, so one shard can give 2.980715275 where
    another gives 2.980715513. What another namespace would move (its points in an IDF, a
    count) moves a score far more than one float32 unit in these small corpora."""
    if isinstance(seen, dict) and isinstance(alone, dict):
        return seen.keys() == alone.keys() and all(_alike(seen[k], alone[k]) for k in seen)
    if isinstance(seen, list) and isinstance(alone, list):
        return len(seen) == len(alone) and all(_alike(x, y) for x, y in zip(seen, alone, strict=True))
    if isinstance(seen, float) and isinstance(alone, float):
        return math.isclose(seen, alone, rel_tol=1e-6)
    return bool(seen == alone)


def test_alike_allows_float32_rounding_and_nothing_more() -> None:
    assert _alike([{"score": 2.980715275}], [{"score": 2.980715513}])
    assert not _alike([{"score": 2.9807}], [{"score": 2.9808}])
    assert not _alike([{"id": "a"}], [{"id": "b"}]) and not _alike([1.0], [1.0, 2.0])
