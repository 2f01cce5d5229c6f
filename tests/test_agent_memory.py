"""Memory of an agent's work on real stores: task runs and their steps, failures linked to
their fixes, recall of "how did we fix this last time?", lessons, stated lessons, bad input,
purge, and stores written by the previous schema."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from engine import Memory, Settings
from engine.errors import InvalidInput
from tests.backends import live, open_settings

NS = "agent"
# Written for these tests: a deploy tool whose cluster login expired, twice, fixed two ways.
LOGIN = ("kubectl apply -f billing.yaml\nerror: You must be logged in to the server (Unauthorized): "
         "token for user deployer@{cluster} expired at {when}")  # fmt: skip


def _run(memory: Memory, *, day: int, fix: str, cluster: str, session: str) -> dict[str, str]:
    steps = [
        {"content": "kubectl get ns billing\nbilling   Active   412d", "role": "kubectl", "outcome": "success"},
        {"content": LOGIN.format(cluster=cluster, when=f"2026-11-{day:02d}T08:1{day % 10}:00Z"), "role": "kubectl",
         "outcome": "failure"},
        {"content": "kubectl config current-context\nstaging-eu", "role": "kubectl-config", "outcome": "success"},
        {"content": fix, "role": "aws", "outcome": "success"},
        {"content": "kubectl apply -f billing.yaml\ndeployment.apps/billing configured", "role": "kubectl",
         "outcome": "success"},
    ]  # fmt: skip
    result = memory.store_task("Deploy billing to staging", steps, outcome="success", namespace=NS,
                               session_id=session, occurred_at=f"2026-11-{day:02d}T08:00:00Z")  # fmt: skip
    ids = [s.id for s in result.steps]
    return {"task": result.task.id, "failure": ids[1], "look": ids[2], "fix": ids[3], "verify": ids[4]}


FIRST_FIX = "aws eks update-kubeconfig --name staging-eu --region eu-west-1\nUpdated context staging-eu"
SECOND_FIX = "aws sso login --profile deployer\nSuccessfully logged into Start URL"


def test_a_task_run_links_its_steps_and_the_fix_of_its_failure(on_each_store: Memory) -> None:
    memory = on_each_store
    run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    steps = memory.cypher("MATCH (s:Episode)-[x:STEP_OF]->(t:Episode) WHERE t.namespace = $namespace "
                          "RETURN s.id, x.`index`, s.outcome ORDER BY x.`index`", namespace=NS).rows  # fmt: skip
    assert [row[1] for row in steps] == [0, 1, 2, 3, 4] and steps[1][:1] == [run["failure"]]
    assert [row[2] for row in steps] == ["success", "failure", "success", "success", "success"]
    fixed = memory.cypher("MATCH (f:Episode)-[r:RESOLVED_BY]->(x:Episode) WHERE f.namespace = $namespace "
                          "RETURN f.id, x.id, r.confirmed_by, r.held, r.derived_by", namespace=NS).rows  # fmt: skip
    assert fixed == [[run["failure"], run["fix"], run["verify"], True, "run"]]
    explained = memory.explain(run["failure"], namespace=NS)
    assert explained.why.startswith("A failed tool call by kubectl")
    assert [(r.fix_id, r.held) for r in explained.resolutions] == [(run["fix"], True)]
    signature = [e for e in explained.entities if e.type == "SIGNATURE"]
    assert [e.name for e in signature] == ["error: You must be logged in to the server (Unauthorized): token for "
                                           "user deployer@<*> expired"]  # fmt: skip


def test_the_next_occurrence_recalls_the_newest_fix_above_the_failure(on_each_store: Memory) -> None:
    memory = on_each_store
    first = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    second = _run(memory, day=9, fix=SECOND_FIX, cluster="d4e5f6", session="deploy-2")
    pasted = LOGIN.format(cluster="9f9f9f", when="2026-11-20T07:00:00Z") + "\nThis again. How did we fix it last time?"
    cards = memory.recall(pasted, namespace=NS, top_k=5)
    episodic = [c for c in cards if c.layer == "episodic"]
    assert episodic[0].id == second["fix"], [c.content[:40] for c in cards]
    trace = episodic[0].trace
    assert trace is not None and trace.resolves == [second["failure"]] and trace.held is True
    assert trace.path is not None and trace.path.relationships[-1] == "RESOLVED_BY"
    assert any(h.channel == "fix" for h in trace.channels) and first["fix"] in trace.supersedes
    order = [c.id for c in cards]
    for failure in (first["failure"], second["failure"]):
        assert failure not in order or order.index(failure) > order.index(second["fix"])
    older = next((c for c in cards if c.id == first["fix"]), None)
    assert older is None or (older.trace is not None and older.trace.superseded_by == second["fix"])
    # "Last time" with a subject is that subject's latest occurrence, not the latest session.
    worded = memory.recall("How did we get past the expired kubectl login last time?", namespace=NS, top_k=3)
    assert worded[0].id == second["fix"] and all(c.kind != "digest" for c in worded[:1])


def test_reflection_keeps_one_lesson_a_newer_fix_closes(on_each_store: Memory) -> None:
    memory = on_each_store
    _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    memory.reflect(namespace=NS)
    second = _run(memory, day=9, fix=SECOND_FIX, cluster="d4e5f6", session="deploy-2")
    while memory.reflect(namespace=NS).status != "nothing_new":
        pass
    rows = memory.cypher("MATCH (s:Entity)-[f:FACT]->(x:Entity) WHERE s.namespace = $namespace "
                         "RETURN s.type, x.type, f.rule, x.name, f.valid_to IS NULL, f.support, f.statement "
                         "ORDER BY f.valid_from", namespace=NS).rows  # fmt: skip
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [("SIGNATURE", "FIX", "lesson", False),
                                                         ("SIGNATURE", "FIX", "lesson", True)]  # fmt: skip
    assert rows[0][3].startswith("aws eks update-kubeconfig") and rows[1][3].startswith("aws sso login")
    assert "seen 2 times" in rows[1][6] and rows[1][6].startswith("When kubectl fails with")
    cards = memory.recall("What have we learned about the expired kubectl login?", namespace=NS, layer="semantic")
    assert cards and cards[0].metadata["rule"] == "lesson" and "aws sso login" in cards[0].content
    assert sorted(cards[0].related_ids) == sorted([second["failure"], second["fix"]])
    signature = next(e for e in memory.explain(second["failure"], namespace=NS).entities if e.type == "SIGNATURE")
    profile = memory.entity(signature.name, namespace=NS)
    assert [f.rule for f in profile.facts] == ["lesson"] and [f.rule for f in profile.closed_facts] == ["lesson"]


def test_an_agents_log_states_no_fact_and_no_decision(memory: Memory) -> None:
    _run(memory, day=3, fix="kubectl config use-context staging-eu\nSwitched to context \"staging-eu\".",
         cluster="a1", session="deploy-1")  # fmt: skip
    memory.store_task("Restart the worker", [{"content": "systemctl restart worker\nI love this server, we decided "
                                              "to keep it", "role": "systemctl", "outcome": "success"}],
                      namespace=NS)  # fmt: skip
    while memory.reflect(namespace=NS).status != "nothing_new":
        pass
    rows = memory.cypher("MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace RETURN f.rule",
                         namespace=NS).rows  # fmt: skip
    assert all(r[0] == "lesson" for r in rows)
    assert memory.stats(namespace=NS).decisions == 0


def test_a_stated_lesson_is_kept_and_replaces_the_older_one(memory: Memory) -> None:
    _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    memory.reflect(namespace=NS)
    stated = memory.store("Lesson: error: You must be logged in to the server (Unauthorized) means the SSO session "
                          "lapsed; run aws sso login first.", layer="semantic", namespace=NS,
                          occurred_at="2026-11-12T09:00:00Z")  # fmt: skip
    assert [e.layer for e in memory.list(namespace=NS, layer="semantic")] == ["semantic"]
    rows = memory.cypher("MATCH (s:Entity)-[f:FACT]->(:Entity) WHERE s.namespace = $namespace "
                         "RETURN f.rule, f.valid_to IS NULL, f.source_episode_ids ORDER BY f.valid_from",
                         namespace=NS).rows  # fmt: skip
    assert [(r[0], r[1]) for r in rows] == [("lesson", False), ("stated lesson", True)]
    assert rows[1][2] == [stated.id]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda m: m.store("x", outcome="partly", namespace=NS), "outcome"),
        (lambda m: m.store("x", outcome="failure", resolves=["a"], namespace=NS), "resolves"),
        (lambda m: m.store("x", resolves=["no-such-episode"], namespace=NS), "resolves"),
        (lambda m: m.store("x", task_id="no-such-task", namespace=NS), "task_id"),
        (lambda m: m.store("x", resolves=["\ud800"], namespace=NS), "resolves"),
        (lambda m: m.store_task("t", "ls", namespace=NS), "steps"),
        (lambda m: m.store_task("t", [], namespace=NS), "steps"),
        (lambda m: m.store_task("t", [{"content": "ok"}, "ls"], namespace=NS), "steps[1]"),
        (lambda m: m.store_task("t", [{"content": "ok", "outcome": "meh"}], namespace=NS), "steps[0].outcome"),
        (lambda m: m.store_task("t", [{"content": "ok", "namespace": "other"}], namespace=NS), "steps[0].namespace"),
        (lambda m: m.store_task("t", [{"content": "ok", "session_id": "x"}], namespace=NS, session_id="y"),
         "steps[0].session_id"),
        (lambda m: m.store_task(" ", [{"content": "ok"}], namespace=NS), "task"),
    ],
)
def test_bad_input_about_work_names_the_field_and_stores_nothing(memory: Memory, call: Any, field: str) -> None:
    before = memory.stats(namespace=NS).episodes
    with pytest.raises(InvalidInput) as raised:
        call(memory)
    assert raised.value.field == field
    assert memory.stats(namespace=NS).episodes == before


def test_a_step_names_a_stored_task_but_not_another_kind(memory: Memory) -> None:
    message = memory.store("Rotate the keys on Friday.", namespace=NS, importance=0.9)
    with pytest.raises(InvalidInput, match="not a task"):
        memory.store("ls", kind="tool_call", task_id=message.id, namespace=NS)
    task = memory.store("Rotate the keys", kind="task", namespace=NS)
    step = memory.store("vault rotate\nrotated 3 keys", kind="tool_call", outcome="success", task_id=task.id,
                        namespace=NS)  # fmt: skip
    rows = memory.cypher("MATCH (s:Episode)-[x:STEP_OF]->(t:Episode) WHERE t.namespace = $namespace "
                         "RETURN s.id, t.id, x.`index`", namespace=NS).rows  # fmt: skip
    assert rows == [[step.id, task.id, 0]]


def test_purge_removes_the_fix_its_links_and_the_lesson_it_made(memory: Memory, tmp_path: Path) -> None:
    run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    memory.reflect(namespace=NS)
    memory.purge([run["failure"], run["fix"]], namespace=NS, dry_run=False)
    memory.export(tmp_path / "out.jsonl")
    text = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert "update-kubeconfig" not in text and "You must be logged in" not in text
    assert "RESOLVED_BY" not in text


def test_a_forgotten_fix_takes_its_lesson_with_it_until_restored(on_each_store: Memory) -> None:
    memory = on_each_store
    run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
    memory.reflect(namespace=NS)
    question = "What have we learned about the expired kubectl login?"

    def fix_shown() -> bool:
        cards = memory.recall(question, namespace=NS, top_k=10)
        signature = next(e for e in memory.explain(run["failure"], namespace=NS).entities if e.type == "SIGNATURE")
        facts = memory.entity(signature.name, namespace=NS).facts
        return any("update-kubeconfig" in c.content for c in cards) or any("update-kubeconfig" in f.object for f in facts)

    assert fix_shown()
    memory.forget(run["fix"], namespace=NS)
    memory.reflect(namespace=NS, force=True)
    assert not fix_shown()  # the failure is still there, but it never said how it was fixed
    memory.restore(run["fix"], namespace=NS)
    assert fix_shown()


def _v7_tables() -> tuple[list[str], list[str]]:
    """Ladybug DDL as the previous schema (7) had it: no outcome, rule, STEP_OF or RESOLVED_BY."""
    from graph_schema.definitions import NODES, RELATIONSHIPS

    nodes = [f"CREATE NODE TABLE {n.label}(" + ", ".join(f"`{p}` {t}" for p, t in n.properties if p != "outcome")
             + ", PRIMARY KEY (id))" for n in NODES]  # fmt: skip
    rels = [f"CREATE REL TABLE {r.name}(FROM {r.source} TO {r.target}"
            + "".join(f", `{p}` {t}" for p, t in r.properties if p != "rule") + ")"
            for r in RELATIONSHIPS if r.name not in ("STEP_OF", "RESOLVED_BY")]  # fmt: skip
    return nodes, rels


def test_a_store_of_the_previous_schema_opens_with_the_new_parts(tmp_path: Path) -> None:
    import ladybug

    data = tmp_path / "data"
    data.mkdir()
    settings = Settings(data_dir=data)
    db = ladybug.Database(str(settings.data_dir / "graph"))
    conn = ladybug.Connection(db)
    nodes, rels = _v7_tables()
    for statement in [*nodes, *rels, "CREATE NODE TABLE SchemaVersion(id STRING, version INT64, PRIMARY KEY (id))"]:
        conn.execute(statement)
    conn.execute("CREATE (:SchemaVersion {id: 'graph', version: 7})")
    conn.execute("CREATE (:Episode {id: 'old', namespace: 'agent', content: 'deploy failed', kind: 'task', "
                 "occurred_at: 1.0, created_at: 1.0, importance: 0.5, layer: 'episodic'})")  # fmt: skip
    conn.close()
    db.close()
    with Memory.open(settings=settings) as memory:
        assert memory.get("old", namespace=NS).outcome is None
        run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
        assert [r.fix_id for r in memory.explain(run["failure"], namespace=NS).resolutions] == [run["fix"]]
        memory.reflect(namespace=NS)
        counted = memory.cypher("MATCH (a:Entity)-[f:FACT]->() WHERE a.namespace = $namespace AND f.rule = 'lesson' "
                                "RETURN count(f)", namespace=NS).rows  # fmt: skip
        assert counted == [[1]]


@pytest.mark.neo4j
def test_a_neo4j_graph_of_the_previous_schema_opens_with_the_new_parts(tmp_path: Path) -> None:
    import neo4j

    open_settings("neo4j", tmp_path / "data")  # an emptied test database
    uri = live("NEO4J_URI", "Neo4j server")
    auth = (os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", ""))
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        driver.execute_query("MERGE (v:SchemaVersion {id: 'graph'}) SET v.version = 7")
        driver.execute_query("CREATE (:Episode {id: 'old', namespace: 'agent', content: 'deploy failed', "
                             "kind: 'task', occurred_at: 1.0, created_at: 1.0, importance: 0.5, "
                             "layer: 'episodic', metadata: $m})", m=json.dumps({}))  # fmt: skip
    with Memory.open(settings=open_settings("neo4j", tmp_path / "data", wipe=False)) as memory:
        assert memory.get("old", namespace=NS).outcome is None
        run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
        assert [r.fix_id for r in memory.explain(run["failure"], namespace=NS).resolutions] == [run["fix"]]
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        records, _, _ = driver.execute_query("MATCH (v:SchemaVersion {id: 'graph'}) RETURN v.version")
    assert records[0][0] == 8


def test_the_readme_agent_example_prints_what_it_says(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## An agent's tasks\n.*?```python\n(.*?)```", readme, re.DOTALL)
    assert block, "README.md shows an agent's tasks"
    monkeypatch.chdir(tmp_path)
    exec(compile(block.group(1), "README.md", "exec"), {})  # noqa: S102 - our own documentation
    fix, resolves, lesson = capsys.readouterr().out.splitlines()
    assert fix == "aws sso login --profile deployer" and len(json.loads(resolves.replace("'", '"'))) == 1
    assert lesson.startswith('When kubectl fails with "error: You must be logged in to the server (Unauthorized)": '
                             "aws sso login --profile deployer fixed it (once; seen 1 time")  # fmt: skip


def test_an_llm_may_phrase_a_lesson_and_the_rules_stand_in_when_it_slips(llm_stub: str, tmp_path: Path) -> None:
    from tests.llm_stub import _Stub

    settings = Settings(data_dir=tmp_path / "d", llm_base_url=llm_stub, llm_model="stub-1")
    with Memory.open(settings=settings) as memory:
        _Stub.answer = {"entities": [], "decisions": [], "todos": [], "importance": 0.8}
        run = _run(memory, day=3, fix=FIRST_FIX, cluster="a1b2c3", session="deploy-1")
        said = ("Whenever kubectl says error: You must be logged in, run aws eks update-kubeconfig --name "
                "staging-eu --region eu-west-1 (worked 1 of 1 times).")  # fmt: skip
        _Stub.answer = {"text": said}
        memory.reflect(namespace=NS)
        [lesson] = memory.entity(next(e.name for e in memory.explain(run["failure"], namespace=NS).entities
                                      if e.type == "SIGNATURE"), namespace=NS).facts  # fmt: skip
        assert lesson.statement == said and lesson.rule == "lesson"
        prompts = [seen["body"]["messages"][0]["content"] for seen in _Stub.seen]
        assert any("times the error was seen: 1" in prompt for prompt in prompts)
        # A count the lesson never had: the sentence is refused, the rules' stands in.
        _Stub.answer = {"text": "Run aws eks update-kubeconfig --name staging-eu --region eu-west-1 on error: You must "
                        "be logged in; it worked 7 times."}  # fmt: skip
        _run(memory, day=9, fix=FIRST_FIX, cluster="d4e5f6", session="deploy-2")
        memory.reflect(namespace=NS, force=True)
        statements = memory.cypher("MATCH (s:Entity)-[f:FACT]->(:Entity) WHERE s.namespace = $namespace "
                                   "RETURN f.statement", namespace=NS).rows  # fmt: skip
        assert len(statements) == 1 and statements[0][0].startswith("When kubectl fails with")
