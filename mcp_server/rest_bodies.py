"""The engine's input models as JSON request bodies: strict about JSON types.

Python callers of `Memory` get pydantic's lax coercion; a JSON body gets none, so that what the
OpenAPI document calls a number or a boolean is one ("5" is no `top_k`, "t" no `force`). The
classes keep the engine's names, and so the document's.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator

from engine import inputs

__all__ = ["EpisodeInput", "RecallQuery", "StepInput", "TaskInput"]


def _not_null(cls: type, value: Any) -> Any:
    """The document calls these an array and an object: null is neither (the engine's own
    validators, which run after this one, let a Python caller pass None)."""
    if value is None:
        raise ValueError("must not be null: leave it out instead")
    return value


class EpisodeInput(inputs.EpisodeInput):
    __doc__ = inputs.EpisodeInput.__doc__
    model_config = ConfigDict(strict=True)

    _lists_and_objects = field_validator("related_ids", "resolves", "metadata", mode="before")(_not_null)


class StepInput(inputs.StepInput):
    __doc__ = inputs.StepInput.__doc__
    model_config = ConfigDict(strict=True)

    _lists_and_objects = field_validator("related_ids", "resolves", "metadata", mode="before")(_not_null)


class TaskInput(inputs.TaskInput):
    __doc__ = inputs.TaskInput.__doc__
    model_config = ConfigDict(strict=True)

    steps: list[StepInput] = Field(min_length=1, max_length=inputs.MAX_TASK_STEPS)  # type: ignore[assignment]

    _objects = field_validator("metadata", mode="before")(_not_null)


class RecallQuery(inputs.RecallQuery):
    __doc__ = inputs.RecallQuery.__doc__
    model_config = ConfigDict(strict=True)

    @field_validator("top_k", "max_tokens", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        """JSON Schema counts 7.0 as an integer, as JSON does not tell them apart."""
        return int(value) if isinstance(value, float) and value.is_integer() else value
