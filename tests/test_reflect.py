"""Reflection on real stores: facts from a scripted multi-session history, confidence order,
reinforcement without duplicates, contradiction closing the old fact, the failed-task event,
and recall using facts."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import Memory, Settings
from engine.reflect.derive import EntityRef, EpisodeView, derive_facts
from engine.reflect.run import statements_of

HISTORY: list[tuple[str, str, str, str, dict[str, Any]]] = [
    # content, when, role, kind, metadata
    ("Atlas uses Postgres for the orders table.", "2026-11-01T10:00:00Z", "user", "message", {}),
    ("Atlas uses Postgres with PostGIS enabled.", "2026-11-05T10:00:00Z", "assistant", "message", {}),
    ("Atlas uses Postgres in every region now.", "2026-11-09T10:00:00Z", "user", "message", {}),
    ("Dana works at Acme since March.", "2026-11-02T10:00:00Z", "user", "message", {}),
    ("Dana works at Acme on the billing team.", "2026-11-08T10:00:00Z", "user", "message", {}),
    ("Bob met Carol at the Rotterdam venue.", "2026-11-03T10:00:00Z", "user", "message", {}),
    ("I prefer Python over Java for scripts.", "2026-11-03T11:00:00Z", "user", "message", {}),
    ("deploy to Kestrel failed: timeout on Redis", "2026-11-04T10:00:00Z", "deploy", "tool_call",
     {"outcome": "failure"}),
    ("deploy to Kestrel succeeded after raising the Sentinel timeout", "2026-11-04T11:00:00Z",
     "deploy", "tool_call", {"outcome": "success"}),
]  # fmt: skip


def _store(memory: Memory, rows: list[tuple[str, str, str, str, dict[str, Any]]]) -> None:
    for content, at, role, kind, fields in rows:
        memory.store(content, occurred_at=at, role=role, kind=kind, session_id=at[:10], importance=0.8,
                     **fields)  # fmt: skip


def _facts(memory: Memory) -> list[list[Any]]:
    return memory.cypher(
        "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace RETURN a.name, "
        "f.predicate, f.negated, b.name, f.support, f.confidence, f.valid_to IS NULL "
        "ORDER BY f.confidence DESC",
        namespace="default",
    ).rows


def test_reflection_writes_expected_facts_in_confidence_order(memory: Memory) -> None:
    _store(memory, HISTORY)
    summary = memory.reflect()
    assert (summary.status, summary.episodes_seen) == ("done", len(HISTORY))
    facts = {(a, p, n, b): (support, conf) for a, p, n, b, support, conf, _ in _facts(memory)}
    assert set(facts) == {
        ("Atlas", "uses", False, "Postgres"),  # three episodes
        ("Dana", "works_at", False, "Acme"),  # two
        ("the user", "prefers", False, "Python"),  # stated once, by the role `user`
        ("Bob", "meet", False, "Carol"),  # stated once; where they met is no fact of a venue
        # The failure's lesson: its error, and the step that got past it.
        ("error: deploy to Kestrel failed: timeout on Redis", "fixed_by", False,
         "deploy to Kestrel succeeded after raising the Sentinel timeout"),
    }
    assert facts[("Atlas", "uses", False, "Postgres")][0] == 3
    assert [row[:4] for row in _facts(memory)][:2] == [
        ["Atlas", "uses", False, "Postgres"],
        ["Dana", "works_at", False, "Acme"],
    ]
    # Said once, kept at the confidence one episode gives.
    assert facts[("Bob", "meet", False, "Carol")][1] < facts[("Dana", "works_at", False, "Acme")][1]
    assert memory.reflect().status == "nothing_new"
    assert memory.entity("Atlas").facts[0].statement.startswith("Atlas uses Postgres")


def test_every_fact_names_the_rule_that_read_it(memory: Memory) -> None:
    """"Why does the memory believe this?": the FACT edge and the fact card name the rule."""
    said = ["My favourite board game is Azul.", "I work at a bakery in Ghent called Crumb.",
            "我最喜欢的茶是龙井。", "我在一家叫青禾的花店上班。", "I adopted a cat named Pixel last spring."]  # fmt: skip
    for n, text in enumerate(said):
        memory.store(text, role="user", occurred_at=f"2026-02-0{n + 1}T10:00:00Z", importance=0.8)
    while memory.reflect().status != "nothing_new":
        pass
    rows = memory.cypher("MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
                         "RETURN f.rule, f.predicate, b.name", namespace="default").rows  # fmt: skip
    rules = {rule for rule, _, _ in rows}
    assert rules and all(re.fullmatch(r"(en|zh)\.[a-z_]+", rule) for rule in rules), rows
    assert {"en.favourite", "zh.favourite"} <= rules, rows
    card = memory.recall("What is my favourite board game?", top_k=1, layer="semantic")[0]
    assert card.metadata["rule"] == "en.favourite"


def test_two_values_of_one_sentence_are_siblings_and_a_later_one_closes_both(memory: Memory) -> None:
    """"My favourite sports are tennis and rugby" keeps both, neither closing the other; a
    later favourite closes both at the time it was said."""
    told = {
        "en": ["My favourite sports are tennis and rugby.", "Chess and poker are my favourite games.",
               "These days my favourite sport is baseball."],
        "zh": ["我最喜欢的运动是网球和橄榄球。", "我最喜欢的游戏是象棋和扑克。", "现在我最喜欢的运动是板球。"],
    }  # fmt: skip
    for language, turns in told.items():
        for day, text in enumerate(turns):
            memory.store(text, role="user", namespace=language, importance="high", occurred_at=f"2024-0{day + 1}-02")
        while memory.reflect(namespace=language).status != "nothing_new":
            pass
        rows = memory.cypher("MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
                             "RETURN f.predicate, b.name, f.valid_to", namespace=language).rows  # fmt: skip
        closed = {name.lower(): valid_to for _, name, valid_to in rows}
        sport, games, later = (("tennis", "rugby"), ("chess", "poker"), "baseball") if language == "en" else (
            ("网球", "橄榄球"), ("象棋", "扑克"), "板球")  # fmt: skip
        assert all(closed[name] is None for name in (*games, later)), rows
        third = datetime(2024, 3, 2, tzinfo=UTC).timestamp()
        assert all(closed[name] == third for name in sport), rows


def test_seen_again_reinforces_and_contradiction_closes(memory: Memory) -> None:
    _store(memory, HISTORY[:2])
    memory.reflect()
    [before] = _facts(memory)
    _store(memory, [HISTORY[2]])
    memory.reflect()
    [after] = _facts(memory)  # still one edge: reinforced, not duplicated
    assert after[4] == before[4] + 1 and after[5] > before[5]

    _store(memory, [
        ("Atlas doesn't use Postgres anymore.", "2026-11-20T10:00:00Z", "user", "message", {}),
        ("Atlas does not use Postgres since the migration.", "2026-11-21T10:00:00Z", "user",
         "message", {}),
        ("Atlas no longer uses Postgres at all.", "2026-11-22T10:00:00Z", "user", "message", {}),
    ])  # fmt: skip
    summary = memory.reflect()
    assert summary.facts_closed == 1
    rows = _facts(memory)
    closed = [r for r in rows if not r[6]]
    active = [r for r in rows if r[6]]
    assert [r[:4] for r in closed] == [["Atlas", "uses", False, "Postgres"]]  # kept, closed
    assert [r[:4] for r in active] == [["Atlas", "uses", True, "Postgres"]]
    invalidated = memory.cypher(
        "MATCH (a:Entity)-[f:FACT]->(:Entity) WHERE a.namespace = $namespace AND "
        "f.valid_to IS NOT NULL RETURN f.invalidated_by", namespace="default"
    ).rows
    assert invalidated[0][0] is not None


def test_weaker_contradiction_is_kept_with_lower_confidence(memory: Memory) -> None:
    _store(memory, HISTORY[:3])
    memory.reflect()
    _store(memory, [
        ("Atlas doesn't use Postgres for reports.", "2026-11-20T10:00:00Z", "user", "message", {}),
        ("Atlas does not use Postgres for reports.", "2026-11-20T11:00:00Z", "assistant",
         "message", {}),
    ])  # fmt: skip
    assert memory.reflect().facts_closed == 0
    rows = {(r[2], r[6]): r[5] for r in _facts(memory)}
    assert rows[(False, True)] > rows[(True, True)]  # both active, the contradiction weaker


def test_failed_task_triggers_reflection(memory: Memory) -> None:
    _store(memory, HISTORY[3:5])
    assert _facts(memory) == []
    memory.store("nightly import of Acme data failed", kind="task", outcome="failure", importance=0.9)
    assert [r[:4] for r in _facts(memory)] == [["Dana", "works_at", False, "Acme"]]


def test_recall_uses_facts_as_cards_and_paths(memory: Memory) -> None:
    _store(memory, HISTORY)
    memory.reflect()
    cards = memory.recall("Which database does Atlas use?", top_k=8)
    semantic = [c for c in cards if c.layer == "semantic"]
    assert semantic and semantic[0].metadata["predicate"] == "uses"
    assert semantic[0].trace is not None and semantic[0].trace.path is not None
    assert semantic[0].trace.path.relationships == ["FACT"]
    assert len(semantic[0].related_ids) == 3  # cites its three episodes
    only = memory.recall("Which database does Atlas use?", layer="semantic")
    assert {c.layer for c in only} == {"semantic"}
    # Graph expansion walks the FACT edge: Dana's episodes reach Acme's through it.
    memory.store("Acme signed the renewal for next year.", importance=0.8)
    found = memory.recall("Where does Dana work?", top_k=10)
    paths = [c.trace.path for c in found if c.trace is not None and c.trace.path is not None]
    assert any("FACT" in p.relationships for p in paths)


def test_derive_reads_negation_and_needs_a_stated_relation() -> None:
    a, b = EntityRef(id="a", name="Atlas"), EntityRef(id="p", name="Postgres")
    content = "Atlas doesn't use Postgres. Atlas and Postgres."
    [stated] = statements_of([content], [None])
    view = EpisodeView(id="e1", content=content, occurred_at=1.0, kind="message",
                       entities=[a, b], statements=stated)  # fmt: skip
    [fact] = derive_facts([view])
    assert (fact.predicate, fact.negated, fact.subject.id, fact.object.id) == ("uses", True, "a", "p")


def test_a_decision_chooses_what_it_names_after_deciding() -> None:
    james, civ = EntityRef(id="j", name="James"), EntityRef(id="c", name="Civilization")
    said = "I've always loved playing games like Civilization, so I decided to create one of my own."
    view = EpisodeView(id="e1", content=said, occurred_at=1.0, kind="message", role="James", speaker=james,
                       entities=[civ], decisions=[said])  # fmt: skip
    assert [f for f in derive_facts([view]) if f.predicate == "decided"] == []
    chose = view.model_copy(update={"content": "We went with Civilization.", "decisions": ["We went with Civilization."]})
    assert [(f.predicate, f.object.name) for f in derive_facts([chose])] == [("decided", "Civilization")]


def test_the_name_of_the_one_spoken_to_is_called_not_liked() -> None:
    joanna, nate = EntityRef(id="j", name="Joanna"), EntityRef(id="n", name="Nate")
    mia = EntityRef(id="m", name="Mia")

    def facts(content: str, entities: list[EntityRef]) -> set[tuple[str, str]]:
        [stated] = statements_of([content], ["Joanna"])
        view = EpisodeView(id="e1", content=content, occurred_at=1.0, kind="message", role="Joanna",
                           speaker=joanna, other=nate, entities=entities, statements=stated)  # fmt: skip
        return {(f.predicate, f.object.name) for f in derive_facts([view])}

    assert facts("I love the thought Nate!", [nate]) == set()
    assert facts("I love Mia so much!", [mia]) == {("likes", "Mia")}  # a third person is liked


def test_maintenance_loop_reflects_and_archives_as_maintenance(memory: Memory) -> None:
    from mcp_server.schedule import MaintenanceLoop

    _store(memory, HISTORY[:2])
    loop = MaintenanceLoop(memory, interval=0.05)
    loop.start()
    try:
        for _ in range(200):
            if loop.rounds:
                break
            time.sleep(0.05)
    finally:
        loop.stop()
    assert loop.rounds >= 1
    assert _facts(memory)[0][:4] == ["Atlas", "uses", False, "Postgres"]
    assert [(e.action, e.actor) for e in memory.audit(limit=1)] == [("reflect", "maintenance")]


def _adopted(memory: Memory, numbers: range) -> None:
    """One store_many of Ana's statements that each support one fact, "Ana -adopt-> dog number"."""
    memory.store_many([{"content": f"I adopted dog number {n}.", "role": "Ana", "importance": 0.8} for n in numbers])


