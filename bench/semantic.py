"""Semantic memory: the facts reflection keeps, against a gold set written by hand and against
LoCoMo's observations.

    python -m bench.semantic [--data ../shared/data/locomo/locomo10.json] [--conversations N]
                             [--samples 30] [--gold PATH] [--gold-only] [--verbose] [--json]

First the gold set (`bench.fact_gold`): precision, recall and F1 per language, facts per 100
turns (Chinese over English on the same dialogues), facts from turns that must yield none,
facts with a generic object; `--verbose` lists each wrong and missed fact of the
development part. Then LoCoMo:

Each conversation goes into its own namespace of one fresh memory (the same episodes as
`bench.locomo`); `reflect` runs until it has read every episode. LoCoMo's annotators wrote
observations per speaker, each citing its evidence turns ("Caroline attended an LGBTQ support
group recently", D1:3). Reported, per conversation and overall:
- coverage: the share of observations for which an active fact cites one of the observation's
  evidence turns, has the observation's speaker as subject, and shares a content lemma with it;
- precision proxy: the share of facts whose source turn has an observation of the fact's
  subject sharing the fact's object lemma;
- facts per 100 turns, and reflection speed in episodes per second (wall clock of `reflect`);
- facts whose object is a pronoun, a number or a generic head (`bench.fact_gold.generic_object`);
- a seeded sample of facts as `subject -predicate-> object  [statement]` to read.
The data is read from its path and never copied: its licence (CC BY-NC 4.0) allows
benchmarking only.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from bench import fact_gold
from bench.locomo import DEFAULT_DATA, scratch_memory
from bench.locomo_data import turns_of
from engine.nlp import parse_english
from engine.reflect.rule_book import PRECISION

_DIA = re.compile(r"D\d+:\d+")
_CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ"})
_FACTS = (
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace AND f.valid_to IS NULL "
    "RETURN a.name, f.predicate, f.negated, b.name, f.statement, f.source_episode_ids"
)


def observations_of(sample: dict[str, Any]) -> list[tuple[str, str, set[str]]]:
    """(speaker, observation, evidence turn ids) of a conversation."""
    found = []
    for per_session in sample.get("observation", {}).values():
        for speaker, rows in per_session.items():
            for row in rows:
                text, evidence = row[0], row[1] if len(row) > 1 else ""
                found.append((speaker, text, set(_DIA.findall(json.dumps(evidence)))))
    return found


def lemma_sets(texts: list[str], drop: set[str]) -> list[set[str]]:
    """Content lemmas of each text, lower case, without the speakers' names."""
    return [
        {t.lemma_.lower() for t in doc if t.is_alpha and not t.is_stop and t.pos_ in _CONTENT_POS}
        - drop
        for doc in parse_english(texts)
    ]


def score(
    facts: list[list[Any]], dia_of: dict[str, str], observations: list[tuple[str, str, set[str]]],
    speakers: set[str],
) -> dict[str, Any]:  # fmt: skip
    """Coverage and precision proxy of one conversation's facts."""
    drop = {s.lower() for s in speakers}
    fact_lemmas = lemma_sets([f"{f[1].replace('_', ' ')} {f[3]}" for f in facts], drop)
    object_lemmas = lemma_sets([str(f[3]) for f in facts], drop)
    observed = lemma_sets([o[1] for o in observations], drop)
    by_turn: dict[tuple[str, str], list[set[str]]] = {}
    for (speaker, _, evidence), lemmas in zip(observations, observed, strict=True):
        for turn in evidence:
            by_turn.setdefault((speaker, turn), []).append(lemmas)
    turns_of_fact = [{dia_of.get(i, "") for i in f[5]} for f in facts]
    covered = 0
    for (speaker, _, evidence), lemmas in zip(observations, observed, strict=True):
        covered += any(
            f[0] == speaker and turns & evidence and fact_lemmas[n] & lemmas
            for n, (f, turns) in enumerate(zip(facts, turns_of_fact, strict=True))
        )
    precise = sum(
        any(object_lemmas[n] & lemmas for t in turns for lemmas in by_turn.get((f[0], t), []))
        for n, (f, turns) in enumerate(zip(facts, turns_of_fact, strict=True))
    )
    return {"observations": len(observations), "covered": covered, "facts": len(facts),
            "precise": precise, "generic": sum(fact_gold.generic_object(str(f[3])) for f in facts)}  # fmt: skip


