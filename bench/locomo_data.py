"""LoCoMo as hindsight reads it: a conversation's turns as store items, the question
categories, and LoCoMo's R@k. Shared by bench.locomo and bench.ablation; the data is read
from its path and never copied (its licence, CC BY-NC 4.0, allows benchmarking only)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

__all__ = ["CATEGORIES", "recall_at", "turns_of"]

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"^session_(\d+)$")


def turns_of(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation's turns as store items, in order, with their dia_id in metadata."""
    conversation = sample["conversation"]
    items = []
    sessions = sorted(
        (int(m.group(1)), key) for key in conversation if (m := _SESSION.match(key))
    )
    for number, key in sessions:
        started = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
        for position, turn in enumerate(conversation[key]):
            text = f"{turn['speaker']}: {turn['text']}"
            if turn.get("blip_caption"):
                text += f" [image: {turn['blip_caption']}]"
            items.append(
                {
                    "content": text,
                    "session_id": f"session_{number}",
                    "role": turn["speaker"],
                    "occurred_at": (started + timedelta(minutes=position)).isoformat() + "Z",
                    "metadata": {"dia_id": turn["dia_id"]},
                }
            )
    return items


def recall_at(found: list[str], evidence: list[str], k: int) -> float:
    """LoCoMo's R@k for one question."""
    if not evidence:
        return 1.0
    top = set(found[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)
