"""The weight groups of the settings: recall's channels (`HINDSIGHT_WEIGHT_*`) and importance's
signals (`HINDSIGHT_IMPORTANCE_*`), each read from its own prefix."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["ChannelWeights", "ImportanceWeights"]


class ChannelWeights(BaseSettings):
    """How much each recall channel counts in fusion (relative; they need not sum to 1)."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_WEIGHT_", frozen=True)

    vector: float = Field(
        0.5, ge=0,
        description="Dense similarity: finds paraphrases, but also near-topic noise, which a "
        "higher weight lets outrank exact matches.",
    )
    keyword: float = Field(
        1.0, ge=0,
        description="BM25 over keyword keys with session context: exact names, codes and numbers "
        "that embeddings blur; lower lets paraphrase and near-topic hits outrank them.",
    )
    entity: float = Field(
        0.2, ge=0,
        description="Episodes that mention an entity the query names: precise, but every mention "
        "scores alike.",
    )
    graph: float = Field(
        0.3, ge=0,
        description="Graph expansion (scaled by its ceiling, `graph_absolute`): finds answers "
        "that share no words with the query; higher lets loose associations flood the"
        " top.",
    )
    reply: float = Field(
        0.25, ge=0,
        description="The next turn after a question turn that ranks high (`reply_candidates`), at"
        " the question's score: the answer to a question that matched the query often names"
        " the thing only by \"it\" or \"them\"; higher finds more such answers (adversarial"
        " and single-hop questions), but from 0.3 replies to questions that share only the"
        " query's question words push out dated evidence.",
    )
    side: float = Field(
        1.0, ge=0,
        description="For a question comparing two events in time (\"Which came first, X or Y?\","
        " \"How long after X did Y?\", \"先X还是先Y\"), each event searched on its own, its best"
        " memory at 1: the answer needs a memory of each, and the whole question's words"
        " rank one side's memories above the other's; higher pushes other evidence out.",
    )
    session: float = Field(
        3.0, ge=0,
        description="For a question about a session as a whole (\"last time\", \"our first "
        "conversation\", \"what did we talk about on May 2\"), that session's episodes, its "
        "digest's central ones first; weighs nothing for other questions. Higher keeps other "
        "sessions' turns out of such an answer.",
    )
    recency: float = Field(
        0.1, ge=0,
        description="The latest episodes of the session or namespace, raised when the query asks "
        "about the latest; kept low, since alone it ranks the newest chatter first.",
    )
    fix: float = Field(
        2.0, ge=0,
        description="For a question after a fix or a lesson, or one that pastes an error, the fixes"
        " of the failures it names, reached through RESOLVED_BY (the newest of an error first);"
        " weighs nothing for other questions. Higher puts the fix above the memories that only"
        " repeat the error.",
    )


class ImportanceWeights(BaseSettings):
    """How much each signal adds to an episode's importance (engine/ingest/importance.py)."""

    model_config = SettingsConfigDict(env_prefix="HINDSIGHT_IMPORTANCE_", frozen=True)

    base: float = Field(
        0.4, ge=0, le=1,
        description="A plain statement with no signal: above the default threshold, so it is "
        "kept.",
    )
    new_entity: float = Field(
        0.08, ge=0, le=1,
        description="Added for each entity the namespace has not seen before (up to three): new "
        "information.",
    )
    number: float = Field(
        0.08, ge=0, le=1,
        description="Added when the text holds a number: amounts, counts and versions are asked "
        "about later.",
    )
    date: float = Field(0.08, ge=0, le=1, description="Added when the text holds a date or time.")
    decision: float = Field(
        0.25, ge=0, le=1,
        description="Added for a decision: what agents are most often asked about later.",
    )
    todo: float = Field(0.15, ge=0, le=1, description="Added for a todo.")
    negation: float = Field(
        0.05, ge=0, le=1,
        description="Added for a negation: \"we don't use Redis\" corrects an assumption.",
    )
    correction: float = Field(
        0.15, ge=0, le=1,
        description="Added for a correction (\"actually\", \"改成\"): it overrides something "
        "remembered earlier.",
    )
    failure: float = Field(
        0.3, ge=0, le=1,
        description="Added for a step that failed, or a tool's output that shows an error: the "
        "next occurrence asks how it was got past.",
    )
    short: float = Field(
        0.15, ge=0, le=1,
        description="Subtracted for three tokens or fewer: \"hmm\", \"let me see\".",
    )
    acknowledgement: float = Field(
        0.05, ge=0, le=1,
        description="The whole score of a bare acknowledgement (\"ok thanks\", \"好的\").",
    )
