"""The facts reflection keeps, against a gold set written by hand (`bench/data/facts_gold.json`).

Fifty-five short conversations in English and their Chinese counterparts, user with assistant
and person with person, each turn annotated with the facts a careful reader would keep and,
for a turn that must yield none, why (a question, a wish, advice, the assistant's own
suggestion, another person's doings, a hypothetical, sarcasm). Each conversation goes into its
own namespace of one fresh memory; `reflect` runs until it has read everything; its facts,
current and closed, are matched against the gold ones:
- a fact matches a gold fact with the same subject, a predicate among the gold's alternatives
  (`predicate_matches`) and an object among its alternatives or a part of one that keeps its
  head (`object_matches`); each fact and each gold fact counts once;
- precision: matched facts over facts; recall: matched gold facts over gold facts;
- `from_traps`: facts whose every source turn must yield none, by the reason;
- `generic`: facts whose object is a pronoun, a number or a generic head ("things");
- times: of the matched gold facts annotated with a time (a date, or none for "a while ago"),
  those whose fact refers to that time;
- by split: each pair of parallel conversations 1-40 is in the development part (odd
  numbers) or the test part (even numbers), fixed in the data before the rules were named;
  pairs 41-48, written after the rules, are all in the test part, and 49-55, written to show
  the misreads found there in other words, all in the development part; rules are tuned on
  development only, and a gap of more than 5 points between the two says they were fitted
  to the development text;
- by rule: each statement rule's facts (`FACT.rule`), the share of them that match (its
  precision) and the gold facts they found.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from bench.locomo import scratch_memory
from engine.reflect.rule_book import rules_off
from engine.reflect.vocabulary import readable_predicate
from engine.settings import Settings
from engine.text import has_cjk

__all__ = ["GOLD", "generic_object", "load", "object_matches", "predicate_matches", "run", "score", "table"]

GOLD = Path(__file__).parent / "data" / "facts_gold.json"
# Objects that say nothing, whoever the extractor is: pronouns, counts and generic heads.
_GENERIC = frozenset({
    "it", "this", "that", "them", "they", "he", "she", "him", "her", "you", "me", "one", "ones",
    "thing", "things", "stuff", "moment", "moments", "time", "times", "view", "views", "lot",
    "something", "anything", "everything", "way", "ways", "people", "kind", "bit",
    "它", "这", "那", "他", "她", "他们", "东西", "事情", "时候", "一些",
})  # fmt: skip
# Current and closed: "I lived in Chicago" is kept when "we relocated to Austin" closes it.
_FACTS = (
    "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
    "RETURN a.name, f.predicate, f.negated, b.name, f.refers_to, f.source_episode_ids, f.rule"
)


class GoldFact(BaseModel):
    subject: str
    predicate: str  # alternatives split by "|"; "not " before one that is negated
    object: str  # alternatives split by "|"
    time: str | None = "unset"  # an ISO date prefix ("2025-04"), None for "no time", or unset


class GoldTurn(BaseModel):
    role: str
    text: str
    facts: list[GoldFact] = Field(default_factory=list)
    yields_none: str | None = None


class GoldConversation(BaseModel):
    id: str
    language: Literal["en", "zh"]
    parallel: str
    parties: Literal["user-assistant", "people"]
    split: Literal["dev", "test"]
    turns: list[GoldTurn]


def load(path: Path = GOLD) -> tuple[datetime, list[GoldConversation]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    start = datetime.fromisoformat(data["date"].replace("Z", "+00:00"))
    return start, [GoldConversation.model_validate(c) for c in data["conversations"]]


def _words(text: str) -> list[str]:
    """Lower-case words of an English phrase, plurals made singular; the characters of a
    Chinese one, Latin runs kept whole."""
    if has_cjk(text):
        return re.findall(r"[A-Za-z0-9/&]+|[^\sA-Za-z0-9/&·《》'’的]", text.lower())
    words = re.findall(r"[a-z0-9/&]+", text.lower())
    return [w[:-3] + "y" if w.endswith("ies") and len(w) > 4
            else w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w
            for w in words if w not in ("the", "a", "an", "my", "our")]  # fmt: skip


def object_matches(found: str, gold: str) -> bool:
    """Whether a fact's object is one of the gold alternatives, or a part of one that keeps its
    head (the last word; in Chinese the last characters), or one of them with more words
    before its head.

    >>> object_matches("support group", "LGBTQ support group"), object_matches("groups", "group")
    (True, True)
    >>> object_matches("LGBTQ", "LGBTQ support group"), object_matches("jazz", "jazz festival|festival")
    (False, False)
    >>> object_matches("爱情片", "喜剧|爱情片"), object_matches("片", "爱情片"), object_matches("喜剧", "爱情片")
    (True, False, False)
    """
    have = _words(found)
    for alternative in gold.split("|"):
        want = _words(alternative)
        if not have or not want:
            continue
        if have == want:
            return True
        if has_cjk(alternative) or has_cjk(found):
            shorter, longer = sorted(("".join(have), "".join(want)), key=len)
            if len(shorter) >= 2 and longer.endswith(shorter):
                return True
        elif have[-1] == want[-1] and (set(have) <= set(want) or set(want) <= set(have)):
            return True
    return False


def _normal(predicate: str) -> str:
    """A predicate as the vocabulary names it: "work_at" and "works_at" are one."""
    lemma, _, link = predicate.partition("_")
    mapped = readable_predicate(lemma, link or None)
    return mapped if mapped is not None else predicate


def predicate_matches(found: str, negated: bool, gold: str) -> bool:
    """Whether a fact's predicate and polarity are one of the gold alternatives, each read
    through the vocabulary ("go_to" in the past is `attended`, "work_at" is `works_at`).

    >>> predicate_matches("works_at", False, "works_at|join"), predicate_matches("likes", True, "not likes|dislikes")
    (True, True)
    >>> predicate_matches("likes", False, "not likes|dislikes"), predicate_matches("work_at", False, "works_at")
    (False, True)
    """
    for alternative in gold.split("|"):
        wanted_negated = alternative.startswith("not ")
        name = alternative.removeprefix("not ")
        if wanted_negated == negated and (found == name or _normal(found) == _normal(name)):
            return True
    return False


def _matches(fact: list[Any], gold: GoldFact) -> bool:
    subject, predicate, negated, obj = fact[0], fact[1], bool(fact[2]), fact[3]
    return (
        str(subject).casefold() == gold.subject.casefold()
        and predicate_matches(str(predicate), negated, gold.predicate)
        and object_matches(str(obj), gold.object)
    )


def _time_right(fact: list[Any], gold: GoldFact) -> bool:
    refers_to = fact[4]
    if gold.time is None:
        return refers_to is None
    if refers_to is None:
        return False
    day = datetime.fromtimestamp(float(refers_to), UTC).date().isoformat()
    return any(day.startswith(t) for t in gold.time.split("|"))


def generic_object(obj: str) -> bool:
    """A pronoun, a number or a generic head ("things", "moments"): an object that says nothing."""
    words = _words(obj) if not has_cjk(obj) else [obj]
    return not words or words[-1] in _GENERIC or all(w.isdigit() for w in words)


def score(conversation: GoldConversation, facts: list[list[Any]], turn_of: dict[str, int]) -> dict[str, Any]:
    """One conversation's matches, traps and times (module docstring)."""
    gold = [(n, g) for n, turn in enumerate(conversation.turns) for g in turn.facts]
    used: set[int] = set()
    matched_facts, wrong = 0, []
    timed = timed_right = 0
    by_rule: dict[str, dict[str, int]] = {}
    for fact in facts:
        rule = by_rule.setdefault(str(fact[6]), {"facts": 0, "matched": 0, "found_gold": 0})
        rule["facts"] += 1
        hit = next((i for i, (_, g) in enumerate(gold) if i not in used and _matches(fact, g)), None)
        if hit is None:
            hit = next((i for i, (_, g) in enumerate(gold) if _matches(fact, g)), None)
            if hit is None:
                wrong.append(fact)
                continue
        else:
            used.add(hit)
            rule["found_gold"] += 1
            if gold[hit][1].time != "unset":
                timed += 1
                timed_right += _time_right(fact, gold[hit][1])
        matched_facts += 1
        rule["matched"] += 1
    misses = [g for i, (_, g) in enumerate(gold) if i not in used]
    traps: dict[str, int] = {}
    for fact in facts:
        turns = [turn_of[e] for e in fact[5] if e in turn_of]
        reasons = {conversation.turns[t].yields_none for t in turns}
        if turns and None not in reasons:
            for reason in reasons:
                traps[str(reason)] = traps.get(str(reason), 0) + 1
    return {
        "id": conversation.id, "language": conversation.language, "split": conversation.split,
        "turns": len(conversation.turns), "by_rule": by_rule,
        "gold": len(gold), "facts": len(facts), "matched_facts": matched_facts, "found_gold": len(used),
        "generic": sum(generic_object(str(f[3])) for f in facts), "traps": traps,
        "timed": timed, "timed_right": timed_right,
        "wrong": [_shown(f) for f in wrong],
        "missed": [f"{g.subject} -{g.predicate}-> {g.object}" for g in misses],
    }  # fmt: skip


