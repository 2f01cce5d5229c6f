"""Session digests: do they say what a session was about, and does recall hand them over?

    python -m bench.digest [--data ../shared/data/locomo/locomo10.json] [--conversations N]
                           [--topics-only] [--json]

1. **LoCoMo** (each conversation in its own namespace, one episode a turn, reflected to the
   end, which digests every session): each session's digest against the session's written
   summary (`session_summary`) and its events (`event_summary`, where it has any):
   ROUGE-1 recall over content words (the engine's stemmed tokens, stopwords left out) and
   ROUGE-L F1, beside two baselines of the same length in words, in the same run: the
   session's first words (lead) and its longest turns. "Sentences only" is the digest
   without its head (time, people, topics, decisions): what the central-sentence ranking
   picks by itself. The data is read from its path, never copied (CC BY-NC 4.0).
2. **Topic questions** (`bench/data/topic_questions.json`, written for hindsight, English
   and Chinese): the conversations of `bench/data/facts_gold.json` stored as one session each,
   two days apart, reflected; each question asks about one session (by its date, or the
   first, or the last). Reported: the share whose first card is that session's digest, and
   R@5 of the session's episodes among the cards (the digest card's citations not counted).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.locomo import DEFAULT_DATA, scratch_memory
from bench.locomo_data import turns_of
from engine import Memory
from engine.reflect.digest import digest_words
from engine.text import tokenize

HERE = Path(__file__).resolve().parent
TOPICS = HERE / "data" / "topic_questions.json"
GOLD = HERE / "data" / "facts_gold.json"
TOPIC_START = datetime(2024, 3, 4, 10, tzinfo=UTC).timestamp()
DAY = 86_400.0


def rouge1_recall(candidate: str, reference: str) -> float:
    """The share of the reference's content words the candidate holds (counts clipped).

    >>> round(rouge1_recall("Sam moved to Berlin", "Sam moved to Berlin for a job"), 2)
    0.75
    """
    have, want = Counter(tokenize(candidate)), Counter(tokenize(reference))
    return sum(min(n, have[t]) for t, n in want.items()) / max(1, sum(want.values()))


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1: the longest common subsequence of content words against both lengths.

    >>> round(rouge_l("Sam moved to Berlin", "Sam finally moved to Berlin"), 2)
    0.86
    """
    a, b = tokenize(candidate), tokenize(reference)
    if not a or not b:
        return 0.0
    row = [0] * (len(b) + 1)
    for x in a:
        previous = 0
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], previous + 1 if x == y else max(row[j], row[j - 1])
    common = row[-1]
    return 0.0 if common == 0 else 2 * common / (len(a) + len(b))


def first_words(texts: list[str], count: int) -> str:
    """The first `count` words of the texts, in order (the lead baseline)."""
    return " ".join(" ".join(texts).split()[:count])


def longest_words(texts: list[str], count: int) -> str:
    """The longest texts first, cut at `count` words (the longest-turns baseline)."""
    return first_words(sorted(texts, key=lambda t: -len(t.split())), count)


def run_locomo(data: Path, conversations: int | None) -> dict[str, Any]:
    samples = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    rows: list[dict[str, float | None]] = []
    with scratch_memory("digest-") as memory:
        for sample in samples:
            namespace = sample["sample_id"]
            items = turns_of(sample)
            memory.store_many([{**item, "namespace": namespace} for item in items])
            while memory.reflect(namespace=namespace).status != "nothing_new":
                pass
            for view in memory.sessions(namespace=namespace, limit=1000):
                number = view.session_id.removeprefix("session_")
                summary = sample["session_summary"].get(f"session_{number}_summary")
                if view.digest is None or not summary:
                    continue
                turns = [i["content"] for i in items if i["session_id"] == view.session_id]
                events = sample["event_summary"].get(f"events_session_{number}", {})
                said = " ".join(x for who, told in events.items() if who != "date" for x in told)
                lines = [f"{s.speaker}: {s.text}" if s.speaker else s.text for s in view.digest.sentences]
                rows.append(_scored(view.digest.text, lines, turns, summary, said))
    return {"sessions": len(rows), "rows": _means(rows)}


def _scored(digest: str, sentences: list[str], turns: list[str], summary: str, events: str) -> dict[str, float | None]:
    length = digest_words(digest)
    body = " ".join(sentences)
    shown = {"digest": digest, "sentences only": body, "lead": first_words(turns, length),
             "longest turns": longest_words(turns, length),
             # The baseline at the body's own length, for the ranking against the opening.
             "lead, sentences' length": first_words(turns, digest_words(body))}  # fmt: skip
    scored: dict[str, float | None] = {}
    for name, text in shown.items():
        scored[f"{name}|r1"] = rouge1_recall(text, summary)
        scored[f"{name}|rl"] = rouge_l(text, summary)
        scored[f"{name}|events"] = rouge1_recall(text, events) if events else None
    scored["words"] = float(length)
    return scored


