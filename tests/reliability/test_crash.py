"""Crash safety: a child process storing batches is killed with SIGKILL at random points.
After reopening, every episode whose `store_many` returned is present and recallable, and
`doctor` finds the graph and the vectors in agreement (or repairs them, then agrees)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Memory
from tests.backends import BACKENDS, backend_env, open_settings

ROOT = Path(__file__).parent.parent.parent
RUNS = 4


def _run_and_kill(data_dir: Path, run: int, rng: random.Random, env: dict[str, str]) -> list[str]:
    """Start the child, let it acknowledge a few batches, kill it mid-work; the ids it acked."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.crash_child", str(data_dir), str(run)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", **env},
    )  # fmt: skip
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    acknowledged: list[str] = []
    batches = rng.randint(1, 6)
    for _ in range(batches):
        acknowledged += process.stdout.readline().split()
    time.sleep(rng.uniform(0.0, 0.25))  # somewhere inside the next batch
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    # Lines written before the kill were acknowledged too.
    for line in process.stdout.read().splitlines():
        acknowledged += line.split()
    process.stdout.close()
    return acknowledged


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigkill_at_random_points_loses_nothing_acknowledged(backend: str, tmp_path: Path) -> None:
    rng = random.Random(7)
    data_dir = tmp_path / "data"
    settings = open_settings(backend, data_dir)
    acknowledged: list[str] = []
    for run in range(RUNS):
        acknowledged += _run_and_kill(data_dir, run, rng, backend_env(backend, data_dir))
        with Memory.open(settings=settings) as memory:
            report = memory.doctor()
            if not report.ok:  # a batch cut off between graph and vectors: repair, then agree
                memory.doctor(repair=True)
                report = memory.doctor()
            assert report.ok, report
            stored = {i: memory.get(i) for i in acknowledged}  # NotFound fails the test
            # Nothing half-written: every stored episode is whole and findable by its token.
            for episode_id in rng.sample(acknowledged, min(5, len(acknowledged))):
                episode = stored[episode_id]
                token = episode.content.split("token ")[1].split()[0]
                cards = memory.recall(token, top_k=3)
                assert episode_id in [c.id for c in cards], (token, [c.content for c in cards])
                assert memory.explain(episode_id).entities
    assert len(acknowledged) >= RUNS * 8


def test_a_torn_write_ahead_log_tail_loses_only_the_unfinished_commit(tmp_path: Path) -> None:
    """What a kill inside a commit leaves: bytes of a record that never finished at the end of
    the embedded graph's WAL. The graph opens with everything committed before it."""
    settings = open_settings("embedded", tmp_path / "data")
    with Memory.open(settings=settings) as memory:
        kept = memory.store("Dana met Sam in Berlin about the Orion launch.", importance="high")
    with open(tmp_path / "data" / "graph.wal", "ab") as wal:
        wal.write(random.Random(3).randbytes(3000))
    with Memory.open(settings=settings) as memory:
        assert memory.get(kept.id).content == "Dana met Sam in Berlin about the Orion launch."
        assert [c.id for c in memory.recall("Where did Dana meet Sam?")] == [kept.id]
