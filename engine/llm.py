"""The optional LLM hook: extraction by an OpenAI-compatible chat completions endpoint.

hindsight needs no LLM. When `settings.llm_base_url` is set, `OpenAICompatibleExtractor` asks
the endpoint for each episode's entities, decisions, todos and importance when it is stored,
for the statements it makes when reflection reads it, and for a session's digest, as JSON;
whatever fails (network,
timeout, a non-JSON answer, a wrong shape) returns None for that text and the rules are used
instead. Nothing else in the engine knows an LLM exists.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol, TypeVar

import httpx2
from pydantic import BaseModel, Field, ValidationError

from engine.settings import Settings

__all__ = [
    "Extractor",
    "LLMDigest",
    "LLMExtraction",
    "LLMLesson",
    "LLMStatement",
    "LLMStatements",
    "OpenAICompatibleExtractor",
    "extractor_for",
]

log = logging.getLogger(__name__)

PROMPT = """Extract from the text below, as one JSON object with exactly these keys:
"entities": [{"name": str, "type": "PERSON"|"ORG"|"PLACE"|"PRODUCT"|"THING"}],
"decisions": [str]  (sentences of the text that state a decision, verbatim),
"todos": [str]  (sentences that ask for something to be done later, verbatim),
"importance": number 0..1  (how much an assistant should remember this; "ok thanks" is 0.05).
Answer with the JSON object only.

Text:
"""


STATEMENTS_PROMPT = """List what the text below states about its speaker, the person spoken to,
or named people and things, as one JSON object with exactly this key:
"statements": [{"subject": "I" | "you" | a name, "predicate": likes | dislikes | prefers |
works_at | lives_in | has | plans_to | wants | attended | uses | decided | a verb lemma in
snake_case, "object": a short noun phrase, "negated": bool, "hedged": bool}].
Leave out questions, hypotheticals and what others are quoted saying.
Answer with the JSON object only.

Text:
"""

DIGEST_PROMPT = """Summarise the conversation below for someone who will be asked what it was
about: what each person told, did, decided or plans, in at most {words} words, in the
conversation's own language, using only what it says. As one JSON object with exactly these
keys: "summary": str, "topics": [str] (at most five short noun phrases).
Answer with the JSON object only.

Conversation:
"""

LESSON_PROMPT = """Write the lesson below as one sentence an engineer would keep: what error
it is, what fixed it, how often. Use only the facts given; name the error and the fix as they
are written. As one JSON object with exactly this key: "text": str.
Answer with the JSON object only.

Facts:
"""

_T = TypeVar("_T", bound=BaseModel)


class LLMEntity(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    type: str = Field(min_length=1, max_length=32)


class LLMExtraction(BaseModel):
    """What the endpoint must answer; anything else is a failure."""

    entities: list[LLMEntity] = Field(default_factory=list, max_length=100)
    decisions: list[str] = Field(default_factory=list, max_length=50)
    todos: list[str] = Field(default_factory=list, max_length=50)
    importance: float | None = Field(None, ge=0, le=1)


class LLMStatement(BaseModel):
    subject: str = Field(min_length=1, max_length=200)
    predicate: str = Field(pattern=r"^[a-z]+(?:_[a-z]+)*$", max_length=40)
    object: str = Field(min_length=1, max_length=200)
    negated: bool = False
    hedged: bool = False


class LLMStatements(BaseModel):
    """What the endpoint must answer for reflection; anything else is a failure."""

    statements: list[LLMStatement] = Field(default_factory=list, max_length=20)


class LLMDigest(BaseModel):
    """What the endpoint must answer for a session's digest; anything else is a failure."""

    summary: str = Field(min_length=1, max_length=4000)
    topics: list[str] = Field(default_factory=list, max_length=8)


class LLMLesson(BaseModel):
    """What the endpoint must answer for a lesson's sentence; anything else is a failure."""

    text: str = Field(min_length=1, max_length=600)


class Extractor(Protocol):
    def extract(self, texts: list[str]) -> list[LLMExtraction | None]:
        """One extraction per text, None where the endpoint failed for it."""
        ...

    def statements(self, texts: list[str]) -> list[LLMStatements | None]:
        """The statements of each text, None where the endpoint failed for it."""
        ...

    def digest(self, transcript: str, words: int) -> LLMDigest | None:
        """A session's digest in at most about `words` words, None where the endpoint failed."""
        ...

    def lesson(self, facts: str) -> LLMLesson | None:
        """A lesson's facts as one sentence, None where the endpoint failed."""
        ...

    def close(self) -> None: ...


class OpenAICompatibleExtractor:
    """Calls `POST {base_url}/chat/completions` once per text."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None, timeout: float
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._model = model
        self._client = httpx2.Client(headers=headers, timeout=timeout)

    def extract(self, texts: list[str]) -> list[LLMExtraction | None]:
        return [self._ask(PROMPT, text, LLMExtraction) for text in texts]

    def statements(self, texts: list[str]) -> list[LLMStatements | None]:
        return [self._ask(STATEMENTS_PROMPT, text, LLMStatements) for text in texts]

    def digest(self, transcript: str, words: int) -> LLMDigest | None:
        return self._ask(DIGEST_PROMPT.format(words=words), transcript, LLMDigest)

    def lesson(self, facts: str) -> LLMLesson | None:
        return self._ask(LESSON_PROMPT, facts, LLMLesson)

    def _ask(self, prompt: str, text: str, shape: type[_T]) -> _T | None:
        body = {
            "model": self._model,
            "temperature": 0,
            "response_format": {"type": "json_object"},
            "messages": [{"role": "user", "content": prompt + text}],
        }
        try:
            response = self._client.post(self._url, json=body)
            response.raise_for_status()
            answer = response.json()["choices"][0]["message"]["content"]
            return shape.model_validate(json.loads(_strip_fences(answer)))
        except (httpx2.HTTPError, KeyError, IndexError, TypeError, ValueError, ValidationError) as exc:
            # Logged without the text: it may be personal even after redaction.
            log.warning("LLM extraction failed, using the rules: %s", type(exc).__name__)
            return None

    def close(self) -> None:
        self._client.close()


def _strip_fences(answer: Any) -> str:
    """Some models wrap JSON in a ```json fence despite being asked not to."""
    text = str(answer).strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    return text


def extractor_for(settings: Settings) -> OpenAICompatibleExtractor | None:
    """The configured LLM extractor, or None (the default: rules only)."""
    if not settings.llm_base_url:
        return None
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return OpenAICompatibleExtractor(
        settings.llm_base_url, settings.llm_model, key, settings.llm_timeout
    )
