"""Round trips to Neo4j per recall, counted on the wire by a relay between the driver and the
server: a user of a distant server (Aura, another zone) waits for each. A recall reads the
entities it names, one statement per hop of graph expansion and one for what the cards need,
so at most four, whatever the question; the embedded store gives the same cards (the
congruence tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from engine import Memory
from tests.backends import live, open_settings
from tests.roundtrips import RoundTrips

pytestmark = pytest.mark.neo4j

TURNS = [
    ("Alice said the Atlas launch slipped by ten days.", "s1"),
    ("Bob benchmarked PostgreSQL for the Atlas backend and it held up.", "s1"),
    ("We decided to move the Atlas database to PostgreSQL.", "s1"),
    ("What did Bob think of the Kestrel vendor contract?", "s2"),
    ("Bob thinks the Kestrel budget review is blocked by the vendor contract.", "s2"),
    ("I work at Google as a data engineer.", "s2"),
    ("My sister Ana works at Microsoft.", "s3"),
    ("Dana needs to finish the security audit before the Orion demo.", "s3"),
    ("Dana and Alice met about the Orion demo and the Atlas launch.", "s3"),
]
QUESTIONS = [
    "What did Alice say about Atlas?",  # named entities, two hops of expansion
    "Where does Sam work?",  # a fact the question asks for
    "What is blocked by the vendor contract?",  # no entity named
    "What did Bob think of the vendor contract?",  # a question turn and its reply
    "what did we decide about the database",
]


@pytest.fixture
def relayed(tmp_path: Path) -> Iterator[tuple[Memory, RoundTrips]]:
    server = urlparse(live("NEO4J_URI", "Neo4j server"))
    with RoundTrips(server.hostname or "127.0.0.1", server.port or 7687) as relay:
        # Access marks are written after the answer, on a thread of their own: not recall's.
        settings = open_settings("neo4j", tmp_path, neo4j_uri=f"bolt://127.0.0.1:{relay.port}", track_access=False)
        memory = Memory.open(settings=settings)
        try:
            yield memory, relay
        finally:
            memory.close()


def test_a_recall_takes_at_most_four_round_trips(relayed: tuple[Memory, RoundTrips]) -> None:
    memory, relay = relayed
    for day, (text, session) in enumerate(TURNS):
        memory.store(text, role="Sam", session_id=session, occurred_at=1_750_000_000 + day * 3600, importance=0.8)
    while memory.reflect().status != "nothing_new":
        pass
    memory.end_session("s3")
    for question in QUESTIONS:  # the driver's pool opens its connections
        memory.recall(question)
    counted, channels, layers = {}, set(), set()
    for question in QUESTIONS:
        relay.reset()
        cards = memory.recall(question)
        counted[question] = relay.count
        channels |= {hit.channel for card in cards if card.trace for hit in card.trace.channels}
        layers |= {card.layer for card in cards}
    # What was counted did read: graph expansion, entities named, fact cards.
    assert {"graph", "entity", "vector"} <= channels and "semantic" in layers
    assert min(counted.values()) >= 1 and max(counted.values()) <= 4, counted
