"""Graph rows to hindsight's models and back: nodes, JSON-encoded fields, plain data."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.models import Decision, Entity, Episode
from engine.stores.base import EntityLink
from engine.views import Fact
from graph_schema.definitions import EPISODE

__all__ = [
    "decision_from",
    "entity_from",
    "episode_from",
    "episode_from_columns",
    "episode_row",
    "facts_from",
    "link_from",
    "plain",
    "properties",
]

EPISODE_JSON_FIELDS = ("metadata", "numbers")


def episode_row(episode: Episode) -> dict[str, Any]:
    row = episode.model_dump(mode="json")
    for field in EPISODE_JSON_FIELDS:
        row[field] = json.dumps(row[field], ensure_ascii=False)
    return row


def fact_row(fact: Fact) -> dict[str, Any]:
    """A FACT edge's properties as the write statements take them (its ends are matched)."""
    row = fact.model_dump(exclude={"subject", "object", "valid_to", "invalidated_by"})
    row["forgotten_ids"] = fact.forgotten_ids or None  # none forgotten: no list at all
    return row


def properties(node: Mapping[str, Any]) -> dict[str, Any]:
    """A node's properties; NULLs dropped so the model's defaults apply (a column added by a
    migration is NULL on older rows)."""
    return {k: v for k, v in node.items() if not k.startswith("_") and v is not None}


def episode_from(node: Mapping[str, Any]) -> Episode:
    return _episode(properties(node))


_EPISODE_NAMES = tuple(name for name, _ in EPISODE.properties)


def episode_from_columns(row: Sequence[Any]) -> Episode:
    """An episode from the columns of `cypher_statements.episode_columns`, in their order
    (NULLs dropped, as by `properties`)."""
    return _episode({k: v for k, v in zip(_EPISODE_NAMES, row, strict=True) if v is not None})


def _episode(data: dict[str, Any]) -> Episode:
    """The model of an episode's properties (NULLs dropped): the JSON fields decoded, an
    empty one without the decoder (most episodes have no metadata): ~7 us an episode
    against ~11, and a recall may read tens."""
    for field in EPISODE_JSON_FIELDS:
        text = data.get(field)
        data[field] = json.loads(text) if text and text not in _EMPTY_JSON else _empty(field)
    return Episode.model_validate(data)


_EMPTY_JSON = frozenset({"{}", "[]"})


def _empty(field: str) -> Any:
    return [] if field == "numbers" else {}


def entity_from(node: Mapping[str, Any]) -> Entity:
    data = properties(node)
    data["aliases"] = data.get("aliases") or []
    return Entity.model_validate(data)


def decision_from(node: Mapping[str, Any]) -> Decision:
    return Decision.model_validate(properties(node))


def plain(value: Any) -> Any:
    """A Ladybug value as plain JSON-able data: nodes and relationships as property maps.

    >>> plain({"_ID": {"offset": 0, "table": 0}, "_LABEL": "Entity", "name": "Atlas"})
    {'label': 'Entity', 'name': 'Atlas'}
    >>> plain({"_NODES": [], "_RELS": [{"_SRC": {}, "_DST": {}, "_LABEL": "NEXT", "_ID": {}}]})
    {'nodes': [], 'relationships': [{'type': 'NEXT'}]}
    """
    if isinstance(value, dict):
        if "_NODES" in value:
            return {
                "nodes": [plain(n) for n in value["_NODES"]],
                "relationships": [plain(r) for r in value["_RELS"]],
            }
        if "_LABEL" in value:
            key = "type" if "_SRC" in value else "label"
            props = {k: plain(v) for k, v in value.items() if not k.startswith("_")}
            return {key: value["_LABEL"], **props}
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)  # dates, decimals, uuids: their text


def link_from(row: Sequence[Any]) -> EntityLink:
    """A MENTIONS row (episode id, entity id, entity name, its mention count) as a link."""
    return EntityLink(
        episode_id=str(row[0]),
        entity_id=str(row[1]),
        entity_name=str(row[2]),
        degree=int(row[3] or 0),
    )


def facts_from(rows: Sequence[Sequence[Any]], *, shown: bool = True) -> list[Fact]:
    """FACT rows (subject name, object name, edge, subject id, object id) as facts: as they
    are shown (`Fact.shown`: none that only forgotten episodes support), or, for the writers
    that revise them, whole."""
    facts = [
        Fact.model_validate(
            {"subject": subject, "object": obj, "subject_id": subject_id,
             "object_id": object_id, **properties(edge)}
        )  # fmt: skip
        for subject, obj, edge, subject_id, object_id in rows
    ]
    if not shown:
        return facts
    return [view for fact in facts if (view := fact.shown()) is not None]
