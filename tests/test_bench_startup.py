"""bench.startup runs end to end on this machine: real processes, a real stdio server."""

from __future__ import annotations

import pytest

from bench.startup import run, table


def test_the_startup_bench_measures_every_step() -> None:
    result = run(runs=1, wait=0.0)
    timed = ("bare_interpreter_s", "import_engine_s", "help_s", "stdio_initialize_s", "first_store_s", "later_store_s",
             "paused_store_s", "first_store_at_once_s", "cli_store_s")  # fmt: skip
    assert all(result[name] > 0 for name in timed)
    assert result["first_over_later"] == pytest.approx(result["first_store_s"] / result["later_store_s"], rel=0.05)
    assert result["first_over_paused"] == pytest.approx(result["first_store_s"] / result["paused_store_s"], rel=0.05)
    assert "| `hindsight --help` |" in table(result) and "one-off" in table(result)
