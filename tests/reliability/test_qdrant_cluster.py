"""hindsight on a three-node Qdrant cluster: three processes of the server binary in distributed
mode on loopback, collections sharded over them with two copies of each shard.

A conversation is stored through the cluster and one node other than the one the client talks
to is killed with SIGKILL half-way: the stores and recalls go on, no acknowledged episode is
lost, every question recalls what it recalls on a single node, and the node started again
catches up (its shards hold what was written while it was dead, shown by killing another node
and recalling the same). The graph is Ladybug, and Neo4j where NEO4J_URI names one.

Needs the Qdrant server binary (QDRANT_BIN, else ../shared/tools/qdrant/qdrant): without it
these cases skip, and fail when HINDSIGHT_REQUIRE_LIVE names `qdrant-cluster` (CI).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient

from engine import Memory
from tests.backends import BACKENDS, open_settings, unavailable
from tests.qdrant_nodes import Node, binary, start_cluster

SESSIONS: list[list[str]] = [
    [
        "Marta: The Harbour Players will stage The Tempest in the old ferry terminal this autumn.",
        "Jonas: I can build the shipwreck set from the pallets the boatyard gave us.",
        "Marta: Rehearsals are Tuesday and Thursday evenings, seven to ten.",
        "Jonas: Who plays Prospero? Last year Ilse said she wanted a bigger part.",
        "Marta: Ilse reads for Prospero on Saturday; Ravi reads for Caliban.",
        "Jonas: The terminal has no heating, so the audience will need blankets in October.",
        "Marta: The council lends us two gas heaters if we file the safety form by the 20th.",
        "Jonas: I will file the safety form myself, I still have the fire officer's number.",
    ],
    [
        "Ilse: The Prospero reading went well, Marta offered me the part.",
        "Ravi: I got Caliban. I need a costume that looks like seaweed and old rope.",
        "Ilse: My aunt Beatriz sews; she made the costumes for the carnival band.",
        "Ravi: Beatriz wants the fabric by next Friday and a budget of 300 euros.",
        "Ilse: The lighting desk from the school hall can be borrowed for the run.",
        "Ravi: Its cable is too short for the terminal, we need a 40 metre extension.",
        "Ilse: Jonas has a drum of cable in the boatyard shed.",
        "Ravi: Tickets go on sale on the first of September at the library desk.",
    ],
    [
        "Jonas: The safety form is filed; the fire officer visits on the 2nd of October.",
        "Marta: Good. The fire officer wants the exits marked and lit during the show.",
        "Jonas: The pallets for the set are treated with fire retardant now.",
        "Marta: Ferdinand will be played by Tomasz, who moved here from Gdansk.",
        "Jonas: Tomasz sang in a choir, so he could lead the sailors' song in act two.",
        "Marta: The sailors' song needs an accordion; Ilse's neighbour plays one.",
        "Jonas: The terminal's roof leaks over the left wing of the stage.",
        "Marta: Put a tarpaulin over the left wing until the harbour master fixes the roof.",
    ],
    [
        "Ravi: The seaweed costume is finished, it weighs nearly four kilos.",
        "Ilse: Beatriz spent 280 of the 300 euros, the rest goes to face paint.",
        "Ravi: The accordion player is called Henrik and he can come to every show.",
        "Ilse: Henrik wants the song transposed down a tone for his instrument.",
        "Ravi: Tomasz is fine with the lower key, he sings baritone anyway.",
        "Ilse: The library sold 120 tickets on the first day.",
        "Ravi: The opening night is sold out; Marta is adding a Sunday matinee.",
        "Ilse: The matinee needs a second usher; my cousin Noor volunteers.",
    ],
    [
        "Marta: 剧团下周六在渡轮码头办一次开放排练，欢迎邻居来看。",
        "Jonas: 开放排练那天我负责搭舞台的灯光。",
        "Marta: 港务长答应在十月前修好左侧屋顶的漏水。",
        "Jonas: 首演后我们在码头咖啡馆聚餐，预算是每人十五欧元。",
        "Marta: Noor will run the matinee door and count the blankets back in.",
        "Jonas: The fire officer passed the exits but asked for a second extinguisher.",
        "Marta: Buy the extinguisher at the hardware shop on Quay Street.",
        "Jonas: Done, it cost 45 euros and it hangs by the right exit.",
    ],
    [
        "Ilse: Opening night went well, the shipwreck set got applause on its own.",
        "Ravi: The left wing stayed dry, the harbour master fixed the roof in time.",
        "Ilse: Henrik's accordion broke a strap during the storm scene.",
        "Ravi: Beatriz stitched the strap back before the second act.",
        "Ilse: Next season Marta wants to stage Twelfth Night in the fish market.",
        "Ravi: The fish market smells of fish in summer, so spring is better.",
        "Ilse: We should ask the council about the fish market in January.",
        "Ravi: I will write to the council, I know the culture officer.",
    ],
]
QUESTIONS = [
    "Who plays Prospero?",
    "How much did the Caliban costume cost?",
    "When does the fire officer visit?",
    "What did we do about the roof leak over the left wing?",
    "Who plays the accordion in the sailors' song?",
    "Where are the tickets sold?",
    "What is the next play and where?",
    "Who sews the costumes?",
    "开放排练是什么时候？",
    "首演后聚餐的预算是多少？",
]
KILL_AFTER = 3  # sessions stored before a node dies
TOP = 5
DAYS = ["2026-06-02", "2026-06-09", "2026-06-16", "2026-06-23", "2026-06-30", "2026-10-12"]


def _turns(session: int) -> list[dict[str, Any]]:
    return [
        {"content": text, "namespace": "players", "session_id": f"s{session}",
         "occurred_at": f"{DAYS[session]}T19:{minute:02d}:00Z", "importance": 0.5}
        for minute, text in enumerate(SESSIONS[session])
    ]  # fmt: skip


def _qdrant() -> Path:
    found = binary()
    if found is None:
        unavailable("no Qdrant server binary (QDRANT_BIN, ../shared/tools/qdrant/qdrant): "
                    "no cluster to run these cases on", "qdrant-cluster")  # fmt: skip
    return found


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[list[Node]]:
    nodes = start_cluster(_qdrant(), tmp_path / "cluster", 3)
    yield nodes
    for node in nodes:
        node.stop()


@pytest.fixture
def single(tmp_path: Path) -> Iterator[Node]:
    node = Node(_qdrant(), tmp_path / "single")
    node.start()
    yield node
    node.stop()


def _open(backend: str, node: Node, data_dir: Path, **overrides: Any) -> Memory:
    return Memory.open(settings=open_settings(
        backend, data_dir, vector_store="qdrant", qdrant_url=node.url, qdrant_grpc_port=node.grpc,
        qdrant_collection_prefix="players", importance_threshold=0.0, **overrides))  # fmt: skip


def _recalls(memory: Memory) -> list[list[str]]:
    """Each question's top cards, by what they say (ids differ between two stores)."""
    return [[card.content for card in memory.recall(q, namespace="players", top_k=TOP, include_shared=False)]
            for q in QUESTIONS]  # fmt: skip