def run(data: Path, conversations: int | None, samples: int) -> dict[str, Any]:
    chosen = json.loads(data.read_text(encoding="utf-8"))[:conversations]
    rows = []
    drawn: list[list[Any]] = []
    with scratch_memory("hindsight-semantic-") as memory:
        for number, sample in enumerate(chosen):
            namespace = f"locomo-{number}"
            items = turns_of(sample)
            results = memory.store_many([{**i, "namespace": namespace} for i in items])
            dia_of = {r.id: i["metadata"]["dia_id"] for r, i in zip(results, items, strict=True)}
            started, runs = time.perf_counter(), 0
            while memory.reflect(namespace=namespace).status != "nothing_new":
                runs += 1
            seconds = time.perf_counter() - started
            facts = memory.cypher(_FACTS, namespace=namespace).rows
            speakers = {sample["conversation"]["speaker_a"], sample["conversation"]["speaker_b"]}
            row = score(facts, dia_of, observations_of(sample), speakers)
            row.update(conversation=sample.get("sample_id", str(number)), turns=len(items),
                       reflect_seconds=round(seconds, 3), reflect_runs=runs)  # fmt: skip
            rows.append(row)
            drawn += facts
            print(f"{row['conversation']}: {len(items)} turns, {len(facts)} facts", file=sys.stderr)
    total = {key: sum(r[key] for r in rows) for key in ("turns", "observations", "covered", "facts", "precise", "generic")}
    seconds = sum(r["reflect_seconds"] for r in rows)
    picked = random.Random(0).sample(drawn, min(samples, len(drawn)))
    return {
        "conversations": rows,
        **total,
        "coverage": round(100 * total["covered"] / max(1, total["observations"]), 1),
        "precision_proxy": round(100 * total["precise"] / max(1, total["facts"]), 1),
        "facts_per_100_turns": round(100 * total["facts"] / max(1, total["turns"]), 1),
        "reflect_eps_per_s": round(total["turns"] / seconds, 1) if seconds else None,
        "sample": [
            f"{s} -{'not_' if negated else ''}{p}-> {o}  [{statement}]"
            for s, p, negated, o, statement, _ in picked
        ],
    }


def table(result: dict[str, Any]) -> str:
    head = f"{'conversation':<14}{'turns':>7}{'obs':>6}{'facts':>7}{'/100 turns':>11}{'coverage %':>12}{'precision %':>13}{'eps/s':>8}"
    lines = [head]
    for r in result["conversations"]:
        lines.append(
            f"{r['conversation']:<14}{r['turns']:>7}{r['observations']:>6}{r['facts']:>7}"
            f"{100 * r['facts'] / max(1, r['turns']):>11.1f}"
            f"{100 * r['covered'] / max(1, r['observations']):>12.1f}"
            f"{100 * r['precise'] / max(1, r['facts']):>13.1f}"
            f"{r['turns'] / max(r['reflect_seconds'], 1e-9):>8.0f}"
        )
    lines.append(
        f"{'overall':<14}{result['turns']:>7}{result['observations']:>6}{result['facts']:>7}"
        f"{result['facts_per_100_turns']:>11.1f}{result['coverage']:>12.1f}"
        f"{result['precision_proxy']:>13.1f}{result['reflect_eps_per_s'] or 0:>8.0f}"
    )
    lines += ["", f"facts whose object is a pronoun, a number or a generic head: {result['generic']}"]
    lines += ["", f"{len(result['sample'])} facts drawn at random (seed 0):"]
    lines += [f"  {line}" for line in result["sample"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--conversations", type=int, default=None, help="only the first N")
    parser.add_argument("--samples", type=int, default=30, help="facts to print for reading")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--gold", type=Path, default=fact_gold.GOLD, help="the gold set of facts")
    parser.add_argument("--gold-only", action="store_true", help="only the hand-written gold set")
    parser.add_argument("--verbose", action="store_true", help="list the wrong and missed facts of the gold set's development part")
    parser.add_argument("--write-precision", action="store_true",
                        help="write each rule's development-part precision to engine/rules/precision.json")
    args = parser.parse_args(argv)
    if args.conversations is not None and args.conversations < 1:
        parser.error("--conversations: a positive integer")
    if args.samples < 0:
        parser.error("--samples: zero or more")
    if not args.gold.exists():
        parser.error(f"--gold: no file at {args.gold}")
    gold = fact_gold.run(args.gold)
    if args.write_precision:  # measured with every rule on: an off rule is measured too
        PRECISION.write_text(fact_gold.precision_record(fact_gold.run(args.gold, every_rule=True)), encoding="utf-8")
        print(f"wrote {PRECISION}", file=sys.stderr)
    result: dict[str, Any] = {"gold": gold}
    if not args.gold_only and not args.data.exists():
        print(f"LoCoMo data not found at {args.data}; pass --data PATH. Skipping it.", file=sys.stderr)
    elif not args.gold_only:
        result["locomo"] = run(args.data, args.conversations, args.samples)
    if args.json:
        print(json.dumps(result))
    else:
        print(fact_gold.table(gold, verbose=args.verbose))
        if "locomo" in result:
            print("\nLoCoMo\n" + table(result["locomo"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
