"""The façade's deeper reads on real stores: explain, entity, analyst Cypher, the shared
namespace, role and capability awareness, related ids and layers."""

from __future__ import annotations

import pytest

from engine import InvalidInput, Memory, NotFound, ReadOnlyViolation

T0 = "2026-03-01T09:00:00Z"


@pytest.fixture
def atlas(memory: Memory) -> dict[str, str]:
    """Three turns of one session about Atlas, one tool call, in namespace `a`."""
    first = memory.store("We decided to use Postgres for Atlas.", namespace="a", session_id="s1",
                         role="user", occurred_at=T0, metadata={"source": "standup"})
    second = memory.store("Atlas launches in May; Alice owns the rollout.", namespace="a",
                          session_id="s1", role="assistant", occurred_at="2026-03-01T09:01:00Z")
    third = memory.store("Budget for Atlas is 500k CNY.", namespace="a", session_id="s1",
                         role="user", occurred_at="2026-03-01T09:02:00Z")
    tool = memory.store("web_search found 3 tuning guides for Postgres on Atlas.", namespace="a",
                        kind="tool_call", role="web_search", occurred_at="2026-03-01T09:03:00Z")
    return {"first": first.id, "second": second.id, "third": third.id, "tool": tool.id}


def test_explain_names_entities_decisions_neighbours_and_why(
    memory: Memory, atlas: dict[str, str]
) -> None:
    explained = memory.explain(atlas["second"], namespace="a")
    assert explained.episode.id == atlas["second"]
    assert {e.name for e in explained.entities} >= {"Atlas", "Alice"}
    relations = {(n.relation, n.id) for n in explained.neighbours}
    assert ("previous", atlas["first"]) in relations and ("next", atlas["third"]) in relations
    assert ("shares_entity", atlas["tool"]) in relations
    assert "by assistant in session s1" in explained.why

    first = memory.explain(atlas["first"], namespace="a")
    assert [d.text for d in first.decisions] == ["We decided to use Postgres for Atlas."]
    assert first.why.endswith("source: standup.")
    with pytest.raises(NotFound):
        memory.explain(atlas["first"], namespace="b")


def test_entity_profile_by_name_any_case(memory: Memory, atlas: dict[str, str]) -> None:
    profile = memory.entity("ATLAS", namespace="a")
    assert profile.entity.name == "Atlas"
    assert [e.id for e in profile.latest_episodes][0] == atlas["tool"]  # newest first
    assert set(atlas.values()) <= {e.id for e in profile.latest_episodes}
    assert [d.text for d in profile.decisions] == ["We decided to use Postgres for Atlas."]
    assert profile.facts == []  # reflection writes facts; none yet
    with pytest.raises(NotFound):
        memory.entity("Atlas", namespace="b")
    with pytest.raises(InvalidInput) as bad:
        memory.entity("  ", namespace="a")
    assert bad.value.field == "name"


def test_cypher_reads_in_namespace_and_refuses_writes(memory: Memory, atlas: dict[str, str]) -> None:
    memory.store("Orion is another team's secret project.", namespace="b")
    result = memory.cypher(
        "MATCH (e:Entity) WHERE e.namespace = $namespace AND e.mention_count >= $min "
        "RETURN e.name ORDER BY e.name",
        {"min": 2},
        namespace="a",
    )
    assert result.columns == ["e.name"] and ["Atlas"] in result.rows
    with pytest.raises(InvalidInput) as unscoped:
        memory.cypher("MATCH (e:Entity) RETURN e.name", namespace="a")
    assert unscoped.value.field == "query"
    # Refused before running: a top-level OR, or a second pattern, would read namespace b
    # (even a count leaks without returning a node).
    for leak in ["MATCH (e:Episode) WHERE e.namespace = $namespace OR true RETURN e",
                 "MATCH (a:Entity) WHERE a.namespace = $namespace MATCH (b:Episode) RETURN count(b)",
                 "MATCH (e:Episode), (x:Episode) WHERE e.namespace = $namespace RETURN count(x)"]:  # fmt: skip
        with pytest.raises(InvalidInput, match="tied to"):
            memory.cypher(leak, namespace="a")
    with pytest.raises(InvalidInput) as reserved:
        memory.cypher("MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e",
                      {"namespace": "b"}, namespace="a")
    assert reserved.value.field == "params.namespace"
    writes = [
        "MATCH (e:Episode) WHERE e.namespace = $namespace SET e.importance = 1",
        "MATCH (e:Episode) WHERE e.namespace = $namespace DETACH DELETE e",
        "MERGE (x:Session {id: $namespace})",
        "MATCH (e:Episode) WHERE e.namespace = $namespace REMOVE e.summary",
        "COPY (MATCH (e:Episode) WHERE e.namespace = $namespace RETURN e.content) TO '/tmp/x.csv'",
        "MATCH (e) WHERE e.namespace = $namespace RETURN e; CREATE (:Session {id: 'x'})",
        "CALL create_fts_index('Episode', 'i', ['content'])",
        "match (e) where e.namespace = $namespace /* */ cReAtE (:Session {id: 'y'})",
    ]
    for query in writes:
        with pytest.raises(ReadOnlyViolation):
            memory.cypher(query, namespace="a")
    assert memory.stats(namespace="a").episodes == 4
    # No Session of any namespace was created by the refused writes (read below the guard).
    every = memory._core.graph.read_cypher("MATCH (s:Session) RETURN s.id", {}, max_rows=10, timeout_ms=5000)
    assert every.rows == [["a/s1"]]