def test_a_maintenance_round_reads_every_new_episode_in_bounded_runs(settings: Settings) -> None:
    """A namespace that stores more between two rounds than one run reads still catches up."""
    from mcp_server.schedule import MaintenanceLoop

    with Memory.open(settings=settings.model_copy(update={"reflection_batch_size": 2})) as memory:
        _adopted(memory, range(5))
        MaintenanceLoop(memory, interval=0).run_once()
        runs = [e for e in memory.audit(limit=20) if e.action == "reflect"]
        assert [e.actor for e in runs] == ["maintenance"] * 3  # 2 + 2 + 1 episodes
        assert memory.reflect().status == "nothing_new"


def test_reflect_to_end_stops_where_told(settings: Settings) -> None:
    """The maintenance round stops at what was stored before it began: told to stop once a run
    reads past a time, the runs leave what came after for the next call."""
    from engine.lifecycle.catch_up import reflect_to_end

    with Memory.open(settings=settings.model_copy(update={"reflection_batch_size": 2})) as memory:
        _adopted(memory, range(2))
        time.sleep(0.01)
        began = time.time()
        _adopted(memory, range(2, 4))
        _adopted(memory, range(4, 6))
        total, runs = reflect_to_end(memory, "default", stop=lambda last: last.until >= began)
        assert (runs, total.episodes_seen) == (2, 4)  # the run that reached past `began` was the last
        assert memory.reflect().episodes_seen == 2


