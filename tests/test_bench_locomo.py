"""The LoCoMo harness on a tiny conversation in LoCoMo's format (the real data is licensed for
benchmarking only and stays outside the repository)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from bench.locomo import BM25, main, recall_all, sessions_of
from bench.locomo_data import recall_at, turns_of
from bench.misses import miss_class, shares

SAMPLE = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a beagle named Pixel last week."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! I started learning the cello."},
        ],
        "session_2_date_time": "10:00 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "Pixel chewed my running shoes.",
             "blip_caption": "a beagle next to a torn shoe"},
            {"speaker": "Ben", "dia_id": "D2:2", "text": "My cello teacher moved to Lisbon."},
        ],
    },
    "qa": [
        {"question": "What is the name of Ana's dog?", "answer": "Pixel", "evidence": ["D1:1"],
         "category": 4},
        {"question": "Where did Ben's cello teacher move?", "answer": "Lisbon",
         "evidence": ["D2:2", "D:11:26"], "category": 1},
        {"question": "What did Pixel chew?", "answer": "shoes", "evidence": [], "category": 2},
        {"question": "What has Ana's beagle Pixel done since she adopted him?",
         "answer": "chewed her shoes", "evidence": ["D1:1", "D2:1"], "category": 1},
    ],
}  # fmt: skip


def test_turns_carry_time_speaker_caption_and_dia_id() -> None:
    turns = turns_of(SAMPLE)
    assert [t["metadata"]["dia_id"] for t in turns] == ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert turns[0]["content"] == "Ana: I adopted a beagle named Pixel last week."
    assert turns[2]["content"].endswith("[image: a beagle next to a torn shoe]")
    assert turns[1]["occurred_at"] == "2023-05-08T13:57:00Z" and turns[3]["role"] == "Ben"


def test_recall_at_follows_locomo() -> None:
    assert recall_at(["D1:1", "D2:2"], ["D2:2", "D:11:26"], 5) == 0.5  # malformed id: a miss
    assert recall_at([], [], 5) == 1.0  # empty evidence counts as found
    assert recall_at(["a", "b", "c"], ["c"], 2) == 0.0


def test_recall_all_needs_every_evidence_session_in_the_top_k() -> None:
    assert sessions_of(["D1:3", "D12:1", "D:11:26", "junk"]) == {1, 12}
    evidence = ["D1:3", "D4:2", "D4:7"]
    assert recall_all(["D4:9", "D1:1", "D2:2"], evidence, 2) == 1.0  # other turns, same sessions
    assert recall_all(["D4:9", "D2:2", "D1:1"], evidence, 2) == 0.0  # session 1 only at rank 3
    assert recall_all([], evidence, 5) == 0.0


def test_bm25_ranks_the_matching_turn_first() -> None:
    bm25 = BM25(["the cat sat", "a cello teacher in Lisbon", "dogs chew shoes"])
    assert bm25.top("where is the cello teacher", 1) == [1]


def test_harness_prints_json_for_every_system(tmp_path: Path, capsys: object) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]))
    assert main(["--data", str(data), "--k", "1,3", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert result["questions"] == 4 and result["turns"] == 4
    spread = result["multi_session"]
    assert spread["questions"] == 1  # the only one whose evidence spans two sessions
    for system in ("system", "bm25", "dense"):
        assert spread[system]["recall_all@3"] in (0.0, 100.0)
        assert spread[system]["recall_all@3"] >= spread[system]["recall_all@1"] == 0.0
    for system in ("system", "bm25", "dense"):
        assert set(result[system]) >= {"R@1", "R@3", "by_category"}
        assert result[system]["R@3"] >= result[system]["R@1"]
        assert result[system]["query_p95_ms"] >= result[system]["query_p50_ms"] > 0
    assert result["system"]["by_category"]["single-hop"]["R@3"] == 100.0
    assert result["query_p50_ms"] > 0
    # With 4 turns each is in the top 10: only the malformed id "D:11:26" is missed.
    assert result["misses@10"] == {"multi-hop": {
        "turns": 1, "outranked": 0.0, "category": 0.0, "no shared word": 0.0, "unknown turn": 100.0}}  # fmt: skip


def test_misses_are_classed_by_what_the_turn_shares() -> None:
    names = frozenset({"melani"})
    question = "What activities does Melanie do with her kids?"
    assert miss_class(question, "pottery", "Melanie: I signed up for a pottery class", names) == "category"
    assert miss_class(question, "pottery", "Melanie: the kids loved the clay", names) == "outranked"
    assert miss_class(question, "pottery", "Melanie: You'd be a great counselor!", names) == "no shared word"
    assert miss_class(question, "pottery", None, names) == "unknown turn"
    assert shares(Counter({"category": 1, "outranked": 3})) == {
        "outranked": 75.0, "category": 25.0, "no shared word": 0.0, "unknown turn": 0.0}  # fmt: skip


def test_missing_data_is_skipped_with_a_message(tmp_path: Path, capsys: object) -> None:
    assert main(["--data", str(tmp_path / "absent.json")]) == 0
    assert "not found" in capsys.readouterr().err  # type: ignore[attr-defined]


def test_harness_table_shows_latency_beside_recall(tmp_path: Path, capsys: object) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]))
    assert main(["--data", str(data), "--k", "1,3"]) == 0
    table = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "system R@1" in table and "multi-hop" in table and "p50 / p95 ms" in table


def test_the_ablation_asks_every_question_under_every_plan(tmp_path: Path, capsys: object) -> None:
    from engine.recall.plan import ADJUSTERS, CHANNELS

    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]))
    assert main(["--data", str(data), "--ablate", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert result["questions"] == 4
    assert list(result["plans"]) == ["default", *(f"without {n}" for n in (*CHANNELS, *ADJUSTERS))]
    default = result["plans"]["default"]
    assert default["by_category_R@5"]["single-hop"] == 100.0 and default["p50_ms"] > 0
    assert result["plans"]["without keyword"]["R@5"] <= default["R@5"]
    assert main(["--data", str(data), "--ablate"]) == 0
    table = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "without graph" in table and "ΔR@5" in table
