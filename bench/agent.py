"""Memory of an agent's work: does the next occurrence of an error find how it was fixed?

    python -m bench.agent [--seed 7] [--top-k 5] [--kinds N] [--json] [--verbose]

Stores the log of `bench.agent_log` (real error texts among routine tool calls, as task runs)
in one namespace of a fresh embedded memory, reflects to the end, then asks each question.
Reported per split (dev: the kinds the rules were built on; test: kinds recorded after, not
looked at while building them) and overall:
- fix@1, fix@3: the share of fix questions (a pasted error, the problem in words, a Chinese
  question) whose expected fix is among the first 1 or 3 cards: the fix step's own card, or a
  lesson card whose statement carries the fix step's first line;
- fix above failure: the share where that card stands above every card of the failure;
- newest fix first: for kinds fixed another way later, the share of their fix questions where
  the newest fix is in the first 5 cards and above every older fix of the kind;
- lessons@3: the share of "what have we learned about X?" questions with a lesson card among
  the first 3 that carries the kind's newest fix;
- junk facts: facts that are no lesson and stand only on tool calls or tasks (the log holds
  no statement of a person's but the user's requests), and all non-lesson facts beside;
- reflection speed (episodes a second over the whole log), and store_task throughput.
BM25 over every episode's text runs beside, on the same questions (fix@1, fix@3).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from bench.agent_log import AgentLog, Question, Run, build_log, load
from bench.locomo import BM25, scratch_memory
from engine import Memory
from engine.models import MemoryCard
from engine.work import first_line

NAMESPACE = "agent"
_FACTS = (
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
    "RETURN a.name, f.predicate, b.name, f.rule, f.source_episode_ids, f.statement"
)


@dataclass
class Stored:
    """The ids the log got: each kind's fixes and failures by occurrence, every episode's text."""

    fixes: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    failures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    texts: dict[str, str] = field(default_factory=dict)
    work: set[str] = field(default_factory=set)  # tool calls and tasks
    seconds: float = 0.0


def store_log(memory: Memory, log: AgentLog) -> Stored:
    stored = Stored()
    started = time.perf_counter()
    for run in log.runs:
        if run.request:
            result = memory.store(run.request, namespace=NAMESPACE, session_id=run.session, role="user",
                                  occurred_at=run.at - 30)  # fmt: skip
            stored.texts[result.id] = run.request
        _store_run(memory, run, stored)
    stored.seconds = time.perf_counter() - started
    return stored


def _store_run(memory: Memory, run: Run, stored: Stored) -> None:
    steps = [{"content": s.content, "role": s.tool, "outcome": s.outcome, "occurred_at": s.at} for s in run.steps]
    result = memory.store_task(run.task, steps, outcome=run.outcome, namespace=NAMESPACE, session_id=run.session,
                               occurred_at=run.at)  # fmt: skip
    stored.texts[result.task.id] = run.task
    stored.work.add(result.task.id)
    for step, step_result in zip(run.steps, result.steps, strict=True):
        stored.texts[step_result.id] = step.content
        stored.work.add(step_result.id)
        if run.kind is not None and step.role in ("fix", "failure"):
            (stored.fixes if step.role == "fix" else stored.failures)[run.kind].append(step_result.id)


def _delivers(card: MemoryCard, fix_id: str, fix_line: str) -> bool:
    """Whether a card gives the fix: the fix's own card, or a lesson that says it."""
    if card.id == fix_id:
        return True
    return card.layer == "semantic" and card.metadata.get("predicate") == "fixed_by" and fix_line in card.content


def _rank(cards: list[MemoryCard], fix_id: str, fix_line: str) -> int | None:
    return next((i for i, card in enumerate(cards) if _delivers(card, fix_id, fix_line)), None)


def score_question(question: Question, cards: list[MemoryCard], stored: Stored) -> dict[str, Any]:
    """What one question's cards hold against what it expects."""
    fixes = stored.fixes[question.kind]
    newest = fixes[-1]
    line = first_line(stored.texts[newest])
    rank = _rank(cards, newest, line)
    failures = [i for i, card in enumerate(cards) if card.id in set(stored.failures[question.kind])]
    older = [i for i, card in enumerate(cards) if card.id in set(fixes[:-1])
             and first_line(card.content) != line]  # fmt: skip
    row: dict[str, Any] = {"kind": question.kind, "form": question.form, "split": question.split, "rank": rank}
    if question.form == "lesson":
        row["lesson"] = any(card.layer == "semantic" and card.metadata.get("predicate") == "fixed_by"
                            and line in card.content for card in cards[:3])  # fmt: skip
        return row
    row["above_failure"] = rank is not None and all(rank < i for i in failures)
    if question.replaced:
        row["newest_first"] = rank is not None and all(rank < i for i in older)
    return row


def _share(rows: list[dict[str, Any]], test: Any) -> float | None:
    return round(100.0 * sum(1 for r in rows if test(r)) / len(rows), 1) if rows else None


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    fix_rows = [r for r in rows if r["form"] != "lesson"]
    return {
        "questions": len(fix_rows),
        "fix@1": _share(fix_rows, lambda r: r["rank"] == 0),
        "fix@3": _share(fix_rows, lambda r: r["rank"] is not None and r["rank"] < 3),
        "fix_above_failure": _share(fix_rows, lambda r: r["above_failure"]),
        "newest_first": _share([r for r in fix_rows if "newest_first" in r], lambda r: r["newest_first"]),
        "replaced_questions": sum(1 for r in fix_rows if "newest_first" in r),
        "lessons@3": _share([r for r in rows if r["form"] == "lesson"], lambda r: r["lesson"]),
        "lesson_questions": sum(1 for r in rows if r["form"] == "lesson"),
    }


