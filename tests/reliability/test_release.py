"""A closed Memory lets go of its models and stores at once.

Reference cycles through a Memory's parts would keep a closed Memory's embedder sessions and
store handles alive until Python's next full collection, which native allocations do not
trigger: a process that opens and closes memories (a server per tenant, a test suite) would
grow by hundreds of MB for each. So this checks, with the cyclic collector off, that nothing
of a used and closed Memory outlives its last reference.
"""

from __future__ import annotations

import gc
import tempfile
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import Memory
from tests.backends import STORES, stores_settings

TASK = [
    {"content": "pytest\nImportError: cannot import name 'parse' from 'dateutil'", "role": "pytest", "outcome": "failure"},
    {"content": "pip install python-dateutil==2.9", "role": "pip", "outcome": "success"},
]  # fmt: skip


@pytest.fixture
def no_cycle_collection() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _use(memory: Memory) -> None:
    memory.store("Mira moved the nightly backup to the Oslo bucket.", namespace="ops", session_id="s1")
    memory.store("备份现在每晚两点运行。", namespace="ops", session_id="s1")
    memory.store_task("Run the tests", TASK, outcome="success", namespace="ops", session_id="t1")
    memory.reflect(namespace="ops", force=True)
    memory.recall("Where does the nightly backup go?", namespace="ops")
    memory.recall("ImportError dateutil again: how did we fix it?", namespace="ops")


@pytest.mark.parametrize("stores", STORES)
def test_a_closed_memory_is_freed_without_the_cycle_collector(stores: str, no_cycle_collection: None) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        memory = Memory.open(settings=stores_settings(stores, Path(data_dir), importance_threshold=0.0))
        _use(memory)
        memory.close()
        core = memory._core
        parts: dict[str, weakref.ref[Any]] = {"core": weakref.ref(core), "graph": weakref.ref(core.graph), "vectors": weakref.ref(core.vectors),
                 "embedder": weakref.ref(core.embedder), "writer": weakref.ref(core.writer)}  # fmt: skip
        del memory, core
        assert [name for name, part in parts.items() if part() is not None] == []