def _means(rows: list[dict[str, float | None]]) -> dict[str, float]:
    keys = rows[0].keys() if rows else []
    return {k: round(100 * statistics.fmean(v for r in rows if (v := r[k]) is not None), 1) if k != "words"
            else round(statistics.fmean(float(r[k] or 0) for r in rows), 1) for k in keys}  # fmt: skip


def run_topics(gold: Path = GOLD, questions: Path = TOPICS) -> dict[str, Any]:
    conversations = json.loads(gold.read_text(encoding="utf-8"))["conversations"]
    asked = json.loads(questions.read_text(encoding="utf-8"))
    found: dict[str, Any] = {}
    with scratch_memory("topics-") as memory:
        for language in ("en", "zh"):
            chats = [c for c in conversations if c["language"] == language]
            evidence = _store_sessions(memory, language, chats)
            while memory.reflect(namespace=language).status != "nothing_new":
                pass
            now = TOPIC_START + 2 * DAY * len(chats)
            outcomes = []
            for kind, templates in asked[language].items():
                for n, template in enumerate(templates):
                    target = {"first": 0, "last": len(chats) - 1}.get(kind, (7 * n + 3) % len(chats))
                    question = template.format(date=_date(TOPIC_START + 2 * DAY * target, language))
                    cards = memory.recall(question, namespace=language, top_k=5, now=now)
                    wanted = set(evidence[f"s{target:02d}"])
                    first = cards[0] if cards else None
                    outcomes.append({
                        "question": question, "kind": kind,
                        "digest_first": bool(first and first.kind == "digest" and first.session_id == f"s{target:02d}"),
                        "recall_at_5": len(wanted & {c.id for c in cards}) / len(wanted),
                    })  # fmt: skip
            found[language] = outcomes
    return found


def _store_sessions(memory: Memory, namespace: str, chats: list[dict[str, Any]]) -> dict[str, list[str]]:
    items = [
        {"content": turn["text"], "namespace": namespace, "session_id": f"s{n:02d}", "role": turn["role"],
         "occurred_at": TOPIC_START + 2 * DAY * n + 60 * position}
        for n, chat in enumerate(chats) for position, turn in enumerate(chat["turns"])
    ]  # fmt: skip
    results = memory.store_many(items)
    evidence: dict[str, list[str]] = {}
    for item, result in zip(items, results, strict=True):
        evidence.setdefault(item["session_id"], []).append(result.id)
    return evidence


def _date(moment: float, language: str) -> str:
    day = datetime.fromtimestamp(moment, UTC)
    return f"{day.year}年{day.month}月{day.day}日" if language == "zh" else f"{day:%B} {day.day}, {day.year}"


def table(result: dict[str, Any]) -> str:
    lines = []
    if "locomo" in result:
        means = result["locomo"]["rows"]
        lines += [f"LoCoMo session digests ({result['locomo']['sessions']} sessions, {means['words']} words each)",
                  "| text | ROUGE-1 recall vs summary | ROUGE-L F1 vs summary | ROUGE-1 recall vs events |",
                  "|---|---|---|---|"]  # fmt: skip
        for name in ("digest", "sentences only", "lead", "longest turns", "lead, sentences' length"):
            lines.append(f"| {name} | {means[f'{name}|r1']} | {means[f'{name}|rl']} | {means[f'{name}|events']} |")
        lines.append("")
    lines += ["Topic questions", "| language | questions | digest card first | R@5 of the session's episodes |",
              "|---|---|---|---|"]  # fmt: skip
    for language, outcomes in result["topics"].items():
        first = 100 * statistics.fmean(o["digest_first"] for o in outcomes)
        recall = 100 * statistics.fmean(o["recall_at_5"] for o in outcomes)
        lines.append(f"| {language} | {len(outcomes)} | {first:.1f}% | {recall:.1f}% |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=None)
    parser.add_argument("--topics-only", action="store_true", help="skip LoCoMo")
    parser.add_argument("--verbose", action="store_true", help="print each topic question that missed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {"topics": run_topics()}
    if not args.topics_only:
        if not args.data.exists():
            print(f"no LoCoMo data at {args.data}", file=sys.stderr)
            return 2
        result["locomo"] = run_locomo(args.data, args.conversations)
    if args.verbose:
        for outcomes in result["topics"].values():
            for o in outcomes:
                if not o["digest_first"] or o["recall_at_5"] < 1:
                    print(f"missed ({o['recall_at_5']:.2f}): {o['question']}", file=sys.stderr)
    print(json.dumps(result, ensure_ascii=False, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