def _shown(fact: list[Any]) -> str:
    return f"{fact[0]} -{'not ' if fact[2] else ''}{fact[1]}-> {fact[3]}"


def run(path: Path = GOLD, *, every_rule: bool = False) -> dict[str, Any]:
    """The gold set read by reflection as configured, or with `every_rule` on whatever its
    precision (to measure the rules the floor turns off)."""
    start, conversations = load(path)
    rows = []
    with scratch_memory("hindsight-gold-", **({"reflection_rule_floor": 0.0} if every_rule else {})) as memory:
        for conversation in conversations:
            namespace = conversation.id
            items = [
                {"content": t.text, "role": t.role, "session_id": conversation.id, "namespace": namespace,
                 "occurred_at": (start + timedelta(minutes=n)).isoformat()}
                for n, t in enumerate(conversation.turns)
            ]  # fmt: skip
            results = memory.store_many(items)
            turn_of = {r.id: n for n, r in enumerate(results)}
            while memory.reflect(namespace=namespace).status != "nothing_new":
                pass
            rows.append(score(conversation, memory.cypher(_FACTS, namespace=namespace).rows, turn_of))
    return {
        "languages": {lang: _total([r for r in rows if r["language"] == lang]) for lang in ("en", "zh")},
        "splits": {f"{lang} {split}": _total([r for r in rows if r["language"] == lang and r["split"] == split])
                   for lang in ("en", "zh") for split in ("dev", "test")},
        "rules": _rules(rows),
        "conversations": rows,
    }  # fmt: skip