def test_reflection_reads_every_episode_of_one_store_many(settings: Settings) -> None:
    """Reflection pages through one store_many batch by (created_at, id), so runs of
    `reflection_batch_size` read each episode exactly once."""
    count = 25
    small = settings.model_copy(update={"reflection_batch_size": 10})
    assert small.store_batch_size >= count  # one batch
    with Memory.open(settings=small) as memory:
        _adopted(memory, range(count))
        seen = []
        while (summary := memory.reflect()).status == "done":
            seen.append(summary.episodes_seen)
        assert seen == [10, 10, 5]
        [[support]] = memory.cypher(
            "MATCH (a:Entity {name: 'Ana'})-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace "
            "RETURN f.support", namespace="default",
        ).rows  # fmt: skip
        assert support == count  # every episode supports "Ana -adopt-> dog number"


def test_reflection_reads_a_batch_in_the_order_it_occurred(settings: Settings) -> None:
    # Stamped apart in the order they occurred, not left to their random ids: the same
    # conversation stored twice is read in the same runs, and gives the same facts.
    turns = [{"content": f"I adopted dog number {n}.", "role": "Ana", "importance": 0.8,
              "occurred_at": f"2026-11-0{n + 1}T10:00:00Z"} for n in range(6)]  # fmt: skip
    with Memory.open(settings=settings.model_copy(update={"reflection_batch_size": 3})) as memory:
        memory.store_many(list(reversed(turns)))  # given newest first
        rows = memory.cypher("MATCH (ep:Episode) WHERE ep.namespace = $namespace "
                             "RETURN ep.id, ep.occurred_at, ep.created_at", namespace="default").rows
        by_time = sorted(rows, key=lambda row: row[1])
        stamps = [row[2] for row in by_time]
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
        assert memory.reflect().until_id == by_time[2][0]  # the first run read the three oldest


def test_a_fact_keeps_the_verb_its_statement_said_about_one_thing(tmp_path: Path) -> None:
    # "worked hard on" stays work_on beside "discussing" the same script, each with its own
    # sentence, never "discusses: I worked hard on".
    settings = Settings(data_dir=tmp_path)
    with Memory.open(settings=settings) as memory:
        for day, text in ((1, "I felt confident discussing my script with the producers."),
                          (2, "I worked hard on my script all week.")):
            memory.store(text, role="Joanna", occurred_at=f"2026-11-0{day}T10:00:00Z", importance=0.8)
        memory.reflect()
        facts = memory.cypher(
            "MATCH (a:Entity)-[f:FACT]->(b:Entity {name: 'script'}) WHERE a.namespace = $namespace "
            "RETURN f.predicate, f.statement ORDER BY f.predicate", namespace="default",
        ).rows  # fmt: skip
    assert facts == [["discuss", "I felt confident discussing my script with the producers."],
                     ["work_on", "I worked hard on my script all week."]]  # fmt: skip
