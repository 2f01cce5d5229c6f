"""The analyst's side: the saved queries run on a real memory, the CLI `cypher` command, and
the Neo4j Browser style sheet covers the schema."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from engine import Memory, Settings
from engine.cli import app
from engine.errors import InvalidInput, ReadOnlyViolation
from graph_schema import NODES, RELATIONSHIPS
from graph_schema.saved import saved_queries
from tests.backends import BACKENDS, backend_env, open_settings

GRASS = Path(__file__).parent.parent / "graph_schema" / "browser.grass"
HISTORY = [
    ("s1", "user", "Atlas uses Postgres for the orders table."),
    ("s1", "assistant", "Atlas uses Postgres with PostGIS enabled."),
    ("s2", "user", "We decided to use MySQL for Atlas instead of Postgres."),
    ("s2", "user", "Atlas uses Postgres in every region now."),
    ("s2", "user", "Dana reviewed the Atlas migration plan."),
]


@dataclass(frozen=True)
class Analyst:
    """A memory holding HISTORY on one backend, and how the CLI opens it again."""

    data_dir: Path
    settings: Settings
    env: dict[str, str]

    def open(self) -> Memory:
        return Memory.open(settings=self.settings)

    def cli(self, *args: str) -> Result:
        return CliRunner(env=self.env).invoke(app, [*args, "--data-dir", str(self.data_dir)])


@pytest.fixture(scope="module", params=BACKENDS)
def analyst(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Analyst:
    data = tmp_path_factory.mktemp("analyst")
    opened = Analyst(data, open_settings(request.param, data), backend_env(request.param, data))
    with opened.open() as memory:
        for day, (session, role, content) in enumerate(HISTORY, start=1):
            memory.store(content, session_id=session, role=role, importance=0.8,
                         occurred_at=f"2026-11-0{day}T10:00:00Z")  # fmt: skip
        memory.reflect()
    return opened


def _rows(analyst: Analyst, name: str, **params: object) -> list[dict[str, object]]:
    with analyst.open() as memory:
        result = memory.cypher(saved_queries()[name].text, params)
    return [dict(zip(result.columns, row, strict=True)) for row in result.rows]


def test_every_saved_query_declares_namespace_and_a_description() -> None:
    queries = saved_queries()
    assert len(queries) >= 5
    for query in queries.values():
        assert query.params[0] == "namespace" and query.description, query.name
        used = set(re.findall(r"\$(\w+)", query.text))
        assert used == set(query.params), query.name


def test_entity_timeline_is_oldest_first_and_follows_aliases(analyst: Analyst) -> None:
    rows = _rows(analyst, "entity_timeline", entity="atlas")
    assert len(rows) == 5
    assert [r["occurred_at"] for r in rows] == sorted(r["occurred_at"] for r in rows)  # type: ignore[type-var]
    assert rows[0]["content"] == HISTORY[0][2] and rows[0]["session"] == "s1"


def test_decisions_facts_sessions_and_hubs(analyst: Analyst) -> None:
    decisions = _rows(analyst, "entity_decisions", entity="atlas")
    assert decisions and "MySQL" in str(decisions[0]["decision"])
    facts = _rows(analyst, "entity_facts", entity="atlas")
    assert any(f["subject"] == "Atlas" and f["object"] == "Postgres" for f in facts)
    assert all(0 < float(f["confidence"]) <= 1 for f in facts)  # type: ignore[arg-type]
    mentions = _rows(analyst, "session_mentions", session="s1")
    assert {(m["speaker"], m["entity"]) for m in mentions} >= {("user", "Atlas"), ("assistant", "Atlas")}
    top = _rows(analyst, "most_connected", limit=1)
    assert top == [{"entity": "Atlas", "type": top[0]["type"], "episodes": 5}]


def test_saved_queries_see_only_their_namespace(analyst: Analyst) -> None:
    with analyst.open() as memory:
        result = memory.cypher(saved_queries()["entity_timeline"].text, {"entity": "atlas"},
                               namespace="elsewhere")  # fmt: skip
    assert result.rows == []


def test_cli_cypher_prints_rows_as_objects_and_refuses_writes(analyst: Analyst) -> None:
    done = analyst.cli("cypher", "most_connected", "--param", "limit=2", "--json")
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)
    assert rows[0]["entity"] == "Atlas" and set(rows[0]) == {"entity", "type", "episodes"}
    done = analyst.cli("cypher", "MATCH (e:Episode) WHERE e.namespace = $namespace "
                       "RETURN count(e) AS n")  # fmt: skip
    assert done.exit_code == 0 and "5" in done.stdout
    done = analyst.cli("cypher", "MATCH (e:Episode) WHERE e.namespace = $namespace DETACH DELETE e")
    assert done.exit_code == 1 and "read-only" in done.stderr
    done = CliRunner().invoke(app, ["cypher", "--list"])
    assert done.exit_code == 0 and "entity_timeline" in done.stdout
    done = analyst.cli("cypher", "x", "--param", "novalue")
    assert done.exit_code == 2 and "name=value" in done.stderr
    with analyst.open() as memory, pytest.raises(ReadOnlyViolation):
        memory.cypher("MATCH (e:Episode) WHERE e.namespace = $namespace SET e.importance = 1")


_SCOPED = "MATCH (e:Episode) WHERE e.namespace = $namespace "


@pytest.mark.parametrize(("query", "params"), [
    (_SCOPED + "RETURN no_such_function(e.content)", {}),
    (_SCOPED + "RETURN e.content +", {}),
    (_SCOPED + "RETURN count(e) * 9223372036854775807", {}),
    (_SCOPED + "RETURN count(e) + $big", {"big": 2**63}),
    (_SCOPED + "RETURN count(e) + $big", {"big": -(2**64)}),
    (_SCOPED + "RETURN $nan", {"nan": float("nan")}),
])  # fmt: skip
def test_a_query_the_graph_cannot_run_is_bad_input_on_every_backend(
    analyst: Analyst, query: str, params: dict[str, object]
) -> None:
    """A bad query is the caller's error naming `query` or the parameter, never an outage."""
    with analyst.open() as memory, pytest.raises(InvalidInput) as raised:
        memory.cypher(query, params)
    assert raised.value.field in {"query", *(f"params.{name}" for name in params)}
    with analyst.open() as memory:  # the store still answers
        assert memory.cypher(_SCOPED + "RETURN count(e) AS n").rows == [[5]]


