"""The speed benchmark end to end on a tiny corpus: the documented JSON keys, one object per
size, numbers that make sense (no timings are asserted: these machines are shared)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.speed import _table, corpus, questions
from tests.backends import BACKENDS, live, open_settings

ROOT = Path(__file__).parent.parent


def test_corpus_and_questions_are_seeded() -> None:
    assert corpus(50) == corpus(50) and len({item["session_id"] for item in corpus(50)}) == 3
    assert questions(4) == questions(4) and set(questions(4)) == {"single_hop", "graph"}


@pytest.mark.parametrize("backend", [*BACKENDS, pytest.param("embedded+qdrant", marks=pytest.mark.qdrant)])
def test_json_rows_carry_the_documented_keys_and_the_table_marks_targets(
    backend: str, tmp_path: Path
) -> None:
    graph, _, vectors = backend.partition("+")
    open_settings(graph, tmp_path)  # on Neo4j: the empty database the bench asks for
    server = vectors and _collections(live("QDRANT_URL", "Qdrant server"))
    done = subprocess.run(
        [sys.executable, "-m", "bench.speed", "--episodes", "150", "--queries", "3",
         "--http-seconds", "1", "--sustained", "8", "--json", "--backend", backend],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(row["backend"], row["episodes"]) for row in rows] == [(backend, 150)]
    assert "stored 150 of 150 turns (100%)" in done.stderr  # the child's progress comes through
    for row in rows:
        assert {"episodes", "store_many_eps_per_s", "recall_p50_ms", "recall_p95_ms",
                "baseline_p95_ms", "peak_rss_mb"} <= set(row)  # fmt: skip
        assert row["recall_p50_ms"] <= row["recall_p95_ms"] <= row["recall_p99_ms"]
        assert row["store_many_eps_per_s"] > 0 and row["peak_rss_mb"] > 0
        assert 0 < row["stored_after_dedup"] <= 150  # the baseline holds what was stored
        assert row["mcp_retrieve_req_per_s"] > 0 and row["rest_recall_req_per_s"] > 0
        assert row["sustained_recalls"] == 8 and row["late_recall_p50_ms"] <= row["late_recall_p95_ms"]
    table = _table(rows + [{**rows[0], "episodes": 300}])  # a column per size
    assert "recall_p50_ms" in table
    marked = "met" in table or "MISSED" in table  # the targets are the embedded default's
    assert marked == (backend == "embedded"), table
    if vectors:  # the vectors were on the server, which is left as it was found
        assert rows[0]["data_mb_per_10k"] is None
        assert _collections(os.environ["QDRANT_URL"]) == server


def _collections(url: str) -> set[str]:
    """The bench's collections on the server (other suites' come and go beside them)."""
    from qdrant_client import QdrantClient

    client = QdrantClient(url=url, check_compatibility=False)
    try:
        return {c.name for c in client.get_collections().collections if c.name.startswith("speed-")}
    finally:
        client.close()