def test_shared_namespace_is_read_by_all_and_written_only_when_named(memory: Memory) -> None:
    rule = memory.store("Deploys of Atlas need a review by Bob.", namespace="shared")
    own = memory.store("Atlas deploy checklist lives in the wiki.", namespace="a")
    cards = memory.recall("Atlas deploy review", namespace="a", top_k=5)
    assert {(c.id, c.namespace) for c in cards} == {(rule.id, "shared"), (own.id, "a")}
    assert memory.get(rule.id, namespace="a").namespace == "shared"
    assert [c.id for c in memory.recall("Atlas deploy", namespace="a", include_shared=False)] == [own.id]
    assert memory.recall("Atlas deploy", namespace="b")[0].id == rule.id
    assert [e.id for e in memory.list(namespace="a")] == [own.id]  # listing is one namespace
    with pytest.raises(NotFound):
        memory.forget(rule.id, namespace="a")  # readable is not writable


def test_role_and_capabilities_reorder_and_show_in_trace(
    memory: Memory, atlas: dict[str, str]
) -> None:
    plain = {c.id: c for c in memory.recall("Atlas Postgres", namespace="a", top_k=10)}
    tuned = {
        c.id: c
        for c in memory.recall("Atlas Postgres", namespace="a", top_k=10, role="user",
                               capabilities=["calculator"])
    }
    by_user, tool = tuned[atlas["first"]], tuned[atlas["tool"]]
    assert by_user.trace is not None and by_user.trace.role_factor > 1
    assert by_user.score > plain[atlas["first"]].score
    assert tool.trace is not None and tool.trace.capability_factor < 1
    assert tool.score < plain[atlas["tool"]].score
    with_tool = memory.recall("Atlas Postgres", namespace="a", top_k=10, capabilities=["web_search"])
    assert all(c.trace is not None and c.trace.capability_factor == 1 for c in with_tool)
    with pytest.raises(InvalidInput) as bad:
        memory.recall("Atlas", namespace="a", capabilities="web_search")
    assert bad.value.field == "capabilities"


def test_related_ids_are_checked_and_cited(memory: Memory, atlas: dict[str, str]) -> None:
    follow = memory.store("Postgres for Atlas confirmed after the load test.", namespace="a",
                          related_ids=[atlas["first"]])
    assert memory.get(follow.id, namespace="a").related_ids == [atlas["first"]]
    card = next(c for c in memory.recall("load test Postgres", namespace="a") if c.id == follow.id)
    assert atlas["first"] in card.related_ids
    before = memory.stats(namespace="a").episodes
    with pytest.raises(InvalidInput) as bad:
        memory.store("cites nothing real", namespace="a", related_ids=["no-such-id"])
    assert bad.value.field == "related_ids"
    with pytest.raises(InvalidInput):
        memory.store("cites another namespace", namespace="b", related_ids=[atlas["first"]])
    assert memory.stats(namespace="a").episodes == before


def test_layers_filter_recall_and_list(memory: Memory) -> None:
    scratch = memory.store("Scratch: Atlas test run in progress.", namespace="a", layer="working")
    kept = memory.store("Atlas test run passed.", namespace="a")
    assert [c.id for c in memory.recall("Atlas test run", namespace="a", layer="working")] == [scratch.id]
    assert kept.id in {c.id for c in memory.recall("Atlas test run", namespace="a", layer="episodic")}
    assert [e.id for e in memory.list(namespace="a", layer="working")] == [scratch.id]
    assert memory.list(namespace="a", layer="semantic") == []
    with pytest.raises(InvalidInput):
        memory.list(namespace="a", layer="attic")


def test_health_reports_both_stores(memory: Memory, atlas: dict[str, str]) -> None:
    health = memory.health()
    assert (health.status, health.graph, health.vectors) == ("ok", "ok", "ok")
    assert health.episodes == 4 and health.vector_points == 4


def test_hub_entities_do_not_flood_the_entity_channel(memory: Memory) -> None:
    topics = ["the weather", "a new recipe", "the traffic", "a podcast", "the gym"]
    memory.store_many(
        [{"content": f"Caroline: I talked about {topics[i % 5]} on day {i}.", "namespace": "hub",
          "importance": 0.6} for i in range(24)]
        + [{"content": "Caroline: my beagle Pixel chewed the sofa.", "namespace": "hub",
            "importance": 0.6}]
    )  # fmt: skip
    cards = memory.recall("What did Caroline's beagle chew?", namespace="hub", top_k=5)
    assert "Pixel" in cards[0].content
    # Caroline is named by every episode: no card is found through her alone.
    for card in cards:
        assert card.trace is not None
        assert "entity" not in {h.channel for h in card.trace.channels} or "Pixel" in card.content
