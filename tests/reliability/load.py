"""A mixed workload for the concurrency tests, the same for threads and for MCP clients:
store (45%), recall (25%), list (10%), get or explain (10%), forget one of its own (10%).

Each client keeps what was acknowledged, so the test can check afterwards that the counts add
up exactly and nothing acknowledged was lost.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

WORDS = ["Atlas", "Orion", "Vega", "Lisbon", "Oslo", "Postgres", "Redis", "budget", "launch",
         "review", "deploy", "invoice", "Dana", "Bob", "Carol", "meeting"]  # fmt: skip


@dataclass
class Tally:
    stored: list[str] = field(default_factory=list)
    forgotten: list[str] = field(default_factory=list)
    reads: int = 0

    def live(self) -> set[str]:
        return set(self.stored) - set(self.forgotten)


def plan(client: int, operations: int, seed: int) -> list[tuple[str, str]]:
    """(operation, text) for each step: the same sequence for the same client and seed."""
    rng = random.Random(seed * 1000 + client)
    steps = []
    for step in range(operations):
        roll = rng.random()
        words = " ".join(rng.sample(WORDS, 3))
        text = f"client {client} step {step}: {words} note {rng.randint(0, 10**9)}"
        kind = ("store" if roll < 0.45 else "recall" if roll < 0.70 else "list" if roll < 0.80
                else "get" if roll < 0.90 else "forget")  # fmt: skip
        steps.append((kind, text if kind == "store" else words))
    return steps


async def run_async(steps: list[tuple[str, str]], call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> Tally:
    """Drive an async tool caller (`call(tool, arguments)` -> structured result or None on a
    tool error) through the steps."""
    tally = Tally()
    for kind, text in steps:
        if kind == "store":
            result = await call("store_memory", {"content": text, "importance": 0.9})
            tally.stored.append(result["id"])
        elif kind == "recall":
            await call("retrieve_memory", {"query": text, "top_k": 5, "explain": False})
        elif kind == "list":
            await call("list_memories", {"limit": 10})
        elif kind == "get" and tally.stored:
            await call("explain_memory", {"memory_id": tally.stored[-1]})
        elif kind == "forget" and tally.live():
            victim = sorted(tally.live())[0]
            if await call("forget_memory", {"memory_id": victim}) is not None:
                tally.forgotten.append(victim)
        tally.reads += kind in {"recall", "list", "get"}
    return tally