def _caught_up(nodes: list[Node]) -> bool:
    """Every replica of every collection active, and the copies of each shard the same size."""
    for node in nodes:
        collections = node.get("/collections")
        if collections is None:
            return False
        for collection in collections["collections"]:
            sizes: dict[int, set[int]] = {}
            for peer in nodes:
                info = peer.get(f"/collections/{collection['name']}/cluster")
                if info is None or info["shard_transfers"]:
                    return False
                if any(shard["state"] != "Active" for shard in info["local_shards"] + info["remote_shards"]):
                    return False
                for shard in info["local_shards"]:
                    sizes.setdefault(shard["shard_id"], set()).add(shard["points_count"])
            if any(len(counts) != 1 for counts in sizes.values()):
                return False
    return True


def test_collections_are_sharded_over_the_nodes_with_two_copies(cluster: list[Node], tmp_path: Path) -> None:
    with _open("embedded", cluster[0], tmp_path / "data") as memory:
        memory.store_many(_turns(0))
    client = QdrantClient(url=cluster[0].url, check_compatibility=False)
    try:
        names = [c.name for c in client.get_collections().collections]
        assert len(names) == 3  # episodes, facts, digests
        for name in names:
            params = client.get_collection(name).config.params
            assert (params.shard_number, params.replication_factor) == (3, 2)
            holders: dict[int, set[int]] = {}
            for node in cluster:
                info = node.get(f"/collections/{name}/cluster")
                for shard in info["local_shards"]:
                    holders.setdefault(shard["shard_id"], set()).add(info["peer_id"])
            assert sorted(holders) == [0, 1, 2]
            assert all(len(peers) == 2 for peers in holders.values())
            assert len(set().union(*holders.values())) == 3  # every node holds some shard
    finally:
        client.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_node_killed_mid_conversation_loses_nothing_and_recalls_the_same(
    backend: str, cluster: list[Node], single: Node, tmp_path: Path
) -> None:
    with _open(backend, single, tmp_path / "one-node") as memory:
        for session in range(len(SESSIONS)):
            memory.store_many(_turns(session))
        expected = _recalls(memory)

    acknowledged: list[str] = []
    with _open(backend, cluster[0], tmp_path / "cluster-data") as memory:
        for session in range(len(SESSIONS)):
            if session == KILL_AFTER:
                cluster[2].kill()
            acknowledged += [r.id for r in memory.store_many(_turns(session)) if r.status == "stored"]
        assert len(acknowledged) == sum(map(len, SESSIONS))
        assert _recalls(memory) == expected
        report = memory.doctor()
        assert (report.episodes, report.vector_points) == (len(acknowledged), len(acknowledged))
        assert report.ok, report
        assert [memory.get(i, namespace="players").id for i in acknowledged] == acknowledged

        cluster[2].start()
        cluster[0].wait_until(lambda: _caught_up(cluster), "caught up")
        # The restarted node now holds the only copy of the shards it shared with node 1.
        cluster[1].kill()
        assert _recalls(memory) == expected
        assert memory.doctor().ok


def test_a_request_while_the_server_restarts_waits_for_it(single: Node, tmp_path: Path) -> None:
    with _open("embedded", single, tmp_path / "data", qdrant_request_attempts=10) as memory:
        memory.store_many(_turns(0))
        single.kill()
        restarting = threading.Thread(target=single.start)
        restarting.start()
        try:
            stored = memory.store_many(_turns(1))
        finally:
            restarting.join()
        assert all(r.status == "stored" for r in stored)
        assert memory.doctor().ok
        assert memory.recall("Who got the Caliban part?", namespace="players", top_k=1)[0].content == SESSIONS[1][1]
