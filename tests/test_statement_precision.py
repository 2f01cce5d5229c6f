"""Statements a careful reader keeps and none they would not: what may, could or should be,
wishes, what the speaker no longer does, possessions that say nothing, a place a thing
happened in; and the objects, subjects and predicates of what is kept (a job's employer, the
role it is held as, a language, a team, a child named beside the word for them)."""

from __future__ import annotations

import pytest

from engine import Memory
from engine.reflect.run import party, statements_of


def _read(text: str) -> list[tuple[str, str, str, bool]]:
    [found] = statements_of([text], [None])
    return [(s.subject_kind, s.predicate, s.object_key, s.negated) for s in found]


@pytest.mark.parametrize(
    "text",
    [
        "If I won the lottery I would buy a boat.",
        "I wish I could play the piano.",
        "We could practice German together if you like.",
        "You should book the trains early.",
        "I used to love jazz.",
        "My apartment is tiny.",
        "My flight got cancelled again.",
        "I'll check whether they're open on Sundays.",
        "I might go to Paris.",
        "Maybe one day we will be able to watch the sunrise together.",
        "I decided to quit my job at Google.",
        "I'm going to quit my job at Google.",
        "Dance is my stress relief and fashion fuels my creativity.",
        "It's a deep and emotional story that I'm really excited about!",
        "They asked me to be a programming mentor for game developers.",
        "Working with artists and challenging myself to create special music are goals of mine.",
        "I'm experiencing a new level of joy and happiness!",
        "Maybe I'll start to think of a drama and publish my own screenplay.",
        "Sometimes we even left class early to skate.",
    ],
)
def test_what_states_nothing(text: str) -> None:
    assert _read(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll try Helm next week.", [("speaker", "plans_to", "helm", False)]),
        ("I hate yoga, to be honest.", [("speaker", "dislikes", "yoga", False)]),
        ("I switched from SQLite to DuckDB.", [("speaker", "switch_to", "duckdb", False)]),
        ("I just started a new job at Stripe.", [("speaker", "works_at", "stripe", False)]),
        ("I work at Google as a product manager.",
         [("speaker", "works_at", "google", False), ("speaker", "is", "product manager", False)]),
        ("I speak Portuguese and German.",
         [("speaker", "speak", "portuguese", False), ("speaker", "speak", "german", False)]),
        ("I'm a huge fan of AC/DC.", [("speaker", "likes", "ac/dc", False)]),
        ("Our team uses Grafana for dashboards.", [("speaker", "uses", "grafana", False)]),
        ("My son Leo joined the soccer team.",
         [("speaker", "has", "son", False), ("named", "join", "soccer team", False)]),
        ("I saw AC/DC in Berlin.", [("speaker", "see", "ac/dc", False)]),
        ("I'm thinking about switching to a standing desk.", [("speaker", "considers", "standing desk", False)]),
        ("We moved house and now live in Shanghai.", [("speaker", "lives_in", "shanghai", False)]),
        ("I can't stand long meetings.", [("speaker", "dislikes", "long meeting", False)]),
        # "decided to" chooses what it goes with or uses; any other deed it plans
        ("I decided to run for office next year.", [("speaker", "plans_to", "office", False)]),
        ("We decided to use Kubernetes for the Orion deployment.", [("speaker", "decided", "kubernetes", False)]),
        ("I'll be able to open my dance studio next month.", [("speaker", "plans_to", "dance studio", False)]),
        ("I'll leave for Paris tomorrow.", [("speaker", "plans_to", "paris", False)]),
        # a bare verb after a planned one is planned too; a love named inside a wish is a liking
        ("I'm planning to explore the city, try out local cuisines and collaborate with musicians.",
         [("speaker", "plans_to", "city", False), ("speaker", "plans_to", "local cuisine", False),
          ("speaker", "plans_to", "musician", False)]),
        ("I wanted to blend my love for dance and fashion.", [("speaker", "likes", "dance", False)]),
        ("I left Stripe in March.", [("speaker", "left", "stripe", False)]),
        ("I quit my job last week.", [("speaker", "left", "job", False)]),
        ("I lost my job at the mechanical engineering company.",
         [("speaker", "left", "mechanical engineering company", False)]),
        ("I'll visit Kyoto and see the temples.",
         [("speaker", "plans_to", "kyoto", False), ("speaker", "plans_to", "temple", False)]),
        ("I want to make the world better, and I will achieve my goal.", []),
        ("I love spending time with the friends I have.", [("speaker", "has", "friend", False)]),
        # a relative clause describes the noun right before it
        ("I'll send you some resources and tutorials on the techniques I learned.",
         [("speaker", "learn", "technique", False)]),
        ("The parade I went to last week was amazing.", [("speaker", "attended", "parade", False)]),
        # a capitalised name the parser reads as a verb is no predicate
        ("I play CS:GO, Valorant and Overwatch with my friends.",
         [("speaker", "play", "cs:go", False), ("speaker", "play", "valorant", False)]),
    ],
)  # fmt: skip
def test_what_is_kept(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    assert _read(text) == expected


def test_roles_are_no_subjects() -> None:
    assert [party(role, "the user") for role in ("user", "Human", "assistant", "AI", "Caroline", None)] == [
        "the user", "the user", None, None, "Caroline", None,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我们搬家了，现在住在上海。", [("speaker", "lives_in", "上海", False)]),
        ("我喜欢喜剧和爱情片，但是我讨厌恐怖片。",
         [("speaker", "likes", "喜剧", False), ("speaker", "likes", "爱情片", False),
          ("speaker", "dislikes", "恐怖片", False)]),
        ("我是AC/DC和齐柏林飞艇的铁杆粉丝。",
         [("speaker", "likes", "ac/dc", False), ("speaker", "likes", "齐柏林飞艇", False)]),
        ("我最喜欢的运动是网球。", [("speaker", "favorite_运动", "网球", False)]),
        ("读过，《火星救援》是我最喜欢的书。", [("speaker", "favorite_书", "火星救援", False)]),
        ("我在谷歌做产品经理。", [("speaker", "works_at", "谷歌", False), ("speaker", "is", "产品经理", False)]),
        ("我开始用多邻国学西班牙语了。", [("speaker", "uses", "多邻国", False), ("speaker", "learn", "西班牙语", False)]),
        ("我上个月领养了一只叫饼干的救助犬。", [("speaker", "adopt", "饼干", False)]),
        ("接下来我打算申请悉尼的一份研究工作。", [("speaker", "plans_to", "研究工作", False)]),
        ("我对花生和贝类过敏。", [("speaker", "allergic_to", "花生", False), ("speaker", "allergic_to", "贝类", False)]),
        ("我也不吃猪肉。", [("speaker", "eat", "猪肉", True)]),
        ("我去年把车卖了，现在到哪儿都骑自行车。", [("speaker", "sell", "车", False)]),
        ("我在考虑换一张站立式办公桌。", [("speaker", "considers", "站立式办公桌", False)]),
        ("我们团队用Grafana做监控面板。", [("speaker", "uses", "grafana", False)]),
        ("我的孩子们都喜欢游泳。", [("speaker", "has", "孩子们", False)]),
        ("上周我参加了一个读书会", [("speaker", "attended", "读书会", False)]),
    ],
)  # fmt: skip
def test_chinese_structures(text: str, expected: list[tuple[str, str, str, bool]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    ["我以前很喜欢爵士乐。", "我们可以一起练德语。", "真希望我会弹钢琴。", "你应该早点订火车票。", "我邻居刚买了一辆特斯拉。",
     "我会告诉我的读书会。", "我去东京的航班是6月3日。"],
)  # fmt: skip
def test_chinese_that_states_nothing(text: str) -> None:
    assert _read(text) == []


def test_reflection_keeps_what_is_worth_a_fact(memory: Memory) -> None:
    """True statements that say nothing worth remembering are no facts (engine/reflect/worth.py)."""
    for text in ("I made some goodies for my neighbors.", "We had a real battle against another team.",
                 "I grilled chicken with some veggies.", "We adopted another puppy called Pixie.",
                 "I've been plowing through.", "I went through a similar phase.", "I've been surfing a lot.",
                 "Lately I've been exploring options.", "I just like playing for fun!",
                 "Just started learning, but haven't gone yet."):  # fmt: skip
        memory.store(text, role="Audrey", importance=0.8)
    while memory.reflect().status != "nothing_new":
        pass
    rows = memory.cypher(
        "MATCH (a:Entity)-[f:FACT]->(b:Entity) WHERE a.namespace = $namespace RETURN f.predicate, b.name"
    ).rows
    assert sorted(tuple(row) for row in rows) == [("adopt", "Pixie"), ("does", "surfing"), ("grill", "chicken")]

