"""The semantic benchmark on a tiny conversation in LoCoMo's format, with observations whose
coverage and precision can be counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

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
    assert result == {"observations": 3, "covered": 2, "facts": 4, "precise": 2}


def test_harness_reflects_and_prints_json(tmp_path: Path, capsys: object) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]))
    assert main(["--data", str(data), "--json", "--samples", "2"]) == 0
    result = json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]
    assert result["turns"] == 3 and result["observations"] == 3
    assert result["covered"] >= 2  # the beagle and the bakery
    assert len(result["sample"]) == 2 and all("->" in line for line in result["sample"])
    assert result["reflect_eps_per_s"] > 0


def test_missing_data_is_skipped_with_a_message(tmp_path: Path, capsys: object) -> None:
    assert main(["--data", str(tmp_path / "absent.json")]) == 0
    assert "not found" in capsys.readouterr().err  # type: ignore[attr-defined]
