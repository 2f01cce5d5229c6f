"""A card says what the relative times in its words meant when they were said ("yesterday"
on 8 May 2023 is 7 May 2023), on every store; and a recall shows no card that repeats one
above it."""

from __future__ import annotations

from datetime import UTC, datetime

from engine import Memory

SAID = datetime(2023, 5, 8, 14, tzinfo=UTC).timestamp()  # a Monday


def test_a_card_names_the_days_its_words_mean(on_each_store: Memory) -> None:
    memory = on_each_store
    turns = {
        "I went to a support group yesterday and last week I ran a marathon.":
            [("yesterday", "7 May 2023"), ("last week", "the week before 8 May 2023")],
        "We fly to Tokyo next month.": [("next month", "June 2023")],
        "我上周三去了杭州，下个月初去北京。": [("上周三", "2023年5月3日"), ("下个月初", "2023年6月初")],
        "I painted the lake two years ago.": [("two years ago", "2021")],
        "I bought my partner a console on the 3rd, and joined a climbing gym last Tues.":
            [("on the 3rd", "3 May 2023"), ("last Tues", "2 May 2023")],
        "The roadmap is in the shared drive.": [],
        "然后天气就变冷了，目前天气很好。": [],  # "后天", "前天" inside other words
    }  # fmt: skip
    for text in turns:
        memory.store(text, occurred_at=SAID, importance=0.8)
    cards = memory.recall("support group Tokyo 杭州 lake roadmap 天气 console", top_k=10, layer="episodic")
    assert {card.content for card in cards} == set(turns)
    for card in cards:
        assert [(t.phrase, t.text) for t in card.times] == turns[card.content], card.content
        assert all(t.start < t.end and t.start.tzinfo is not None for t in card.times)
        # A time named is not when it was said: the card stays dated by its turn.
        assert card.occurred_at.timestamp() == SAID


def test_working_memory_cards_name_their_times_too(memory: Memory) -> None:
    note = memory.store("Yesterday we shipped the beta.", occurred_at=SAID, session_id="s", layer="working")
    [card] = [c for c in memory.recall("what did we ship?", session_id="s") if c.id == note.id]
    assert card.layer == "working" and [(t.phrase, t.text) for t in card.times] == [("Yesterday", "7 May 2023")]


def test_no_card_repeats_one_above_it(on_each_store: Memory) -> None:
    """A fact card drawn from one turn shown above it, or whose statement and sources a fact
    card above shows, is left out; so is a turn a fact card above states whole."""
    memory = on_each_store
    for n, text in enumerate(["I work at Google.", "We still had money left, so we bought groceries and cooked dinner.",
                              "I play the clarinet in a community band.", "I volunteer at the animal shelter."]):
        memory.store(text, role="Sam", session_id="s1", occurred_at=SAID + 60 * n, importance=0.8)  # fmt: skip
    while memory.reflect().status != "nothing_new":
        pass
    for question in ("Where does Sam work?", "What did Sam buy and cook?", "What does Sam play?",
                     "What does Sam do?", "Sam"):  # fmt: skip
        cards = memory.recall(question, top_k=8)
        shown: set[str] = set()
        said: set[tuple[str, tuple[str, ...]]] = set()
        for card in cards:
            if card.layer == "semantic":
                key = (card.metadata["statement"], tuple(sorted(card.related_ids)))
                sources = card.related_ids
                assert not (len(sources) == 1 and sources[0] in shown) and key not in said, (question, card.content)
                said.add(key)
            else:
                assert card.content not in {statement for statement, _ in said}, (question, card.content)
                shown.add(card.id)
    # The fact that answers comes first; the one-sentence turn it states is not shown again.
    first, *rest = memory.recall("Where does Sam work?", top_k=8)
    assert first.layer == "semantic" and first.metadata["object"] == "Google"
    assert all(card.content != "I work at Google." for card in rest)


def test_a_plans_fact_is_dated_by_the_time_to_come_it_names(memory: Memory) -> None:
    for n, text in enumerate(["I'm going to visit my sister in Denver next month.",
                              "I'm planning to run the Boston marathon next year."]):  # fmt: skip
        memory.store(text, role="Sam", occurred_at=SAID + n, importance=0.9)
    while memory.reflect().status != "nothing_new":
        pass
    dated = {card.metadata["object"]: card.occurred_at.date().isoformat()
             for card in memory.recall("What is Sam planning?", layer="semantic")}  # fmt: skip
    assert dated == {"sister": "2023-06-01", "Boston marathon": "2024-01-01"}
