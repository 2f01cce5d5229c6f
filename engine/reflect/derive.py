"""Candidate facts from episodes, by rules. Pure; no LLM.

Three kinds of evidence:
- statements: what the episode's sentences state about a subject ("I went to an LGBTQ support
  group" said by Caroline: Caroline -attended-> LGBTQ support group), from the parse
  (`engine.reflect.statements`, `engine.reflect.statements_zh`); an object that is no named
  entity becomes a CONCEPT entity keyed by its lemmas, so it links the episodes that state it.
  What a speaker says of themselves or of a named subject is a fact from one episode; what
  they say of the other party ("you have two kids") is second hand, and needs the support of
  `fact_min_support` episodes of one reflection run, the other party's own words among them
  or not;
- decisions: the speaker decided each entity a decision names.
Support is counted later, over distinct episodes. An agent's work (tool calls, tasks) states no
fact here: its failures and their fixes become lessons (`engine.reflect.lessons`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from engine.ingest.extract import decision_cue
from engine.ingest.pipeline import entity_id
from engine.recall.time_query import date_window
from engine.reflect.patterns import Patterns
from engine.reflect.vocabulary import Statement
from engine.reflect.worth import worth_keeping
from engine.text import canonical_name
from engine.time_phrases import named_spans, relative_time

__all__ = ["CandidateFact", "EntityRef", "EpisodeView", "derive_facts"]

CONCEPT = "CONCEPT"
HEDGED_WEIGHT = 0.5  # a hedged statement ("maybe", "I think") counts half


class EntityRef(BaseModel):
    id: str
    name: str
    type: str | None = None  # set for an entity reflection creates (CONCEPT, PERSON)
    canonical: str | None = None


class EpisodeView(BaseModel):
    """What reflection reads of an episode."""

    id: str
    namespace: str = "default"
    content: str
    occurred_at: float
    kind: str
    role: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
    entities: list[EntityRef]
    decisions: list[str] = Field(default_factory=list)
    speaker: EntityRef | None = None  # the role as an entity
    other: EntityRef | None = None  # the other party of a two-party session: "you"
    statements: list[Statement] = Field(default_factory=list)


class CandidateFact(BaseModel):
    subject: EntityRef
    predicate: str
    negated: bool
    object: EntityRef
    statement: str
    episode_id: str
    at: float
    explicit: bool = False  # stated, decided or a fix: one episode is enough
    own: bool = False  # the subject's own word about themself ("I ..."), not another's
    weight: float = 1.0  # HEDGED_WEIGHT for a hedged statement
    refers_to: float | None = None  # the time the statement names, if any
    rule: str = "statement"  # the rule that made it (`Fact.rule`)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.subject.id, self.predicate, self.object.id)


_PATTERNS = Patterns("derive")
_PURPOSE = _PATTERNS("purpose")
_TURNED_DOWN = _PATTERNS("turned_down")


def derive_facts(episodes: Sequence[EpisodeView]) -> list[CandidateFact]:
    """Every candidate fact the episodes state, one per (episode, relation)."""
    found: list[CandidateFact] = []
    for episode in sorted(episodes, key=lambda e: e.occurred_at):
        found += _stated(episode)
        found += _decided(episode)
    unique: dict[tuple[str, str, str, bool, str], CandidateFact] = {}
    for fact in found:
        unique.setdefault((*fact.key, fact.negated, fact.episode_id), fact)
    return list(unique.values())


def _named(name: str, entities: Sequence[EntityRef]) -> EntityRef | None:
    """The episode's entity a phrase names: same canonical name, or the phrase ends with it
    as a word of its own ("the Python language" is not Python, "Project Atlas" is Atlas,
    "CS:GO" is not GO).

    >>> refs = [EntityRef(id="1", name="GO"), EntityRef(id="2", name="Atlas")]
    >>> _named("CS:GO", refs), _named("Project Atlas", refs).name
    (None, 'Atlas')
    """
    wanted = canonical_name(name)
    for entity in entities:
        known = canonical_name(entity.name)
        # not an adverb the tagger took into a name: "Sadly Luna passed away" is Luna
        longer = known.endswith(" " + wanted) and not known.split()[0].endswith("ly")
        ends = wanted.endswith(" " + known) and name.casefold().endswith(" " + entity.name.casefold())
        if known and (known == wanted or ends or longer):
            return entity
    return None


def _time_named(sentence: str, at: float) -> float | None:
    """The time a sentence said at `at` names: a relative time back, else one to come ("we
    fly to Tokyo next month"), else a date it names."""
    relative = relative_time(sentence, at)
    if relative is not None:
        return relative
    coming = [span.start for span in named_spans(sentence, at) if span.start > at]
    if coming:
        return coming[0]
    window = date_window(sentence, datetime.fromtimestamp(at, UTC).replace(tzinfo=None))
    return window[0] if window else None


def _stated(episode: EpisodeView) -> list[CandidateFact]:
    facts = []
    for statement in episode.statements:
        if statement.subject_kind == "speaker":
            subject = episode.speaker
        elif statement.subject_kind == "other":
            subject = episode.other
        else:
            subject = _named(statement.subject, episode.entities)
        if subject is None:
            continue
        named = _named(statement.object, episode.entities)
        obj = named or _concept(episode.namespace, statement)
        if obj is None or obj.id == subject.id:
            continue
        if named is not None and episode.other is not None and named.id == episode.other.id:
            continue  # "I love the thought Nate!" said to Nate: his name is called, not liked
        if not worth_keeping(statement.predicate, statement.object_key, named=named is not None,
                             negated=statement.negated):
            continue  # true, perhaps, but nothing a profile keeps ("I made some goodies")
        facts.append(
            CandidateFact(subject=subject, predicate=statement.predicate, negated=statement.negated,
                          object=obj, statement=statement.sentence, episode_id=episode.id,
                          at=episode.occurred_at, explicit=statement.subject_kind != "other",
                          own=statement.subject_kind == "speaker",
                          weight=HEDGED_WEIGHT if statement.hedged else 1.0,
                          refers_to=_time_named(statement.sentence, episode.occurred_at), rule=statement.rule)
        )  # fmt: skip
    return facts


def _concept(namespace: str, statement: Statement) -> EntityRef | None:
    canonical = canonical_name(statement.object_key)
    if not canonical:
        return None
    return EntityRef(id=entity_id(namespace, canonical), name=statement.object, type=CONCEPT,
                     canonical=canonical)  # fmt: skip


def _decided(episode: EpisodeView) -> list[CandidateFact]:
    """The speaker decided each entity a decision sentence names as the thing chosen: "go
    with Postgres for the Atlas backend" decides Postgres, not Atlas. An entity a statement of
    the episode already reads ("we moved to Lisbon": lives_in) is that statement's, and when a
    statement reads the decision itself, the decision adds nothing."""
    if episode.speaker is None or any(s.predicate == "decided" for s in episode.statements):
        return []  # the parse read what was decided
    speaker = episode.speaker
    stated = {named.id for s in episode.statements if (named := _named(s.object, episode.entities))}
    return [
        CandidateFact(subject=speaker, predicate="decided", negated=False, object=entity,
                      statement=decision, episode_id=episode.id, at=episode.occurred_at,
                      explicit=True, rule="decision")
        for decision in episode.decisions
        for entity in episode.entities
        if entity.id != speaker.id and entity.id not in stated and _chosen(entity.name, decision)
        and not _purpose(entity.name, decision)
    ]  # fmt: skip


def _chosen(name: str, decision: str) -> bool:
    """Whether a decision names `name` where its choice is said, after its words of deciding
    (`engine.ingest.extract.decision_cue`), or anywhere when it has none, and not as the
    alternative turned down ("settled on Ghost instead of Medium"): what it names before ("I
    love Civilization, so I decided to make a game") is the reason, not the choice.

    >>> _chosen("Civilization", "I love Civilization, so I decided to make a game"), _chosen("Postgres", "We went with Postgres")
    (False, True)
    >>> _chosen("Medium", "We settled on Ghost instead of Medium"), _chosen("Ghost", "We settled on Ghost instead of Medium")
    (False, True)
    """
    at = decision.casefold().find(name.casefold(), decision_cue(decision) or 0)
    return at >= 0 and _TURNED_DOWN.search(decision[:at]) is None


def _purpose(name: str, decision: str) -> bool:
    """Whether a decision names `name` as what the choice is for ("... for the Atlas backend").

    >>> _purpose("Atlas", "We went with Postgres for the Atlas backend"), _purpose("Postgres", "We went with Postgres")
    (True, False)
    """
    at = decision.casefold().find(name.casefold())
    return at >= 0 and _PURPOSE.search(decision[:at]) is not None
