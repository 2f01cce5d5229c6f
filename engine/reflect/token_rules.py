"""The engine of the rules the rule book declares in data alone (`engine/rules/statements.toml`,
a rule's `tokens` table): spaCy `Matcher` patterns over a text's words, sentence by sentence. Each match states
the rule's predicate of the speaker about every name it holds and every name coordinated with
it up to the next verb or punctuation ("mostly Kotlin and a little Scala"); a name that is a
verb's own object ("I mostly see Anna these days") is not the rule's, nor is a sentence whose
subject is another's ("my brother is mostly Java these days"). Pure over a parsed text."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.reflect.phrases import SUBJECTS, phrase
from engine.reflect.rule_book import TokenRule, rule_book
from engine.reflect.vocabulary import Statement

__all__ = ["token_statements"]

_ARGUMENTS = ("nsubj", "nsubjpass", "dobj", "dative", "oprd")


@cache
def _token_rules() -> dict[str, TokenRule]:
    return {name: entry.tokens for name, entry in rule_book().items() if entry.tokens is not None}


@cache
def _literals() -> frozenset[str] | None:
    """The lower-case words one of which every pattern needs (its first required `LOWER`), or
    None when some pattern needs none."""
    words: set[str] = set()
    for rule in _token_rules().values():
        for pattern in rule.patterns:
            needed = [t["LOWER"] for t in pattern if "LOWER" in t and t.get("OP") in (None, "+")]
            if not needed:
                return None
            first = needed[0]
            if isinstance(first, str):
                words.add(first.lower())
            elif isinstance(first, dict) and isinstance(first.get("IN"), list):
                words.update(w.lower() for w in first["IN"])
            else:
                return None
    return frozenset(words)


def _may_match(doc: Any) -> bool:
    """Whether some pattern can match: a word one of them needs is in the text. Most texts
    have none, and this costs a tenth of running the matcher (the words' ids, compared in C)."""
    from spacy.attrs import LOWER

    wanted = _literal_ids(doc.vocab)
    return wanted is None or not wanted.isdisjoint(doc.to_array(LOWER).tolist())


@cache
def _literal_ids(vocab: Any) -> frozenset[int] | None:
    literals = _literals()
    return None if literals is None else frozenset(vocab.strings.add(word) for word in literals)


@cache
def _matcher(vocab: Any) -> Any:
    from spacy.matcher import Matcher

    matcher = Matcher(vocab)
    for name, rule in _token_rules().items():
        matcher.add(name, rule.patterns, greedy="LONGEST")
    return matcher


def token_statements(doc: Any) -> dict[int, list[Statement]]:
    """What the token rules read in a parsed text, by the start of each sentence (the matcher
    runs once over the whole text: once per sentence costs a tenth of the parse)."""
    rules = _token_rules()
    found: dict[int, list[Statement]] = {}
    if not rules or not _may_match(doc):
        return found
    for match_id, start, end in _matcher(doc.vocab)(doc):
        sentence = doc[start].sent
        if end > sentence.end:
            continue  # across two sentences
        name = doc.vocab.strings[match_id]
        said = _read(sentence, rules[name], name, start - sentence.start, end - sentence.start)
        found.setdefault(sentence.start, []).extend(said)
    return found


def _read(sentence: Any, rule: TokenRule, name: str, start: int, end: int) -> list[Statement]:
    """The statements of one match, at `start`:`end` of `sentence`."""
    subjects = {t.lower_ for t in sentence if t.dep_ in SUBJECTS}
    found: list[Statement] = []
    if subjects <= set(rule.subjects):
        cue = " ".join(t.text for t in sentence[start:end] if t.pos_ != "PROPN")  # "mostly", "day to day"
        for name_token in _names(sentence, start, end):
            text, key = phrase(name_token)
            found.append(Statement(subject_kind="speaker", subject="I", predicate=rule.predicate, object=text,
                                   object_key=key, negated=False, hedged=False, sentence=sentence.text.strip(),
                                   rule=name, cue=cue))  # fmt: skip
    return found


def _names(sentence: Any, start: int, end: int) -> list[Any]:
    """The head of each name in the match and in what is coordinated with it, up to the next
    verb or punctuation; not a name that is a verb's own object."""
    stop = end
    while stop < len(sentence) and not sentence[stop].is_punct and sentence[stop].pos_ not in ("VERB", "AUX"):
        stop += 1
    heads = []
    for token in sentence[start:stop]:
        if token.pos_ != "PROPN" or (token.head.pos_ == "PROPN" and token.head.i != token.i and token.dep_ == "compound"):
            continue  # a name's inner word: its head stands for it
        if token.dep_ in _ARGUMENTS:
            continue  # "I mostly see Anna these days": the verb's own
        heads.append(token)
    return heads
