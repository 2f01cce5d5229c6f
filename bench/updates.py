"""Knowledge updates: when a person changes a job, a city, a taste or a date, does memory follow?

    python -m bench.updates [--data bench/data/updates.json] [--json] [--verbose]

Each case (bench/data/updates.json, English and Chinese) is a person's statements over time,
stored as turns of their own in a namespace of its own, then reflected on to the end. A case
passes when both hold:
- facts: the old value's fact is closed (an active positive fact of the stale predicate whose
  object holds the stale phrase, or that names the stale date, is a failure); a control case
  ("I also like rock music", "my sister works at Microsoft") must close nothing;
- recall: the first card for the case's question states the current value.
Closed facts must end when the newer statement was made, never at the wall clock of the run:
the share that do is reported beside.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo import scratch_memory
from engine import Memory

DEFAULT_DATA = Path(__file__).parent / "data" / "updates.json"
_FACTS = (
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
    "RETURN a.name, f.predicate, f.negated, b.name, f.valid_to, f.refers_to, f.valid_from"
)


def _epoch(day: str, minute: int = 0) -> float:
    return datetime.fromisoformat(day).replace(hour=12, minute=minute, tzinfo=UTC).timestamp()


def _day(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC).date().isoformat()


def stale_active(facts: list[list[Any]], stale: dict[str, str]) -> list[list[Any]]:
    """The active positive facts that still state the old value.

    >>> rows = [["Sam", "works_at", False, "Google", None, None, 0.0]]
    >>> len(stale_active(rows, {"predicate": "works_at", "object": "google"}))
    1
    >>> stale_active(rows, {"predicate": "lives_in", "object": "Google"})
    []
    """
    found = []
    for _, predicate, negated, obj, valid_to, refers_to, _ in facts:
        if valid_to is not None or negated:
            continue
        if stale.get("predicate") and predicate != stale["predicate"]:
            continue
        if stale.get("object") and stale["object"].casefold() not in str(obj).casefold():
            continue
        if stale.get("refers_to") and _day(refers_to) != stale["refers_to"]:
            continue
        found.append([predicate, obj, _day(refers_to)])
    return found


def run_case(memory: Memory, number: int, case: dict[str, Any]) -> dict[str, Any]:
    namespace = f"update-{number}"
    turns = case["turns"]
    memory.store_many([
        {"content": turn["text"], "namespace": namespace, "role": case["speaker"],
         "session_id": turn["at"], "occurred_at": _epoch(turn["at"], index)}
        for index, turn in enumerate(turns)
    ])  # fmt: skip
    while memory.reflect(namespace=namespace).status != "nothing_new":
        pass
    facts = memory.cypher(_FACTS, namespace=namespace).rows
    closed = [f for f in facts if f[4] is not None]
    made_at = {_epoch(t["at"], i) for i, t in enumerate(turns)}
    asked = datetime.fromisoformat(turns[-1]["at"]).replace(tzinfo=UTC) + timedelta(days=1)
    cards = memory.recall(case["question"], namespace=namespace, top_k=1, now=asked)
    first = cards[0].content if cards else ""
    stale = stale_active(facts, case["stale"]) if case["stale"] else []
    facts_ok = not closed if case["kind"] == "control" else not stale
    recall_ok = any(value.casefold() in first.casefold() for value in case["current"])
    return {
        "id": case["id"], "lang": case["lang"], "kind": case["kind"], "facts_ok": facts_ok,
        "recall_ok": recall_ok, "passed": facts_ok and recall_ok, "first_card": first,
        "stale_active": stale, "closed": len(closed),
        "closed_at_statement": sum(f[4] in made_at for f in closed),
    }  # fmt: skip


def run(data: Path) -> dict[str, Any]:
    cases = json.loads(data.read_text(encoding="utf-8"))
    with scratch_memory("hindsight-updates-") as memory:
        rows = [run_case(memory, number, case) for number, case in enumerate(cases)]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["lang"], row["kind"])].append(row)
        groups[(row["lang"], "all")].append(row)
    summary = {
        f"{lang} {kind}": {
            "cases": len(group),
            **{key: round(100 * sum(r[key] for r in group) / len(group), 1)
               for key in ("facts_ok", "recall_ok", "passed")},
        }
        for (lang, kind), group in sorted(groups.items())
    }  # fmt: skip
    closed = sum(r["closed"] for r in rows)
    return {
        "summary": summary,
        "closed_facts": closed,
        "closed_at_statement": round(100 * sum(r["closed_at_statement"] for r in rows) / closed, 1)
        if closed else None,
        "cases": rows,
    }


def table(result: dict[str, Any], verbose: bool = False) -> str:
    lines = [f"{'cases':<16}{'n':>4}{'facts ok %':>12}{'first card %':>14}{'both %':>9}"]
    for name, row in result["summary"].items():
        lines.append(f"{name:<16}{row['cases']:>4}{row['facts_ok']:>12.1f}{row['recall_ok']:>14.1f}"
                     f"{row['passed']:>9.1f}")  # fmt: skip
    lines.append(f"{result['closed_facts']} facts closed; {result['closed_at_statement']}% of them "
                 "end when the newer statement was made")  # fmt: skip
    failed = [r for r in result["cases"] if not r["passed"]]
    if verbose and failed:
        lines += ["", "failed:"]
        for row in failed:
            lines.append(f"  {row['id']}: facts {'ok' if row['facts_ok'] else row['stale_active'] or 'closed some'}; "
                         f"first card {row['first_card']!r}")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="list the failed cases")
    args = parser.parse_args(argv)
    result = run(args.data)
    print(json.dumps(result, ensure_ascii=False) if args.json else table(result, args.verbose))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
