"""Neo4j's own linter over every statement hindsight can send to Neo4j.

No Neo4j server runs in CI, so this is what checks the Neo4j store's Cypher there: a syntax
error, a deprecated form, an undeclared parameter, an unknown function (APOC included) or an
unknown label, type or property fails. The linter is the npm package
@neo4j-cypher/language-support, installed by `make test` into tools/cypher-lint.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.stores.cypher_catalog import CatalogEntry, lint_schema, neo4j_statements

LINTER = Path(__file__).parent.parent / "tools" / "cypher-lint"


def _lint(entries: list[CatalogEntry]) -> dict[str, list[dict[str, Any]]]:
    node = shutil.which("node")
    assert node, "node is needed to lint Cypher (Node 20 is on every machine here)"
    assert (LINTER / "node_modules").exists(), "run `make test` (it runs npm ci in tools/cypher-lint)"
    request = {
        "schema": lint_schema(),
        "statements": [{"name": e.name, "text": e.text, "params": list(e.params)} for e in entries],
    }
    done = subprocess.run(
        [node, "lint.mjs"], cwd=LINTER, input=json.dumps(request), capture_output=True,
        text=True, timeout=300, check=True,
    )  # fmt: skip
    return {r["name"]: r["diagnostics"] for r in json.loads(done.stdout)}


def test_every_neo4j_statement_passes_neo4js_linter() -> None:
    entries = neo4j_statements()
    assert len(entries) > 60  # the store's statements, the schema and the saved queries
    results = _lint(entries)
    failures = {name: found for name, found in results.items() if found}
    assert not failures, json.dumps(failures, indent=1)


@pytest.mark.parametrize(
    ("text", "params", "expected"),
    [
        ("MATCH (n:Episode WHERE n.id = $id RETURN n", ("id",), "Invalid input"),
        ("MATCH (n:Episode) WHERE n.id = $id RETURN n", (), "Parameter $id is not defined"),
        ("MATCH (n:Episode) WHERE id(n) = 1 RETURN n", (), "deprecated"),
        ("MATCH (n:Episode) RETURN apoc.text.join([n.id], ',')", (), "apoc.text.join"),
        ("MATCH (n:Episode) RETURN n.contnet", (), "contnet"),
        ("MATCH (n:Episode) RETURN 'a', n UNION ALL MATCH (n:Episode) RETURN 'b', n", (), "UNION"),
        ("MATCH (n:Episode) WHERE list_has_any(n.todos, []) RETURN n", (), "list_has_any"),
    ],
)
def test_the_check_fails_on_a_broken_statement(text: str, params: tuple[str, ...], expected: str) -> None:
    [found] = _lint([CatalogEntry("broken", text, params)]).values()
    assert found, f"the linter accepted {text!r}"
    assert any(expected in d["message"] for d in found), found
