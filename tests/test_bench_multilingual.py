"""bench.multilingual runs end to end on a small corpus and reports both settings."""

from __future__ import annotations

import json

import pytest

from bench.multilingual import chinese_turns, main
from engine.embed.multilingual import needs_multilingual


def test_the_corpus_is_distinct_chinese_turns() -> None:
    turns = chinese_turns(200)
    assert len(set(turns)) == 200 and all(needs_multilingual(t) for t in turns)
    assert chinese_turns(200) == turns  # seeded: every run stores the same text


def test_both_settings_are_measured(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--episodes", "20", "--rounds", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [row["multilingual_embedder"] for row in result["rows"]] == ["off", "use"]
    for row in result["rows"]:
        assert row["store_many_per_s"] > 0 and row["recall_p95_ms"] >= row["recall_p50_ms"] > 0
    assert isinstance(result["model_rss_mb"], float)
