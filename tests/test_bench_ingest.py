"""The ingest A/B harness on a tiny conversation in LoCoMo's format: every path stores every
turn and is scored on the same questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.ingest import VARIANTS, main
from tests.test_bench_locomo import SAMPLE


def test_every_path_stores_every_turn_and_answers_the_same_questions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "tiny.json"
    data.write_text(json.dumps([SAMPLE]), encoding="utf-8")
    assert main(["--data", str(data), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["turns"] == 4 and result["questions"] == 4
    assert set(result["variants"]) == set(VARIANTS)
    for row in result["variants"].values():
        assert row["turns_per_s"] > 0 and 0 <= row["R@5"] <= 100
        # "What is the name of Ana's dog?" finds D1:1 on either path: the mean keeps the meaning.
        assert row["single-hop R@5"] == 100.0
    assert result["variants"][next(iter(VARIANTS))]["vs_own_pass"] == 1.0


def test_a_missing_data_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no file at"):
        main(["--data", str(tmp_path / "nowhere.json")])
