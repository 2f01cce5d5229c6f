"""English NER: the trimmed, numpy-backed spaCy pipeline, what it makes of transcripts and mixed
Chinese, and numpy's BLAS threads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import spacy
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_info, threadpool_limits

from engine import Memory, Settings, nlp
from engine.tag_rules import TagRules

TEXTS = [
    "Alice met Bob in Paris with Project Atlas.",
    "We booked Room 101 for the review with Dana Scully.",
    "The Kestrel team moved the GitHub runners to PostgreSQL 16 on Monday.",
    "New York City hotels are expensive this week, said the Acme Corp. travel desk.",
    "Thanks! I think the Atlas launch slips to May.",
]


@pytest.mark.parametrize(("text", "names"), [
    # the speaker's name, not "Maria: Cool"
    ("Maria: Cool, I went to Paris with John.", ["Maria", "Paris", "John"]),
    # not "Atlas 的预算改成50万。": the English model reads the Chinese clause as a name
    ("我们决定把 Atlas 的预算改成50万。", ["Atlas"]),
])  # fmt: skip
def test_names_end_where_the_words_stop_being_english(text: str, names: list[str]) -> None:
    [found] = nlp.find_entities([text])
    assert [e.name for e in found] == names


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_the_trimmed_pipeline_finds_what_spacys_own_pipeline_finds() -> None:
    # spaCy's pipeline as shipped (blis, the attribute ruler): the same entity spans, and
    # PROPN exactly where the tag is NNP or NNPS, so reading tags loses no proper noun.
    reference = spacy.load(nlp.SPACY_MODEL, exclude=["parser", "lemmatizer"])
    for theirs, ours in zip(reference.pipe(TEXTS), nlp._spacy().pipe(TEXTS), strict=True):
        assert [(e.text, e.label_) for e in theirs.ents] == [(e.text, e.label_) for e in ours.ents]
        assert [t.pos_ == "PROPN" for t in theirs] == [t.tag_ in nlp._PROPER_NOUN_TAGS for t in ours]
    assert "attribute_ruler" not in nlp._spacy().pipe_names
    found = nlp.find_entities(TEXTS[:2])
    assert [(e.name, e.type) for e in found[0]] == [
        ("Alice", "PERSON"), ("Bob", "PERSON"), ("Paris", "PLACE"), ("Project Atlas", "ORG"),
    ]  # fmt: skip
    assert "Room 101" in [e.name for e in found[1]]


@pytest.mark.parametrize(("text", "name", "kind"), [
    ("We decided to use Redis for the cache", "Redis", "PRODUCT"),
    ("Dana installed Kafka on the staging box", "Kafka", "PRODUCT"),
    ("Let us deploy Grafana next to Loki", "Grafana", "PRODUCT"),
    ("Dana installed Kafka on the staging box", "Dana", "PERSON"),  # the subject is who did it
    ("I met Dana yesterday", "Dana", "PERSON"),
    ("I ran into Dana at the airport", "Dana", "PERSON"),
    ("We used Priya's design", "Priya", "PERSON"),  # a possessive: the design was used
    ("Maria runs the Lisbon office", "Lisbon", "PLACE"),
    ("We moved to Berlin in May", "Berlin", "PLACE"),
])  # fmt: skip
def test_a_name_a_tool_verb_acts_on_is_a_product_not_a_person(text: str, name: str, kind: str) -> None:
    """The small model reads an unknown product as a person or a place; people are not
    installed and places are not deployed."""
    assert (name, kind) in [(e.name, e.type) for e in nlp.find_entities([text])[0]]


def test_a_memory_holds_numpy_blas_to_its_setting_or_leaves_it(tmp_path: Path) -> None:
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() and set(_blas_threads()) == {2}
        with Memory.open(settings=Settings(data_dir=tmp_path / "a", numpy_blas_threads=0)):
            assert set(_blas_threads()) == {2}
        with Memory.open(settings=Settings(data_dir=tmp_path / "b")):  # default: one
            assert set(_blas_threads()) == {1}


@pytest.fixture(scope="module")
def ruled() -> tuple[Any, TagRules]:
    """spaCy's English pipeline as shipped, and its attribute ruler's rules by lookup."""
    reference = spacy.load(nlp.SPACY_MODEL, exclude=["ner"])
    return reference, TagRules(reference.get_pipe("attribute_ruler"))


# Every word a rule of the ruler names, and words around them that change tags and roles.
def _rule_words() -> list[str]:
    reference = spacy.load(nlp.SPACY_MODEL, exclude=["ner", "tok2vec", "tagger", "parser", "lemmatizer"])
    words = {"there", "we", "they", "she", "Alice", "that", "this", "which", "to", "run", "home", "ok"}
    ruler: Any = reference.get_pipe("attribute_ruler")
    for rule in ruler.patterns:
        for pattern in rule["patterns"]:
            for token in pattern:
                lower = token.get("LOWER")
                words.update([lower] if isinstance(lower, str) else lower.get("IN", []) if isinstance(lower, dict) else [])
    return sorted(words)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sentence=st.lists(st.sampled_from(_rule_words()), min_size=1, max_size=12).map(" ".join))
@example(sentence="I ain't gonna say nothin' but y'all gotta let's go, c'mon: there is a dog.")
def test_property_the_rules_by_lookup_leave_a_doc_as_the_attribute_ruler_does(
    ruled: tuple[Any, TagRules], sentence: str
) -> None:
    reference, rules = ruled
    parsed = next(reference.pipe([sentence], disable=["attribute_ruler", "lemmatizer"]))
    theirs, ours = parsed.copy(), rules(parsed.copy())
    reference.get_pipe("attribute_ruler")(theirs)

    def read(doc: Any) -> list[tuple[str, ...]]:
        return [(t.tag_, t.pos_, str(t.morph), t.lemma_, t.dep_) for t in doc]

    assert read(ours) == read(theirs)


def test_reflections_parser_applies_the_rules_by_lookup() -> None:
    assert isinstance(nlp._spacy_parser().get_pipe("attribute_ruler"), TagRules)
    [doc] = nlp.parse_english(["I'm hoping to go, gonna be fun."])
    assert [t.lemma_ for t in doc][:4] == ["I", "be", "hope", "to"]  # the rules added to the ruler
