"""The demo: a small multi-session conversation written for hindsight, English and Chinese."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["DEMO_FACT_QUERY", "DEMO_PERSON", "DEMO_QUERIES", "sample_episodes"]

# Questions the demo asks; each exercises a different channel or the graph.
DEMO_QUERIES: tuple[str, ...] = (
    "Which database did we pick for Atlas?",
    "What is Dana working on?",
    "上次说的预算是多少？",
    "When is the launch and who runs it?",
)
# Asked of semantic memory after reflection: the fact answers, the city she left is closed.
DEMO_FACT_QUERY = "Where does Priya live?"
# Whose profile the demo prints after reflecting.
DEMO_PERSON = "Priya"


def sample_episodes() -> list[dict[str, Any]]:
    """The sample conversation as `store_many` items."""
    text = resources.files(__package__).joinpath("sample.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
