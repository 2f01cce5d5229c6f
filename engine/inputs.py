"""What a caller hands to hindsight, validated: `StoreRequest` (`store`), `RecallRequest`
(`recall`), namespaces, session ids, times, text and metadata. Every refusal names the field;
`invalid_input` turns pydantic's first error into `InvalidInput`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
)

from engine.errors import InvalidInput
from engine.models import Kind, Layer, Outcome, RecallLayer

__all__ = [
    "IMPORTANCE_LEVELS",
    "MAX_METADATA_DEPTH",
    "MAX_OFFSET",
    "NAMESPACE_PATTERN",
    "NOT_BLANK_PATTERN",
    "SESSION_ID_PATTERN",
    "SESSION_PATTERN",
    "EpisodeInput",
    "MAX_TASK_STEPS",
    "RecallQuery",
    "RecallRequest",
    "StepInput",
    "StoreRequest",
    "TaskInput",
    "task_steps",
    "check_json_tree",
    "check_namespace",
    "is_namespace",
    "invalid_input",
    "is_unicode_text",
    "to_epoch",
    "unicode_text",
    "is_session",
    "valid_session",
]

# Named importance levels an agent may send instead of a number.
IMPORTANCE_LEVELS: dict[str, float] = {"high": 0.9, "medium": 0.6, "low": 0.3}

# A namespace is a short identifier: it ends up in filters, file names and URLs.
_NAMESPACE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")  # fullmatch: "$" would let "\n" end it
_SESSION = re.compile(r"[^\x00-\x1f]{1,128}")
# What `str.strip()` removes, for JSON Schema: text must hold one character outside it (and no
# NUL), in the ECMA regex dialect OpenAPI tools read.
_PY_SPACE = r"\t-\r\u001c- \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK_PATTERN = rf"^[^\u0000]*[^\u0000{_PY_SPACE}][^\u0000]*$"
SESSION_PATTERN = r"^[^\u0000-\u001f]{1,128}$"
# A session looked up by its id: as SESSION_PATTERN, and not blank (with max_length 128).
SESSION_ID_PATTERN = rf"^[^\u0000-\u001f]*[^\u0000-\u001f{_PY_SPACE}][^\u0000-\u001f]*$"
NAMESPACE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$"  # `_NAMESPACE`, for JSON Schema
# How deep metadata may nest (an object in an object ... counts each level): deeper is a
# caller's bug, and would exhaust the stack of every JSON encoder on the way to the store.
MAX_METADATA_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")
# A task run's steps stored in one call (one graph transaction).
MAX_TASK_STEPS = 500
# Paging beyond this is a caller's bug; graph engines refuse skips past a 64-bit integer.
MAX_OFFSET = 1_000_000_000
# Times a caller may give: years 1..9999, what a datetime can show again.
_EARLIEST = datetime(1, 1, 1, tzinfo=UTC).timestamp()
_LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()

# What the validators below accept, for JSON Schema (and so for the REST API's OpenAPI).
_IMPORTANCE_SCHEMA: dict[str, JsonValue] = {
    "anyOf": [
        {"type": "number", "minimum": 0, "maximum": 1},
        {"enum": ["high", "medium", "low"]},
        {"type": "null"},
    ],
    "description": "0..1, or high, medium or low; scored from the content when null",
}


def _moment_schema(what: str) -> dict[str, JsonValue]:
    return {
        "anyOf": [
            {"type": "number", "minimum": _EARLIEST, "maximum": _LATEST},
            {"type": "string", "format": "date-time"},
            {"type": "null"},
        ],
        "description": f"{what}: epoch seconds or ISO 8601 (naive is UTC)",
    }


def to_epoch(value: datetime | str | float, field: str = "occurred_at") -> float:
    """Epoch seconds from a datetime, an ISO 8601 string or a number; naive times are UTC."""
    if isinstance(value, bool):
        raise ValueError(f"{field} must be a datetime, an ISO 8601 string or epoch seconds")
    if isinstance(value, (int, float)):
        return _in_range(_finite_float(value, f"{field} must be epoch seconds of a year in 1..9999"), field)
    if isinstance(value, str):
        text = value.strip()
        try:  # epoch seconds written out, as a query string carries them
            seconds = float(text)
        except ValueError:
            seconds = None
        if seconds is not None:
            return _in_range(seconds, field)
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"{field} is not an ISO 8601 date or time: {value!r}") from exc
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        try:
            return _in_range(value.timestamp(), field)
        except OverflowError:
            raise ValueError(f"{field} must fall in the years 1..9999") from None
    raise ValueError(f"{field} must be a datetime, an ISO 8601 string or epoch seconds")


def _in_range(seconds: float, field: str) -> float:
    if not math.isfinite(seconds) or not _EARLIEST <= seconds <= _LATEST:
        raise ValueError(f"{field} must be epoch seconds of a year in 1..9999, got {seconds}")
    return seconds


def invalid_input(exc: ValidationError, prefix: str) -> InvalidInput:
    """The first validation error as InvalidInput naming its field (`prefix` + its path)."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "input"
    message = str(error["msg"]).removeprefix("Value error, ")
    return InvalidInput(prefix + field, message)