def bm25_rows(log: AgentLog, stored: Stored) -> list[dict[str, Any]]:
    ids = list(stored.texts)
    index = BM25([stored.texts[i] for i in ids])
    rows = []
    for question in log.questions:
        if question.form == "lesson":
            continue
        found = [ids[i] for i in index.top(question.text, 5)]
        newest = stored.fixes[question.kind][-1]
        rank = found.index(newest) if newest in found else None
        rows.append({"kind": question.kind, "form": question.form, "split": question.split, "rank": rank,
                     "above_failure": False})  # fmt: skip
    return rows


def junk_facts(memory: Memory, stored: Stored) -> tuple[int, int, list[list[Any]]]:
    """Facts that are no lesson and stand only on tool calls or tasks; all non-lesson facts."""
    rows = memory.cypher(_FACTS, namespace=NAMESPACE).rows
    others = [r for r in rows if r[3] not in ("lesson", "stated lesson")]
    junk = [r for r in others if set(r[4]) <= stored.work]
    return len(junk), len(others), junk


def run(seed: int, top_k: int, verbose: bool, kinds: int | None = None) -> dict[str, Any]:
    errors, tasks = load()
    log = build_log(errors, tasks, seed=seed, kinds=kinds)
    with scratch_memory("hindsight-agent-") as memory:
        stored = store_log(memory, log)
        episodes = memory.stats(namespace=NAMESPACE).episodes
        started = time.perf_counter()
        while memory.reflect(namespace=NAMESPACE).status != "nothing_new":
            pass
        reflect_seconds = time.perf_counter() - started
        rows = []
        for question in log.questions:
            cards = memory.recall(question.text, namespace=NAMESPACE, top_k=top_k)
            row = score_question(question, cards, stored)
            rows.append(row)
            if verbose and (row.get("rank") != 0 or row.get("lesson") is False or row.get("newest_first") is False):
                print(f"[{question.split}/{question.form}] {question.kind}: rank {row.get('rank')}, newest first "
                      f"{row.get('newest_first')}", file=sys.stderr)
                for card in cards[:5]:
                    print(f"    {card.score:.3f} {card.layer[:4]} {card.content[:90]!r}", file=sys.stderr)
        junk, others, junk_rows = junk_facts(memory, stored)
        if verbose:
            for fact in junk_rows:
                print("junk:", fact[:3], file=sys.stderr)
    baseline = bm25_rows(log, stored)
    splits = sorted(set(log.splits.values()))
    return {
        "episodes": episodes,
        "runs": len(log.runs),
        "incidents": sum(1 for r in log.runs if r.kind),
        "kinds": {s: sum(1 for v in log.splits.values() if v == s) for s in splits},
        "tool_calls": sum(len(r.steps) for r in log.runs),
        "hindsight": {s: summarise([r for r in rows if r["split"] == s]) for s in splits} | {"all": summarise(rows)},
        "bm25": {s: summarise([r for r in baseline if r["split"] == s]) for s in splits} | {"all": summarise(baseline)},
        "junk_facts": junk,
        "other_facts": others,
        "reflection_episodes_per_s": round(episodes / reflect_seconds, 1) if reflect_seconds else None,
        "store_steps_per_s": round(sum(len(r.steps) + 1 for r in log.runs) / stored.seconds, 1),
    }


def table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['episodes']} episodes: {result['runs']} task runs, {result['incidents']} incidents of "
        f"{sum(result['kinds'].values())} kinds ({', '.join(f'{n} {s}' for s, n in result['kinds'].items())}), "
        f"{result['tool_calls']} tool calls",
        "",
        "| split | system | fix@1 | fix@3 | fix above failure | newest fix first | lessons@3 | questions |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for split in result["hindsight"]:
        for system in ("hindsight", "bm25"):
            s = result[system][split]
            newest = f"{s['newest_first']} ({s['replaced_questions']})" if system == "hindsight" else "-"
            lessons = f"{s['lessons@3']} ({s['lesson_questions']})" if system == "hindsight" else "-"
            above = s["fix_above_failure"] if system == "hindsight" else "-"
            lines.append(f"| {split} | {system} | {s['fix@1']} | {s['fix@3']} | {above} | {newest} | {lessons} | "
                         f"{s['questions']} |")  # fmt: skip
    lines += ["", f"junk facts: {result['junk_facts']} (non-lesson facts: {result['other_facts']}); "
              f"reflection {result['reflection_episodes_per_s']} episodes/s; store_task "
              f"{result['store_steps_per_s']} episodes/s"]  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--top-k", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--verbose", action="store_true", help="list each miss and junk fact on stderr")
    parser.add_argument("--kinds", type=int, help="only the first N kinds of incident (a quick run)")
    args = parser.parse_args(argv)
    result = run(args.seed, args.top_k, args.verbose, args.kinds)
    print(json.dumps(result, indent=1) if args.json else table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