def _rules(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each rule's facts, precision and gold facts found, on each split."""
    rules: dict[str, dict[str, Any]] = {}
    for row in rows:
        for rule, counts in row["by_rule"].items():
            split = rules.setdefault(rule, {}).setdefault(row["split"], {"facts": 0, "matched": 0, "found_gold": 0})
            for key, value in counts.items():
                split[key] += value
    for splits in rules.values():
        for counts in splits.values():
            counts["precision"] = round(100 * counts["matched"] / counts["facts"], 1)
    return dict(sorted(rules.items()))


def precision_record(result: dict[str, Any]) -> str:
    """Each statement rule's facts and matched facts on the development part, as
    `engine/rules/precision.json` holds them (`engine.reflect.rule_book.rules_off`)."""
    rules = {rule: {"facts": s["dev"]["facts"], "matched": s["dev"]["matched"]}
             for rule, s in result["rules"].items() if "dev" in s and rule.startswith(("en.", "zh."))}  # fmt: skip
    record = {"measured_on": "bench/data/facts_gold.json, development part (bench.semantic --write-precision)",
              "rules": rules}  # fmt: skip
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def _total(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("turns", "gold", "facts", "matched_facts", "found_gold", "generic", "timed", "timed_right")
    total: dict[str, Any] = {key: sum(r[key] for r in rows) for key in keys}
    precision = total["matched_facts"] / max(1, total["facts"])
    recall = total["found_gold"] / max(1, total["gold"])
    traps: dict[str, int] = {}
    for row in rows:
        for reason, count in row["traps"].items():
            traps[reason] = traps.get(reason, 0) + count
    return {
        **total, "precision": round(100 * precision, 1), "recall": round(100 * recall, 1),
        "f1": round(100 * 2 * precision * recall / max(1e-9, precision + recall), 1),
        "facts_per_100_turns": round(100 * total["facts"] / max(1, total["turns"]), 1),
        "from_traps": dict(sorted(traps.items())),
    }  # fmt: skip


def table(result: dict[str, Any], *, verbose: bool = False) -> str:
    head = (f"{'language':<10}{'turns':>6}{'gold':>6}{'facts':>7}{'precision %':>13}{'recall %':>10}"
            f"{'F1':>7}{'/100 turns':>11}{'generic':>9}{'times':>8}  from traps")  # fmt: skip
    lines = [head]
    for lang, t in result["languages"].items():
        lines.append(
            f"{lang:<10}{t['turns']:>6}{t['gold']:>6}{t['facts']:>7}{t['precision']:>13.1f}"
            f"{t['recall']:>10.1f}{t['f1']:>7.1f}{t['facts_per_100_turns']:>11.1f}{t['generic']:>9}"
            f"{t['timed_right']:>4}/{t['timed']:<3}  "
            + (", ".join(f"{k} {v}" for k, v in t["from_traps"].items()) or "none")
        )
    en, zh = (result["languages"][k]["facts_per_100_turns"] for k in ("en", "zh"))
    lines.append(f"Chinese facts per 100 turns over English on the same dialogues: {zh / en if en else 0:.2f}")
    lines.append(f"{'part':<10}{'gold':>6}{'facts':>7}{'precision %':>13}{'recall %':>10}")
    lines += [f"{part:<10}{t['gold']:>6}{t['facts']:>7}{t['precision']:>13.1f}{t['recall']:>10.1f}"
              for part, t in result["splits"].items()]  # fmt: skip
    lines.append(f"{'rule':<24}{'dev facts':>10}{'precision %':>13}{'test facts':>11}{'precision %':>13}{'gold found':>11}")
    for rule, splits in result["rules"].items():
        dev, test = (splits.get(s, {"facts": 0, "precision": None, "found_gold": 0}) for s in ("dev", "test"))
        shown = ["-" if part["precision"] is None else f"{part['precision']:.1f}" for part in (dev, test)]
        lines.append(f"{rule:<24}{dev['facts']:>10}{shown[0]:>13}{test['facts']:>11}{shown[1]:>13}"
                     f"{dev['found_gold'] + test['found_gold']:>11}")  # fmt: skip
    floor = Settings()
    off = rules_off(floor.reflection_rule_floor, floor.reflection_rule_min_facts)
    lines.append(f"rules off (development precision below {floor.reflection_rule_floor:.0%} over "
                 f"{floor.reflection_rule_min_facts}+ facts): {', '.join(sorted(off)) or 'none'}")
    if verbose:  # the development part only: a rule tuned on what the test part misses is fitted to it
        for row in result["conversations"]:
            if row["split"] == "dev" and (row["wrong"] or row["missed"]):
                lines.append(f"{row['id']}:")
                lines += [f"  wrong   {w}" for w in row["wrong"]]
                lines += [f"  missed  {m}" for m in row["missed"]]
    return "\n".join(lines)