def importance_of(value: Any) -> float | None:
    """An importance as given (0..1, or high, medium, low), or a ValueError saying what it must be."""
    if value is None:
        return None
    if isinstance(value, str):
        level = IMPORTANCE_LEVELS.get(value.strip().lower())
        if level is None:
            raise ValueError("must be a number in 0..1 or one of high, medium, low")
        return level
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError("must be a number in 0..1 or one of high, medium, low")
    number = _finite_float(value, "must be within 0..1")
    if not (math.isfinite(number) and 0.0 <= number <= 1.0):
        raise ValueError(f"must be within 0..1, got {number}")
    return number


def _finite_float(value: int | float, reason: str) -> float:
    """`value` as a float, or a ValueError with `reason` for an integer past the float range
    (which float() answers with OverflowError, an exception no validator reports)."""
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{reason}, got an integer of {int(value).bit_length()} bits") from None


def unicode_text(value: Any) -> Any:
    """A text field as given, or a ValueError when it is not a str (bytes are not decoded
    by guess) or holds a lone surrogate, which no UTF-8 store, model or JSON answer can hold.

    >>> unicode_text("\\ud800")
    Traceback (most recent call last):
    ValueError: holds a lone surrogate (U+D800) at character 0: it is not valid Unicode text
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"must be a string, not {type(value).__name__}")
    surrogate = _SURROGATE.search(value)
    if surrogate is not None:
        raise ValueError(f"holds a lone surrogate (U+{ord(surrogate.group()):04X}) at character "
                         f"{surrogate.start()}: it is not valid Unicode text")  # fmt: skip
    return value


def is_unicode_text(value: object) -> bool:
    """Whether `value` is a str that a store can hold: no lone surrogate.

    >>> is_unicode_text("预算"), is_unicode_text("a\\udfff"), is_unicode_text(b"a")
    (True, False, False)
    """
    return isinstance(value, str) and _SURROGATE.search(value) is None


_INT64 = (-(2**63), 2**63 - 1)


def check_json_tree(value: Any) -> None:
    """A ValueError naming the first part of a metadata tree that a store could not hold:
    nesting deeper than MAX_METADATA_DEPTH, a key that is no string or holds NUL, a string
    that is no valid Unicode, an integer past 64 bits. Walked without recursion, so depth
    alone cannot crash it."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list, tuple)) and depth > MAX_METADATA_DEPTH:
            raise ValueError(f"is nested deeper than {MAX_METADATA_DEPTH} levels")
        if isinstance(node, dict):
            for key, item in node.items():
                if not isinstance(key, str):
                    raise ValueError(f"keys must be strings, found {type(key).__name__} {key!r:.40}")
                if "\x00" in key:
                    raise ValueError("keys must not contain NUL characters")
                unicode_text(key)
                stack.append((item, depth + 1))
        elif isinstance(node, (list, tuple)):
            stack.extend((item, depth + 1) for item in node)
        elif isinstance(node, str):
            unicode_text(node)
        elif isinstance(node, int) and not isinstance(node, bool) and not _INT64[0] <= node <= _INT64[1]:
            raise ValueError("holds an integer outside the signed 64-bit range a store holds")


