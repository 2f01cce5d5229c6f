"""The engine of the rules the rule book declares in data alone (`engine/rules/statements.toml`,
a rule's `tokens` table): spaCy `Matcher` patterns over a sentence's words. Each match states
the rule's predicate of the speaker about every name it holds and every name coordinated with
it up to the next verb or punctuation ("mostly Kotlin and a little Scala"); a name that is a
verb's own object ("I mostly see Anna these days") is not the rule's, nor is a sentence whose
subject is another's ("my brother is mostly Java these days"). Pure over a parsed sentence."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.reflect.phrases import phrase
from engine.reflect.rule_book import TokenRule, rule_book
from engine.reflect.vocabulary import Statement

__all__ = ["token_statements"]

_SUBJECTS = ("nsubj", "nsubjpass")
_ARGUMENTS = ("nsubj", "nsubjpass", "dobj", "dative", "oprd")


@cache
def _token_rules() -> dict[str, TokenRule]:
    return {name: entry.tokens for name, entry in rule_book().items() if entry.tokens is not None}


@cache
def _matcher(vocab: Any) -> Any:
    from spacy.matcher import Matcher

    matcher = Matcher(vocab)
    for name, rule in _token_rules().items():
        matcher.add(name, rule.patterns, greedy="LONGEST")
    return matcher


def token_statements(sentence: Any) -> list[Statement]:
    """What the token rules read in one parsed sentence (a spaCy Span)."""
    rules = _token_rules()
    if not rules:
        return []
    matcher = _matcher(sentence.doc.vocab)
    subjects = {t.lower_ for t in sentence if t.dep_ in _SUBJECTS}
    found: list[Statement] = []
    for match_id, start, end in matcher(sentence):
        name = sentence.doc.vocab.strings[match_id]
        rule = rules[name]
        if not subjects <= set(rule.subjects):
            continue
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
