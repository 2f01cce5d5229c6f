"""Candidate facts from episodes, by rules. Pure; no LLM.

Four kinds of evidence, each a relation between two entities:
- co-mention: two entities of one sentence joined by a short phrase ("Atlas uses Postgres"
  gives Atlas -use-> Postgres; "Dana doesn't work at Acme" the same, negated);
- decisions: a decision naming two entities ("use Postgres for Atlas"), predicate from the
  words between them or "decided";
- stated preferences: "I prefer / like / hate X", "我喜欢X" (the speaker's role is the subject);
- tool failures and their fixes: a failed tool call about X (tool -failed_on-> X), and the
  entities of the next successful call of that tool (tool -fixed_with-> Y).
Support is counted later, over distinct episodes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from engine.text import has_negation, split_sentences, tokenize

__all__ = ["CandidateFact", "EntityRef", "EpisodeView", "derive_facts", "merge_paraphrases"]

# Words that only negate: they set `negated` and leave the predicate.
_NEGATIONS = frozenset(
    {"not", "no", "never", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "wont",
     "cant", "cannot", "anymore", "longer", "不", "没", "没有", "别", "不再"}
)  # fmt: skip
_MAX_PREDICATE_TOKENS = 3
_PREFERENCE = re.compile(
    r"\b(?:i|we)\s+(?:really\s+|much\s+|strongly\s+)?"
    r"(?P<verb>prefer|like|love|enjoy|hate|dislike|don't like|do not like|can't stand)\b"
    r"|我们?(?:很|非常|更|比较)?(?P<zh>喜欢|偏好|更喜欢|爱|讨厌|不喜欢)",
    re.IGNORECASE,
)
_NEGATIVE_PREFERENCE = re.compile(r"hate|dislike|don't like|do not like|can't stand|讨厌|不喜欢")
_FAILURE = re.compile(r"\b(?:fail(?:ed|s|ure)?|error|exception|crash(?:ed)?|timed? out)\b|失败|报错|异常|超时", re.I)
_SUCCESS = re.compile(r"\b(?:fixed|resolved|succeeded|success(?:ful)?|worked|passed)\b|修复|解决|成功", re.I)


class EntityRef(BaseModel):
    id: str
    name: str


class EpisodeView(BaseModel):
    """What reflection reads of an episode."""

    id: str
    content: str
    occurred_at: float
    kind: str
    role: str | None = None
    metadata: dict[str, object] = Field(default_factory=dict)
    entities: list[EntityRef]
    decisions: list[str] = Field(default_factory=list)
    speaker: EntityRef | None = None  # the role as an entity, for preferences
    tool: EntityRef | None = None  # the tool of a tool call, as an entity


class CandidateFact(BaseModel):
    subject: EntityRef
    predicate: str
    negated: bool
    object: EntityRef
    statement: str
    episode_id: str
    at: float
    explicit: bool = False  # a decision or a stated preference: one episode is enough

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.subject.id, self.predicate, self.object.id)


def derive_facts(episodes: Sequence[EpisodeView]) -> list[CandidateFact]:
    """Every candidate fact the episodes state, one per (episode, relation)."""
    found: list[CandidateFact] = []
    for episode in sorted(episodes, key=lambda e: e.occurred_at):
        decisions = set(episode.decisions)
        for sentence in split_sentences(episode.content):
            is_decision = sentence in decisions
            found += _co_mentions(episode, sentence, is_decision)
            found += _preferences(episode, sentence)
    found += _tool_outcomes(episodes)
    unique: dict[tuple[str, str, str, bool, str], CandidateFact] = {}
    for fact in found:
        unique.setdefault((*fact.key, fact.negated, fact.episode_id), fact)
    return list(unique.values())


def _positions(sentence: str, entities: Sequence[EntityRef]) -> list[tuple[int, int, EntityRef]]:
    lowered = sentence.casefold()
    spans = []
    for entity in entities:
        start = lowered.find(entity.name.casefold())
        if start >= 0:
            spans.append((start, start + len(entity.name), entity))
    spans.sort(key=lambda s: s[0])
    # Drop a mention nested in another ("York" inside "New York").
    return [s for i, s in enumerate(spans) if not any(o[0] <= s[0] and s[1] <= o[1] and o is not s for o in spans[:i] + spans[i + 1 :])]


def _predicate(between: str) -> tuple[str, bool] | None:
    """("use", False) from " uses ", ("work", True) from " doesn't work at "; None if too long."""
    tokens = [t for t in tokenize(between) if t not in _NEGATIONS]
    if len(tokens) > _MAX_PREDICATE_TOKENS:
        return None
    return "_".join(tokens), has_negation(between)


def _co_mentions(episode: EpisodeView, sentence: str, is_decision: bool) -> list[CandidateFact]:
    facts = []
    spans = _positions(sentence, episode.entities)
    for (_, end_a, a), (start_b, _, b) in zip(spans, spans[1:], strict=False):
        if a.id == b.id:
            continue
        parsed = _predicate(sentence[end_a:start_b])
        if parsed is None:
            continue
        predicate, negated = parsed
        if not predicate:
            if not is_decision:
                continue  # "Alice and Bob": no relation stated
            predicate = "decided"
        facts.append(
            CandidateFact(subject=a, predicate=predicate, negated=negated, object=b,
                          statement=sentence, episode_id=episode.id, at=episode.occurred_at,
                          explicit=is_decision)
        )  # fmt: skip
    return facts


def _preferences(episode: EpisodeView, sentence: str) -> list[CandidateFact]:
    match = _PREFERENCE.search(sentence)
    if match is None or episode.speaker is None:
        return []
    rest = sentence[match.end() :]
    targets = [e for _, _, e in _positions(rest, episode.entities) if e.id != episode.speaker.id]
    if not targets:
        return []
    verb = match.group("verb") or match.group("zh") or ""
    negated = _NEGATIVE_PREFERENCE.search(verb) is not None or has_negation(sentence[: match.start()])
    return [
        CandidateFact(subject=episode.speaker, predicate="prefers", negated=negated,
                      object=targets[0], statement=sentence, episode_id=episode.id,
                      at=episode.occurred_at, explicit=True)
    ]  # fmt: skip


def _outcome(episode: EpisodeView) -> str | None:
    declared = episode.metadata.get("outcome")
    if declared in ("failure", "success"):
        return str(declared)
    if _FAILURE.search(episode.content):
        return "failure"
    return "success" if _SUCCESS.search(episode.content) else None


def _tool_outcomes(episodes: Sequence[EpisodeView]) -> list[CandidateFact]:
    facts: list[CandidateFact] = []
    failing: dict[str, EpisodeView] = {}  # tool id -> its latest failure not yet fixed
    for episode in sorted(episodes, key=lambda e: e.occurred_at):
        tool = episode.tool
        if tool is None or episode.kind not in ("tool_call", "task"):
            continue
        outcome = _outcome(episode)
        others = [e for e in episode.entities if e.id != tool.id]
        if outcome == "failure":
            failing[tool.id] = episode
            facts += [
                CandidateFact(subject=tool, predicate="failed_on", negated=False, object=e,
                              statement=episode.content, episode_id=episode.id,
                              at=episode.occurred_at)
                for e in others
            ]  # fmt: skip
        elif outcome == "success" and tool.id in failing:
            failed = {e.id for e in failing.pop(tool.id).entities}
            facts += [
                CandidateFact(subject=tool, predicate="fixed_with", negated=False, object=e,
                              statement=episode.content, episode_id=episode.id,
                              at=episode.occurred_at, explicit=True)
                for e in others
                if e.id not in failed
            ]  # fmt: skip
    return facts


def merge_paraphrases(
    candidates: Sequence[CandidateFact], clusters: Sequence[Sequence[str]]
) -> list[CandidateFact]:
    """Within a cluster of similar episodes, one relation worded differently ("Atlas runs on
    Postgres", "Atlas is using Postgres") takes the cluster's most common predicate, so the
    paraphrases support one fact instead of splitting into several weak ones.

    >>> a, b = EntityRef(id="a", name="Atlas"), EntityRef(id="p", name="Postgres")
    >>> facts = [CandidateFact(subject=a, predicate=p, negated=False, object=b, statement="",
    ...                        episode_id=e, at=0.0) for p, e in [("run", "1"), ("use", "2"), ("use", "3")]]
    >>> [f.predicate for f in merge_paraphrases(facts, [["1", "2", "3"]])]
    ['use', 'use', 'use']
    """
    cluster_of = {episode: n for n, members in enumerate(clusters) for episode in members}
    groups: dict[tuple[int, str, str, bool], list[CandidateFact]] = {}
    for fact in candidates:
        cluster = cluster_of.get(fact.episode_id, -1)
        groups.setdefault((cluster, fact.subject.id, fact.object.id, fact.negated), []).append(fact)
    merged = []
    for (cluster, *_), facts in groups.items():
        predicates = [f.predicate for f in facts if f.predicate not in ("decided", "prefers")]
        if cluster < 0 or len(set(predicates)) < 2:
            merged += facts
            continue
        counts = {p: predicates.count(p) for p in predicates}
        top = max(counts, key=lambda p: (counts[p], -predicates.index(p)))
        merged += [f.model_copy(update={"predicate": top}) if f.predicate in counts else f for f in facts]
    return merged