class EpisodeInput(BaseModel):
    """One episode to store, as `Memory.store` takes it, without the namespace it goes to
    (the REST API's body, whose namespace is in the path). Unknown keys are rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str = Field(json_schema_extra={"pattern": NOT_BLANK_PATTERN})
    session_id: str | None = Field(None, json_schema_extra={"pattern": SESSION_PATTERN})
    role: str | None = Field(None, max_length=64)
    kind: Kind = "message"
    layer: Layer = "episodic"
    importance: Annotated[float | None, WithJsonSchema(_IMPORTANCE_SCHEMA)] = None
    occurred_at: Annotated[float | None, WithJsonSchema(_moment_schema("When it happened"))] = None
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="A JSON object of your own, nested at most 32 levels, whose keys hold no "
        "NUL at any level (JSON Schema states only the top level's).",
        json_schema_extra={"propertyNames": {"pattern": "^[^\\u0000]*$"}},
    )
    # Episodes this one follows from or refers to (must exist in the same namespace).
    related_ids: list[str] = Field(default_factory=list, max_length=100)
    # When the episode leaves recall (TTL); default: settings.ttl_days for its kind, or never.
    expires_at: Annotated[
        float | None, WithJsonSchema(_moment_schema("When it leaves recall"))
    ] = None
    outcome: Outcome | None = Field(
        None, description="How a tool call or task ended: success or failure (leave it out for a "
        "chat turn). A failure's error becomes a signature; a later success in the same task run "
        "or session on the same tool, target or error resolves it.",
    )
    resolves: list[str] = Field(
        default_factory=list, max_length=100,
        description="Ids of earlier failures (episodes of the same namespace) that this episode "
        "fixed: the caller's word, beside the fixes the memory finds itself.",
    )
    task_id: str | None = Field(
        None, max_length=128,
        description="The task run this episode is a step of: the id of a stored episode of kind "
        "task (`store_task` stores a task and its steps in one call).",
    )

    @field_validator("content", "role", "session_id", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return unicode_text(value)

    @field_validator("content")
    @classmethod
    def _content(cls, value: str, info: ValidationInfo) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        if "\x00" in value:
            raise ValueError("must not contain NUL characters")
        limit = (info.context or {}).get("max_content_chars")
        if limit is not None and len(value) > limit:
            raise ValueError(f"is {len(value)} characters, over the limit of {limit}")
        return value

    @field_validator("session_id")
    @classmethod
    def _session(cls, value: str | None) -> str | None:
        return valid_session(value)

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float | None:
        return importance_of(value)

    @field_validator("related_ids", "resolves", mode="before")
    @classmethod
    def _episode_ids(cls, value: Any) -> list[str]:
        if value is None:
            return []
        if isinstance(value, str) or not isinstance(value, list):
            raise ValueError("must be a list of episode ids")
        if not all(is_unicode_text(v) and 0 < len(v) <= 128 for v in value):
            raise ValueError("must hold episode ids (strings of 1-128 characters)")
        return list(dict.fromkeys(value))

    @field_validator("resolves")
    @classmethod
    def _resolves(cls, value: list[str], info: ValidationInfo) -> list[str]:
        if value and info.data.get("outcome") == "failure":
            raise ValueError("a failure resolves nothing: leave resolves out, or the outcome is success")
        return value

    @field_validator("task_id", mode="before")
    @classmethod
    def _task_id(cls, value: Any) -> Any:
        if value is not None and (not is_unicode_text(value) or not value.strip()):
            raise ValueError("must be the id of a stored task episode")
        return value

    @field_validator("occurred_at", mode="before")
    @classmethod
    def _occurred_at(cls, value: Any) -> float | None:
        return None if value is None else to_epoch(value)

    @field_validator("expires_at", mode="before")
    @classmethod
    def _expires_at(cls, value: Any) -> float | None:
        return None if value is None else to_epoch(value, "expires_at")

    @field_validator("metadata", mode="before")
    @classmethod
    def _metadata(cls, value: Any, info: ValidationInfo) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError("must be a JSON object")
        check_json_tree(value)
        try:
            encoded = json.dumps(value, allow_nan=False, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"must be JSON-serialisable without NaN or infinity ({exc})") from exc
        limit = (info.context or {}).get("max_metadata_bytes")
        if limit is not None and len(encoded.encode()) > limit:
            raise ValueError(f"is {len(encoded.encode())} bytes as JSON, over the limit of {limit}")
        # Round-trip through JSON so what is returned later equals what was stored.
        decoded: dict[str, Any] = json.loads(encoded)
        return decoded


class StepInput(EpisodeInput):
    """One step of a task run, as `Memory.store_task` takes it: a tool call unless it says
    otherwise, in the task's session and run, kept in episodic memory."""

    kind: Kind = "tool_call"
    layer: Literal["episodic"] = "episodic"
    session_id: None = Field(None, description="The task's: leave it out")
    task_id: None = Field(None, description="The task's: leave it out")


