"""bench.agent on a few kinds: the log is the same for a seed, each recurring kind's questions
are asked, and the run's report holds what docs/benchmarks.md shows."""

from __future__ import annotations

import json

import pytest

from bench.agent import main
from bench.agent_log import build_log, load


def test_the_log_is_the_same_for_a_seed_and_each_incident_is_a_task_run() -> None:
    errors, tasks = load()
    one, again = build_log(errors, tasks, seed=3), build_log(errors, tasks, seed=3)
    assert [(r.task, r.at, [s.content for s in r.steps]) for r in one.runs] == [
        (r.task, r.at, [s.content for s in r.steps]) for r in again.runs]  # fmt: skip
    incidents = [r for r in one.runs if r.kind]
    assert len({r.kind for r in incidents}) == len(one.splits) >= 30
    for run in incidents:
        roles = [s.role for s in run.steps]
        assert roles.count("failure") == 1 and roles.index("failure") < roles.index("fix") < roles.index("verify")
    recurring = {k for k, plan in tasks["recurring"].items() if len(plan) > 1}
    assert {q.kind for q in one.questions if q.form == "lesson"} == recurring
    pasted = {q.kind: q.text for q in one.questions if q.form == "paste"}
    for kind in errors["kinds"]:  # the question pastes the third run, which the log never stores
        third = kind["runs"][2]["output"]
        assert third in pasted[kind["kind"]]
        if third not in (kind["runs"][0]["output"], kind["runs"][1]["output"]):  # a tool may print the same
            assert all(third not in s.content for r in incidents if r.kind == kind["kind"] for s in r.steps)


def test_a_quick_run_reports_every_measure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--kinds", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    overall = result["hindsight"]["all"]
    assert overall["questions"] > 0 and overall["fix@1"] is not None and overall["fix@3"] >= overall["fix@1"]
    assert result["bm25"]["all"]["questions"] == overall["questions"]
    assert result["junk_facts"] == 0 and result["reflection_episodes_per_s"] > 0
