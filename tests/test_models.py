"""Validation of what callers hand in: every bad value is named by its field."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from engine.inputs import StoreRequest

CONTEXT = {"max_content_chars": 100, "max_metadata_bytes": 200}

BAD: list[tuple[dict[str, Any], str, str]] = [
    ({"content": ""}, "content", "empty"),
    ({"content": "   \n"}, "content", "empty"),
    ({"content": "x" * 101}, "content", "over the limit"),
    ({"content": "a\x00b"}, "content", "NUL"),
    ({"content": "ok", "importance": 1.5}, "importance", "0..1"),
    ({"content": "ok", "importance": -0.1}, "importance", "0..1"),
    ({"content": "ok", "importance": "urgent"}, "importance", "high, medium, low"),
    ({"content": "ok", "importance": True}, "importance", "number"),
    ({"content": "ok", "importance": float("nan")}, "importance", "0..1"),
    ({"content": "ok", "layer": "long-term"}, "layer", "'working', 'episodic' or 'semantic'"),
    ({"content": "ok", "outcome": "partly"}, "outcome", "'success' or 'failure'"),
    ({"content": "ok", "outcome": "failure", "resolves": ["a"]}, "resolves", "a failure resolves nothing"),
    ({"content": "ok", "resolves": "a"}, "resolves", "list of episode ids"),
    ({"content": "ok", "task_id": " "}, "task_id", "stored task"),
    ({"content": "ok", "kind": "email"}, "kind", "message"),
    ({"content": "ok", "namespace": "bad namespace"}, "namespace", "letters, digits"),
    ({"content": "ok", "namespace": ""}, "namespace", "letters, digits"),
    ({"content": "ok", "namespace": "../etc"}, "namespace", "letters, digits"),
    ({"content": "ok", "occurred_at": "yesterday-ish"}, "occurred_at", "ISO 8601"),
    ({"content": "ok", "metadata": {"x": float("inf")}}, "metadata", "NaN"),
    ({"content": "ok", "metadata": [1, 2]}, "metadata", "JSON object"),
    ({"content": "ok", "metadata": {"blob": "y" * 300}}, "metadata", "over the limit"),
    ({"content": "ok", "colour": "red"}, "colour", "Extra inputs"),
]


@pytest.mark.parametrize(("data", "field", "reason"), BAD)
def test_bad_input_names_the_field(data: dict[str, Any], field: str, reason: str) -> None:
    with pytest.raises(ValidationError) as caught:
        StoreRequest.model_validate(data, context=CONTEXT)
    error = caught.value.errors()[0]
    assert error["loc"][0] == field
    assert reason in error["msg"]


@pytest.mark.parametrize(
    ("given", "expected"),
    [("high", 0.9), ("Medium", 0.6), ("low", 0.3), (0, 0.0), (1, 1.0), (0.42, 0.42), (None, None)],
)
def test_importance_levels_and_numbers(given: Any, expected: float | None) -> None:
    assert StoreRequest(content="x", importance=given).importance == expected


def test_occurred_at_forms_agree() -> None:
    iso = StoreRequest(content="x", occurred_at="2026-01-02T03:04:05Z").occurred_at
    naive = StoreRequest(content="x", occurred_at="2026-01-02T03:04:05").occurred_at
    epoch = StoreRequest(content="x", occurred_at=iso).occurred_at
    assert iso == naive == epoch == 1767323045.0


def test_metadata_round_trips_as_json() -> None:
    metadata = {"a": [1, 2.5, "三"], "b": {"nested": None, "flag": True}}
    assert StoreRequest(content="x", metadata=metadata).metadata == metadata