class TaskInput(BaseModel):
    """A task run stored in one call (`Memory.store_task`): the task, its steps in the order
    they ran, and how it ended (the REST API's body)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str = Field(description="What the task was, in words.", json_schema_extra={"pattern": NOT_BLANK_PATTERN})
    steps: list[StepInput] = Field(min_length=1, max_length=MAX_TASK_STEPS)
    outcome: Outcome | None = None
    session_id: str | None = Field(None, json_schema_extra={"pattern": SESSION_PATTERN})
    role: str | None = Field(None, max_length=64)
    importance: Annotated[float | None, WithJsonSchema(_IMPORTANCE_SCHEMA)] = None
    occurred_at: Annotated[float | None, WithJsonSchema(_moment_schema("When it began"))] = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    # The engine checks every field again (`Memory.store_task`); these accept what it accepts.
    @field_validator("occurred_at", mode="before")
    @classmethod
    def _occurred_at(cls, value: Any) -> float | None:
        return None if value is None else to_epoch(value)

    @field_validator("importance", mode="before")
    @classmethod
    def _importance(cls, value: Any) -> float | None:
        return importance_of(value)

    @field_validator("task", "role", "session_id", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return unicode_text(value)


def task_steps(steps: Any) -> list[dict[str, Any]]:
    """A task's steps as a list of mappings, or InvalidInput naming the first that is none."""
    if isinstance(steps, (str, bytes, Mapping)) or not isinstance(steps, Iterable):
        raise InvalidInput("steps", "must be a list of steps, each a mapping of store arguments")
    listed = list(steps)
    for index, step in enumerate(listed):
        if not isinstance(step, Mapping):
            raise InvalidInput(f"steps[{index}]", "must be a mapping of store arguments")
    return [dict(step) for step in listed]


class _InNamespace(BaseModel):
    """The namespace a request acts in, checked."""

    namespace: str = "default"

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, value: str) -> str:
        return check_namespace(value)


class StoreRequest(EpisodeInput, _InNamespace):
    """What `Memory.store` accepts, validated: an episode and its namespace."""

    # The id the episode will have where it was chosen ahead (a task's, which its steps name
    # in one `store_task` batch); else the writer draws one.
    _episode_id: str | None = PrivateAttr(None)

    @property
    def episode_id(self) -> str | None:
        return self._episode_id

    def with_id(self, episode_id: str) -> StoreRequest:
        """This request, to be stored under `episode_id`."""
        copy = self.model_copy()
        copy._episode_id = episode_id
        return copy


def valid_session(value: str | None) -> str | None:
    """A session id as given, or a ValueError for what SESSION_PATTERN refuses."""
    if value is not None and not is_session(value):
        raise ValueError("must be 1-128 printable characters")
    return value


def is_session(value: str) -> bool:
    """Whether a text is a session id SESSION_PATTERN allows, valid Unicode."""
    return _SESSION.fullmatch(value) is not None and is_unicode_text(value)


def is_namespace(value: object) -> bool:
    """Whether a value is a namespace a caller can name.

    >>> is_namespace("team-a.v2"), is_namespace("_rehearsal"), is_namespace("a b")
    (True, False, False)
    """
    return isinstance(value, str) and _NAMESPACE.fullmatch(value) is not None


def check_namespace(value: str) -> str:
    if not is_namespace(value):
        raise ValueError(
            "must be 1-64 characters of letters, digits, '_', '-' or '.', starting with a "
            "letter or digit"
        )
    return value


class RecallQuery(BaseModel):
    """A recall as `Memory.recall` takes it, without the namespace it reads (the REST API's
    body, whose namespace is in the path)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1, max_length=10_000, json_schema_extra={"pattern": NOT_BLANK_PATTERN})
    top_k: int = Field(5, ge=1, le=200)
    min_score: float | None = Field(None, ge=0, allow_inf_nan=False)
    session_id: str | None = Field(None, json_schema_extra={"pattern": SESSION_PATTERN})
    now: Annotated[float | None, WithJsonSchema(_moment_schema("When it is asked"))] = None
    layer: RecallLayer | None = None
    # Who is asking ("user", "coder", a tool name): memories by or for that role rank higher.
    role: str | None = Field(None, min_length=1, max_length=128)
    # Tool names the caller can use; tool-call memories of other tools rank lower.
    capabilities: list[str] | None = Field(None, max_length=200)
    # Also read the shared namespace (readable by all, written only when named).
    include_shared: bool = True
    # With a session_id, also rank that session's working memory.
    include_working: bool = True
    # A budget for the returned cards' content, in `count_tokens` units; None: no budget.
    max_tokens: int | None = Field(None, ge=1, le=1_000_000)

    @field_validator("query", "role", "session_id", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return unicode_text(value)

    @field_validator("capabilities", mode="before")
    @classmethod
    def _capabilities(cls, value: Any) -> Any:
        if isinstance(value, list):
            for name in value:
                unicode_text(name)
        return value

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("now", mode="before")
    @classmethod
    def _now(cls, value: Any) -> float | None:
        return None if value is None else to_epoch(value, "now")

    @field_validator("session_id")
    @classmethod
    def _session(cls, value: str | None) -> str | None:
        return valid_session(value)


class RecallRequest(RecallQuery, _InNamespace):
    """What `Memory.recall` accepts, validated: a recall and the namespace it reads."""