def test_cli_tables_show_times_in_iso_8601(analyst: Analyst) -> None:
    """A person reads 2026-11-01T10:00:00Z, never 1793527200.0; --json keeps the number."""
    done = analyst.cli("cypher", "entity_timeline", "--param", "entity=atlas")
    assert done.exit_code == 0, done.output
    assert "2026-11-01T10:00:00Z" in done.stdout and not re.search(r"\d{10}\.\d", done.stdout)
    done = analyst.cli("cypher", "entity_decisions", "--param", "entity=atlas")
    assert done.exit_code == 0 and re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", done.stdout)
    done = analyst.cli("cypher", "entity_timeline", "--param", "entity=atlas", "--json")
    assert isinstance(json.loads(done.stdout)[0]["occurred_at"], float)


def test_time_properties_are_the_schemas_moments() -> None:
    from graph_schema.definitions import TIME_PROPERTIES

    properties = [*(p for node in NODES for p in node.properties), *(p for rel in RELATIONSHIPS for p in rel.properties)]
    doubles = {name for name, kind in properties if kind == "DOUBLE"}
    assert TIME_PROPERTIES <= doubles
    assert doubles - TIME_PROPERTIES == {"importance", "confidence"}  # the DOUBLEs that are no time


def _grass_blocks() -> dict[str, dict[str, str]]:
    blocks: dict[str, dict[str, str]] = {}
    text = re.sub(r"/\*.*?\*/", "", GRASS.read_text(encoding="utf-8"), flags=re.DOTALL)
    for selector, body in re.findall(r"([\w.]+)\s*\{((?:'[^']*'|[^}'])*)\}", text):
        blocks[selector] = dict(
            (key.strip(), value.strip()) for key, value in re.findall(r"([\w-]+)\s*:\s*([^;]+);", body)
        )
    return blocks


def test_the_style_sheet_styles_and_captions_every_label_and_type() -> None:
    # Neo4j Browser's :style refuses a comment anywhere (InvalidGrassError).
    assert "/*" not in GRASS.read_text(encoding="utf-8")
    blocks = _grass_blocks()
    for node in NODES:
        style = blocks[f"node.{node.label}"]
        assert re.fullmatch(r"#[0-9A-F]{6}", style["color"]), node.label
        caption = re.fullmatch(r"'\{(\w+)\}'", style["caption"])
        assert caption and caption.group(1) in {name for name, _ in node.properties}, node.label
    colours = {blocks[f"node.{n.label}"]["color"] for n in NODES}
    assert len(colours) == len(NODES)  # each label tells itself apart
    for rel in RELATIONSHIPS:
        assert f"relationship.{rel.name}" in blocks, rel.name
    fact = blocks["relationship.FACT"]
    assert fact["caption"] == "'{predicate}'" and int(fact["shaft-width"].rstrip("px")) >= 3


def test_cli_graph_draws_the_neighbourhood_as_html_and_png(analyst: Analyst, tmp_path: Path) -> None:
    page = tmp_path / "atlas.html"
    done = analyst.cli("graph", "Atlas", "--out", str(page))
    assert done.exit_code == 0, done.output
    text = page.read_text(encoding="utf-8")
    assert "<svg" in text and "<script" not in text and "http://" not in text.split("<svg", 1)[0]
    assert "Atlas" in text and "MySQL" in text  # the entity and its decision
    png = tmp_path / "atlas.png"
    assert analyst.cli("graph", "atlas", "-o", str(png)).exit_code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = analyst.cli("graph", "Atlas", "--out", str(tmp_path / "a.gif"))
    assert bad.exit_code == 2 and "--out" in bad.stderr
    missing = analyst.cli("graph", "Nobody", "--out", str(page))
    assert missing.exit_code == 3


def test_the_picture_has_a_legend_and_draws_every_label_whole() -> None:
    """No label cut by the axes at the edge or mid-number, and a legend of the colours."""
    import networkx as nx

    from engine.picture import _figure

    graph = nx.MultiDiGraph()
    graph.add_node("a", kind="entity", label="Atlas")
    for number, kind in enumerate(("episode", "decision", "episode", "decision")):
        graph.add_node(str(number), kind=kind,
                       label=f"The Atlas release 39.{number} ships to every region…")  # fmt: skip
        graph.add_edge(str(number), "a", type="MENTIONS" if kind == "episode" else "ABOUT", label="")
    figure = _figure(graph, "Atlas")
    axes = figure.axes[0]
    texts = [t for t in axes.texts if "Atlas" in t.get_text()]
    assert len(texts) == 5 and not any(t.get_clip_on() for t in texts)
    assert all(f"39.{n}" in "".join(t.get_text().split()) for n in range(4)
               for t in texts[n + 1 : n + 2])  # fmt: skip
    legend = axes.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()][0] == "entity"
    assert len(legend.get_texts()) == 4
