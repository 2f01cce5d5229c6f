"""Settings: every tunable of hindsight, read from `HINDSIGHT_*` environment variables.

Each constant that changes behaviour lives here with a description of what it trades
(`Field(description=...)`), from which docs/configuration.md is generated. Pass a
`Settings` to `Memory.open`; nothing reads the environment after that.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, JsonValue, SecretStr, field_validator

from engine.access import TokenScopes, check_token, parse_token_scopes
from engine.recall.plan import RecallPlan
from engine.settings.behaviour import BehaviourSettings

__all__ = ["Settings", "settings_at"]


# The section of docs/configuration.md each setting is listed in.
_RERANKING: dict[str, JsonValue] = {"section": "reranking"}
_NAMESPACES: dict[str, JsonValue] = {"section": "namespaces and analyst queries"}
_SERVER: dict[str, JsonValue] = {"section": "server"}
_KEYWORD_CHANNEL: dict[str, JsonValue] = {"section": "keyword channel"}


class Settings(BehaviourSettings):
    """All of hindsight's configuration. Environment prefix `HINDSIGHT_`: where the data lives
    and the stores that hold it (`StoreSettings`), how memory behaves (`BehaviourSettings`),
    then reranking, namespaces, the server and the keyword channel."""

    reranker: Literal["factors"] = Field(
        "factors", json_schema_extra=_RERANKING,
        description="Which reranker scores the fused candidates: \"factors\" multiplies the fused "
        "score by decay, importance, role, capability, author and time factors "
        "(offline, no model).",
    )
    author_boost: float = Field(
        1.2, ge=1, le=4, json_schema_extra=_RERANKING,
        description="A memory whose author (its role) the query names is multiplied by this: "
        "\"what did Caroline say\" prefers Caroline's turns, at the expense of "
        "questions about what the other speaker did. Sentence vectors carry the author's "
        "label already, so a higher boost counts the author twice and buries the other "
        "speaker's answers.",
    )
    time_answer_boost: float = Field(
        1.5, ge=1, le=4, json_schema_extra=_RERANKING,
        description="When the query asks \"when\", a memory that carries a time (\"last Friday\", "
        "\"2019\") is multiplied by this: it is the one that can answer. Higher buries a "
        "turn that answers without naming a time.",
    )
    time_window_boost: float = Field(
        2.5, ge=1, le=4, json_schema_extra=_RERANKING,
        description="A memory that happened within a date the query names (\"on 4 May\", "
        "\"in 2022\") is multiplied by this. Higher keeps the cards to that date, at the "
        "expense of one that tells of it later than the slack, and of evidence from other "
        "dates that the question also needs.",
    )
    time_event_boost: float = Field(
        2.0, ge=1, le=4, json_schema_extra=_RERANKING,
        description="Within that date's window, a memory that tells of a time inside the date "
        "itself (\"last Friday I went to the car show\", said two days after the Friday the "
        "query names) is multiplied by this as well: it tells what happened then, where the "
        "other turns of the window were only said near it. Higher buries the turns said "
        "on the day itself; 1 turns it off.",
    )
    session_repeat_factor: float = Field(
        0.6, gt=0, le=1, json_schema_extra=_RERANKING,
        description="A question that gathers (\"how many times\", \"what has she read\", \"一共\", "
        "\"哪些\") multiplies each card by this once per card of its session ranked above it: "
        "lower reaches more sessions in the top k, 1 turns it off.",
    )
    time_window_outside: float = Field(
        0.1, gt=0, le=1, json_schema_extra=_RERANKING,
        description="A question about everything of a date (\"what did we talk about on May 2\", "
        "\"5月2号我们聊了什么\") multiplies memories from outside that date by this: lower "
        "keeps the cards to that date, 1 only prefers it.",
    )
    time_window_slack_days: float = Field(
        7.0, ge=0, le=365, json_schema_extra=_RERANKING,
        description="The window of a named date reaches this many days past it, since people tell"
        " of a day after it.",
    )
    mmr_lambda: float = Field(
        1.0, ge=0, le=1, json_schema_extra=_RERANKING,
        description="Maximal marginal relevance: below 1, the returned cards trade score for "
        "saying different things; 1 (the default) is plain score order and reads no "
        "vectors.",
    )
    mmr_candidates: int = Field(
        50, gt=0, le=1000, json_schema_extra=_RERANKING,
        description="Maximal marginal relevance picks among this many of the best cards (one read"
        " of their vectors).",
    )
    recall_off: tuple[str, ...] = Field(
        (), json_schema_extra=_RERANKING,
        description="Channels (vector, keyword, entity, graph, recency, side, reply) and "
        "adjusters (time_window, session_spread, updates, mmr, facts) recall leaves out, as a "
        'JSON list such as ["graph"]: an ablation, to see what each buys on your data. A '
        "channel left out weighs nothing; empty (the default) runs everything.",
    )

    shared_namespace: str = Field(
        "shared", json_schema_extra=_NAMESPACES,
        description="Readable from every namespace, written only when a caller names it "
        "explicitly. Reading it costs one more recall pass when it holds anything.",
    )
    cypher_max_rows: int = Field(
        1000, gt=0, le=100_000, json_schema_extra=_NAMESPACES,
        description="Analyst Cypher: rows returned at most.",
    )
    cypher_timeout_ms: int = Field(
        10_000, gt=0, json_schema_extra=_NAMESPACES,
        description="Analyst Cypher: a time limit, so a careless query cannot hold the graph "
        "connection.",
    )
    profile_episodes: int = Field(
        10, gt=0, le=200, json_schema_extra=_NAMESPACES,
        description="How many of an entity's latest episodes and decisions `entity()` returns.",
    )
    explain_neighbours: int = Field(
        10, gt=0, le=200, json_schema_extra=_NAMESPACES,
        description="How many episodes sharing an entity `explain()` lists as neighbours.",
    )

    host: str = Field(
        "127.0.0.1", json_schema_extra=_SERVER,
        description="Where `hindsight serve` listens: 127.0.0.1 keeps it local; 0.0.0.0 in a "
        "container.",
    )
    port: int = Field(
        8765, gt=0, lt=65536, json_schema_extra=_SERVER,
        description="The port `hindsight serve` listens on.",
    )
    api_token: SecretStr | None = Field(
        None, json_schema_extra=_SERVER,
        description="When set, every HTTP request except /health and the API docs must carry "
        "`Authorization: Bearer <token>`; this token may use every namespace. At least 16 "
        "characters, without spaces.",
    )
    api_tokens: SecretStr | None = Field(
        None, json_schema_extra=_SERVER,
        description='Tokens bound to namespaces, as JSON: {"<token>": ["team-a", "shared"], '
        '"<token>": "*"}. A request with one of them for another namespace gets 403, on REST '
        "and MCP alike. Tokens are at least 16 characters.",
    )

    bm25_k1: float = Field(
        0.9, gt=0, json_schema_extra=_KEYWORD_CHANNEL,
        description="Term-frequency saturation: higher lets repeated words count longer.",
    )
    bm25_b: float = Field(
        0.4, ge=0, le=1, json_schema_extra=_KEYWORD_CHANNEL,
        description="BM25 length normalisation: 1 punishes long episodes fully, 0 not at all; "
        "mild, since keys with session context are long by construction.",
    )
    bm25_avg_len: float = Field(
        40.0, gt=0, json_schema_extra=_KEYWORD_CHANNEL,
        description="Typical keyword-key length in terms, for length normalisation: a chat turn "
        "has ~14 terms, ~40 with its session context.",
    )
    keyword_context_weight: float = Field(
        0.5, ge=0, le=1, json_schema_extra=_KEYWORD_CHANNEL,
        description="Session context in keyword keys: a neighbour turn's terms count this weight "
        "to the power of their distance.",
    )
    keyword_context_turns: int = Field(
        3, ge=0, le=3, json_schema_extra=_KEYWORD_CHANNEL,
        description="Session context in keyword keys reaches this many turns away (at most 3, the"
        " reach of the graph query); 0 indexes each episode alone.",
    )

    @field_validator("api_token", "api_tokens", "qdrant_api_key", "llm_api_key", mode="before")
    @classmethod
    def _blank_secret_is_none(cls, value: object) -> object:
        # docker compose passes an unset variable as "": that means no token, not an empty one.
        return None if value == "" else value

    @field_validator("recall_off")
    @classmethod
    def _recall_plan(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        RecallPlan.leaving_out(value)  # its ValueError names the unknown one and the choices
        return value

    @field_validator("api_token")
    @classmethod
    def _token(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            check_token(value.get_secret_value())  # its ValueError never shows the token
        return value

    @field_validator("api_tokens")
    @classmethod
    def _token_scopes(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None:
            parse_token_scopes(value.get_secret_value())  # its ValueError names the entry
        return value

    def token_scopes(self) -> TokenScopes:
        """Who may use which namespace over HTTP, from `api_token` and `api_tokens`."""
        token = self.api_token.get_secret_value() if self.api_token else None
        scoped = self.api_tokens.get_secret_value() if self.api_tokens else None
        return TokenScopes(token, parse_token_scopes(scoped) if scoped else {})


def settings_at(path: str | Path | None, settings: Settings | None) -> Settings:
    """`settings` (from the environment when None), with `path` as the data directory when
    given: how `Memory.open` and the doctor's rebuild read their two arguments."""
    resolved = settings or Settings()
    return resolved if path is None else resolved.model_copy(update={"data_dir": Path(path)})
