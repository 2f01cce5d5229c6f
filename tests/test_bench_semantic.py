"""The semantic benchmark on a tiny conversation in LoCoMo's format, with observations whose
coverage and precision can be counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

from bench import fact_gold
from bench.semantic import main, observations_of, score

SAMPLE = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a beagle last week."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice! I started learning the cello."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "I work at a bakery in Porto."},
        ],
    },
    "qa": [],
    "observation": {
        "session_1_observation": {
            "Ana": [["Ana adopted a beagle recently.", "D1:1"],
                    ["Ana works at a bakery.", "D1:3"]],
            "Ben": [["Ben plays the violin.", "D1:2"]],
        }
    },
}  # fmt: skip


def test_observations_carry_speaker_and_evidence() -> None:
    found = observations_of(SAMPLE)
    assert found[0] == ("Ana", "Ana adopted a beagle recently.", {"D1:1"})
    assert len(found) == 3


def test_score_counts_coverage_and_precision_by_hand() -> None:
    dia_of = {"e1": "D1:1", "e2": "D1:2", "e3": "D1:3"}
    facts = [
        ["Ana", "adopt", False, "beagle", "I adopted a beagle last week.", ["e1"]],  # covers, precise
        ["Ben", "learn", False, "cello", "I started learning the cello.", ["e2"]],  # neither
        ["Ana", "works_at", False, "bakery", "I work at a bakery in Porto.", ["e3"]],  # covers, precise
        ["Ana", "adopt", False, "beagle", "", ["e3"]],  # wrong turn: precise for nothing
    ]
    result = score(facts, dia_of, observations_of(SAMPLE), {"Ana", "Ben"})
    assert result == {"observations": 3, "covered": 2, "facts": 4, "precise": 2, "generic": 0}


GOLD = {
    "date": "2025-05-14T10:00:00Z",
    "conversations": [
        {"id": "en01", "language": "en", "parallel": "zh01", "parties": "user-assistant", "split": "test", "turns": [
            {"role": "user", "text": "I work at Acme.", "facts": [
                {"subject": "the user", "predicate": "works_at", "object": "Acme"}]},
            {"role": "assistant", "text": "You could ask for a raise.", "facts": [], "yields_none": "suggestion"},
        ]},
        {"id": "zh01", "language": "zh", "parallel": "en01", "parties": "user-assistant", "split": "test", "turns": [
            {"role": "user", "text": "我在阿里巴巴工作。", "facts": [
                {"subject": "the user", "predicate": "works_at", "object": "阿里巴巴"}]},
            {"role": "assistant", "text": "你可以要求加薪。", "facts": [], "yields_none": "suggestion"},
        ]},
    ],
}  # fmt: skip


def _gold(tmp_path: Path) -> Path:
    path = tmp_path / "gold.json"
    path.write_text(json.dumps(GOLD, ensure_ascii=False), encoding="utf-8")
    return path


def test_harness_reflects_and_prints_json(tmp_path: Path, capsys: object) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]))
    assert main(["--data", str(data), "--gold", str(_gold(tmp_path)), "--json", "--samples", "2"]) == 0
    both = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    for language in ("en", "zh"):  # the one fact of each, and nothing from the assistant
        gold = both["gold"]["languages"][language]
        assert (gold["gold"], gold["facts"], gold["precision"], gold["recall"]) == (1, 1, 100.0, 100.0)
    result = both["locomo"]
    assert result["turns"] == 3 and result["observations"] == 3
    assert result["covered"] >= 2  # the beagle and the bakery
    assert len(result["sample"]) == 2 and all("->" in line for line in result["sample"])
    assert result["reflect_eps_per_s"] > 0


def test_missing_data_is_skipped_with_a_message(tmp_path: Path, capsys: object) -> None:
    assert main(["--data", str(tmp_path / "absent.json"), "--gold", str(_gold(tmp_path))]) == 0
    assert "not found" in capsys.readouterr().err  # type: ignore[attr-defined]


def test_gold_score_counts_by_hand() -> None:
    conversation = fact_gold.GoldConversation.model_validate(GOLD["conversations"][0])
    facts = [
        ["the user", "works_at", False, "Acme", None, ["e1"], "en.place"],  # the gold fact
        ["the user", "works_at", False, "Acme Corp", None, ["e1"], "en.clause"],  # another head: wrong
        ["assistant", "ask_for", False, "raise", None, ["e2"], "en.clause"],  # from a turn that yields none
    ]
    row = fact_gold.score(conversation, facts, {"e1": 0, "e2": 1})
    assert (row["facts"], row["matched_facts"], row["found_gold"]) == (3, 1, 1)
    assert row["traps"] == {"suggestion": 1}
    assert row["by_rule"] == {"en.place": {"facts": 1, "matched": 1, "found_gold": 1},
                              "en.clause": {"facts": 2, "matched": 0, "found_gold": 0}}  # fmt: skip


def test_the_gold_set_is_well_formed() -> None:
    _, conversations = fact_gold.load()
    by_language = {lang: [c for c in conversations if c.language == lang] for lang in ("en", "zh")}
    assert len(by_language["en"]) >= 40 and len(by_language["zh"]) >= 40
    ids = {c.id for c in conversations}
    assert all(c.parallel in ids for c in conversations)
    for conversation in conversations:
        roles = {t.role for t in conversation.turns}
        subjects = {f.subject for t in conversation.turns for f in t.facts}
        if conversation.parties == "user-assistant":
            assert roles == {"user", "assistant"} or roles == {"user"}, conversation.id
        assert "user" not in subjects and "assistant" not in subjects, conversation.id
        assert all(not (t.facts and t.yields_none) for t in conversation.turns), conversation.id
    # The split is fixed in the data, a pair of parallel conversations on one side.
    split = {c.id: c.split for c in conversations}
    assert all(split[c.id] == split[c.parallel] for c in conversations)
    # Pairs 1-40 alternate; 41-48, written after the rules, are all test; 49 on, written to
    # show the misreads found there in other words, are development.
    number = {c.id: int(c.id[2:]) for c in conversations}
    assert all(c.split == ("dev" if number[c.id] % 2 else "test") for c in conversations if number[c.id] <= 40)
    assert all(c.split == "test" for c in conversations if 40 < number[c.id] <= 48)
    assert all(c.split == "dev" for c in conversations if number[c.id] > 48)
    assert {s: list(split.values()).count(s) for s in ("dev", "test")} == {"dev": 54, "test": 56}


def test_the_matching_rule_examples() -> None:
    import doctest

    result = doctest.testmod(fact_gold)
    assert result.attempted >= 5 and result.failed == 0
