"""Schemathesis runs the server's own OpenAPI document against a live `hindsight serve`: data
that fits the schema and data that breaks it, on every operation. Every response must keep to
the document (status, content type, body schema), none may be a 500, and a request the server
rejects must leave the memory as it was.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from tests.serving import free_port, served

TOKEN = "fuzz-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
# Cases per operation and mode; raise it for a longer hunt (`HINDSIGHT_FUZZ_EXAMPLES=500`).
EXAMPLES = int(os.environ.get("HINDSIGHT_FUZZ_EXAMPLES", "20"))


@pytest.fixture(scope="module")
def fuzzed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    data = tmp_path_factory.mktemp("fuzz")
    env = {**os.environ, "HINDSIGHT_API_TOKEN": TOKEN, "HF_HUB_OFFLINE": "1",
           # reflection on a timer would change the stats between two reads
           "HINDSIGHT_REFLECTION_INTERVAL": "0"}  # fmt: skip
    with served(["--port", str(port), "--data-dir", str(data / "d")], env,
                data / "server.log", port) as base:  # fmt: skip
        with httpx.Client(base_url=base, headers=AUTH, timeout=120) as client:
            for n in range(3):  # something for reads to find
                client.post("/v1/namespaces/default/episodes",
                            json={"content": f"Atlas note {n}: Dana picked Postgres."})  # fmt: skip
        yield base


def _state(base: str) -> dict[str, Any]:
    """Everything a rejected request could have changed: counts and the latest changes."""
    with httpx.Client(base_url=base, headers=AUTH, timeout=60) as client:
        stats = client.get("/v1/stats").json()
        audit = client.get("/v1/audit", params={"limit": 5}).json()
    return {"stats": stats, "audit": audit}


def _without_references(case: Any) -> Any:
    """`related_ids`, `resolves` and `task_id` must name episodes that exist, which generated
    ids never do: a positive case would be refused for its state, not its shape
    (tests/test_reading.py and tests/test_agent_memory.py cover them).
    And metadata keys holding NUL, which the schema refuses (`propertyNames`) but
    schemathesis generates anyway (its issue 3771): such a case is no positive one."""
    if case.meta is not None and case.meta.generation.mode == GenerationMode.NEGATIVE:
        return case
    body = case.body if isinstance(case.body, dict) else {}
    nested = [i for key in ("items", "steps") if isinstance(body.get(key), list) for i in body[key]]
    for item in [body, *nested]:
        if isinstance(item, dict):
            for key in ("related_ids", "resolves", "task_id"):
                item.pop(key, None)
            if "metadata" in item:
                item["metadata"] = _without_nul_keys(item["metadata"])
    return case


def _without_nul_keys(value: Any) -> Any:
    """The value without object keys holding NUL, at every level (the schema says so at the
    top, with `propertyNames`, and below it in the field's description)."""
    if isinstance(value, dict):
        return {k: _without_nul_keys(v) for k, v in value.items() if "\x00" not in k}
    if isinstance(value, list):
        return [_without_nul_keys(v) for v in value]
    return value


def _auth_for(case: Any) -> dict[str, str]:
    """The token, unless the case breaks the security header itself: sent anyway, it would
    undo the mutation, and schemathesis would count the request as bad data accepted."""
    data = case.meta.phase.data if case.meta is not None else None
    if data is None or not hasattr(data, "mutations"):
        return AUTH
    mutated = {data.parameter, *(m.parameter for m in data.mutations)}
    return {} if "Authorization" in mutated else AUTH


@pytest.mark.parametrize("mode", list(GenerationMode), ids=lambda mode: mode.value)
def test_every_operation_keeps_to_its_schema(fuzzed_server: str, mode: GenerationMode) -> None:
    """Positive: data that fits the schema; negative: data that breaks it (must be a 4xx)."""
    api = schemathesis.openapi.from_url(f"{fuzzed_server}/openapi.json")
    operations = [result.ok() for result in api.get_all_operations()]  # type: ignore[union-attr]  # an Err would raise
    assert len(operations) >= 19
    for operation in operations:
        try:
            _fuzz(operation, mode, fuzzed_server)
        except Exception as exc:
            exc.add_note(f"operation: {operation.label} ({mode.value})")
            raise


def _is_array(schema: dict[str, Any]) -> bool:
    return schema.get("type") == "array" or any(_is_array(s) for s in schema.get("anyOf", []))


def _fuzz(operation: Any, mode: GenerationMode, base: str) -> None:
    # Cypher's grammar is beyond JSON Schema: a schema-valid string is mostly not a query
    # (tests/test_analyst.py and the Cypher differential test cover what is refused).
    excluded = [positive_data_acceptance] if operation.path.endswith("/cypher") else []
    # An exploded array in a query string (`?namespace=a&namespace=b`) of one item reads as
    # that item: schemathesis counts `?namespace=0.5` as a number where an array is due, but
    # to the server, as to OpenAPI's serialisation, it is the array ["0.5"].
    if any(p.get("in") == "query" and _is_array(p.get("schema", {})) for p in operation.definition.raw.get("parameters", [])):
        excluded.append(negative_data_rejection)

    # Derandomized, as the engine's fuzz test: CI runs the same cases every time, so a failure
    # reproduces as it was and no landing waits on a lucky draw; a longer hunt draws more.
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              database=None, derandomize=True)  # fmt: skip
    @given(case=operation.as_strategy(generation_mode=mode).map(_without_references))
    def run(case: Any) -> None:
        response = case.call_and_validate(base_url=base, headers=_auth_for(case), excluded_checks=excluded)
        now = _state(base)
        if response.status_code >= 400:  # only an accepted request may change the memory
            assert now == last[0], (case.path, case.body, response.text)
        last[0] = now

    last = [_state(base)]
    run()
