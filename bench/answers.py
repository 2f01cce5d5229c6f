"""Answers in the context recall hands an agent: does it hold LoCoMo's gold answer?

    python -m bench.answers [--data ../shared/data/locomo/locomo10.json] [--conversations N]
                            [--json]

Every conversation is stored in its own namespace and reflected on to the end. For each
non-adversarial question, three contexts are built from one recall each: facts alone
(`layer="semantic"`), episodes alone (`layer="episodic"`) and both (`recall()`), each card
rendered as an agent would read it, `[7 May 2023] content (yesterday: 6 May 2023)`: the
times its words name (`MemoryCard.times`) follow it; "no times" leaves them out. A context
holds the answer when it holds the answer's content words (`holds_answer`). Reported at top 5, and within 150 words
(cards taken best first, a card that does not fit left out while smaller ones after it may
still fit), per LoCoMo category. The data is read from its path and never copied: its
licence (CC BY-NC 4.0) allows benchmarking only.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.locomo import DEFAULT_DATA, scratch_memory
from bench.locomo_data import CATEGORIES, turns_of
from engine import Memory
from engine.models import MemoryCard, RecallLayer

CONTEXTS: dict[str, RecallLayer | None] = {"facts": "semantic", "episodes": "episodic", "mixed": None}
TOP_K = 5
WORD_BUDGET = 150
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an the and or of to in on at for with by from is was are were be been it its this that "
    "he she they them his her their i you we my your our as about into over after before "
    "did do does has have had not no yes".split()
)  # fmt: skip


def content_words(text: str) -> list[str]:
    """Lower-case words and numbers of a text, without function words.

    >>> content_words("The 7th of May, 2023")
    ['7th', 'may', '2023']
    """
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP]


def holds_answer(context: str, answer: str) -> bool:
    """Whether a context holds an answer: all its content words for an answer of one or two,
    at least 80% of them for a longer one. An answer of no content words is never held.

    >>> holds_answer("[7 May 2023] Caroline went to the LGBTQ support group.", "7 May 2023")
    True
    >>> holds_answer("Caroline is researching adoption agencies", "Adoption agencies")
    True
    >>> holds_answer("Melanie plays the violin", "clarinet")
    False
    >>> holds_answer("a b c d e", "one two three four five")
    False
    """
    wanted = set(content_words(answer))
    if not wanted:
        return False
    present = set(content_words(context))
    held = len(wanted & present)
    return held == len(wanted) if len(wanted) <= 2 else held >= 0.8 * len(wanted)


def rendered(card: MemoryCard, *, times: bool = True) -> str:
    """A card as an agent reads it: `[7 May 2023] content`, then what the relative times in
    its words name (`MemoryCard.times`) unless `times` is false.

    >>> from datetime import datetime, UTC
    >>> from engine.models import NamedTime
    >>> at = datetime(2023, 5, 8, tzinfo=UTC)
    >>> card = MemoryCard(id="e", namespace="n", content="I went yesterday", score=1.0, occurred_at=at,
    ...                   created_at=at, session_id=None, role=None, kind="message", layer="episodic",
    ...                   importance=0.5, entities=[], metadata={},
    ...                   times=[NamedTime(phrase="yesterday", start=at, end=at, text="7 May 2023")])
    >>> rendered(card), rendered(card, times=False)
    ('[8 May 2023] I went yesterday (yesterday: 7 May 2023)', '[8 May 2023] I went yesterday')
    """
    at = card.occurred_at
    text = f"[{at.day} {at:%B %Y}] {card.content}"
    if times and card.times:
        text += " (" + "; ".join(f"{t.phrase}: {t.text}" for t in card.times) + ")"
    return text


def within_words(cards: list[MemoryCard], budget: int) -> list[str]:
    """The rendered cards that fit in `budget` words, best first."""
    taken, used = [], 0
    for card in cards:
        text = rendered(card)
        words = len(text.split())
        if used + words <= budget:
            taken.append(text)
            used += words
    return taken


def run(data: Path, conversations: int | None) -> dict[str, Any]:
    chosen = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    rows: list[tuple[int, dict[str, bool]]] = []
    started = time.perf_counter()
    with scratch_memory("hindsight-answers-") as memory:
        for number, sample in enumerate(chosen):
            rows += _conversation(memory, number, sample)
            print(f"conversation {number + 1}/{len(chosen)}: {len(rows)} questions so far", file=sys.stderr)
    names = ([f"{c} top {TOP_K}" for c in CONTEXTS] + [f"{c} {WORD_BUDGET} words" for c in ("episodes", "mixed")]
             + [f"{c} top {TOP_K}, no times" for c in ("episodes", "mixed")])  # fmt: skip

    def share(selected: list[dict[str, bool]], name: str) -> float:
        return round(100 * sum(r[name] for r in selected) / max(1, len(selected)), 1)

    by_category = {
        label: {name: share([r for c, r in rows if c == category], name) for name in names}
        for category, label in CATEGORIES.items() if category != 5
    }  # fmt: skip
    return {
        "questions": len(rows),
        "all": {name: share([r for _, r in rows], name) for name in names},
        "by_category": by_category,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _conversation(memory: Memory, number: int, sample: dict[str, Any]) -> list[tuple[int, dict[str, bool]]]:
    namespace = f"locomo-{number}"
    items = turns_of(sample)
    memory.store_many([{**i, "namespace": namespace} for i in items])
    while memory.reflect(namespace=namespace).status != "nothing_new":
        pass
    last = max(datetime.fromisoformat(i["occurred_at"].rstrip("Z")) for i in items)
    asked = (last + timedelta(days=1)).isoformat() + "Z"
    rows = []
    for qa in sample["qa"]:
        category = int(qa["category"])
        if category == 5 or "answer" not in qa:
            continue
        answer = str(qa["answer"])
        row: dict[str, bool] = {}
        for name, layer in CONTEXTS.items():
            cards = memory.recall(qa["question"], namespace=namespace, layer=layer, top_k=25, now=asked)
            row[f"{name} top {TOP_K}"] = holds_answer(" ".join(rendered(c) for c in cards[:TOP_K]), answer)
            if layer != "semantic":
                row[f"{name} {WORD_BUDGET} words"] = holds_answer(" ".join(within_words(cards, WORD_BUDGET)), answer)
                plain = " ".join(rendered(c, times=False) for c in cards[:TOP_K])
                row[f"{name} top {TOP_K}, no times"] = holds_answer(plain, answer)
        rows.append((category, row))
    return rows


def table(result: dict[str, Any]) -> str:
    names = list(result["all"])
    lines = [f"{'context':<28}{'all':>7}" + "".join(f"{c:>13}" for c in result["by_category"])]
    for name in names:
        lines.append(f"{name:<28}{result['all'][name]:>7.1f}"
                     + "".join(f"{row[name]:>13.1f}" for row in result["by_category"].values()))  # fmt: skip
    lines.append(f"{result['questions']} questions, % whose gold answer the context holds; {result['seconds']} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; pass --data PATH. Skipping.", file=sys.stderr)
        return 0
    if args.conversations is not None and args.conversations < 1:
        parser.error("--conversations: a positive integer")
    result = run(args.data, args.conversations)
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
