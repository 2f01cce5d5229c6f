"""The agent's log that bench.agent stores, and the questions it asks of it.

Built from two files: the error texts real commands printed (`agent_errors.json`, recorded by
`bench.record_agent_errors`, three runs of each kind) and the tasks written for them
(`agent_tasks.json`: the task, how a person names the problem, the step that fixed it, the run
that showed it fixed; which kinds recur and how the later occurrences were fixed). Seeded and
deterministic: the same files give the same log.

Each occurrence of an incident is a task run (`Memory.store_task`): its heading, a routine
step or two, the failing step (a recorded run of the kind: its first two runs go to the log),
a look around, the fix, the check that passed, and perhaps a routine step after. Task runs
with routine steps only come between them. Every run is a session of its own, a few hours
after the one before; some begin with the user's request in the chat. Chinese kinds have
their task (and a question) in Chinese; tools print English.

Questions, asked once the log is stored, for each kind's latest occurrence: the third
recorded run of its error pasted with "how did we fix it last time?"; the problem in a
person's words ("how did we get past X last time?"); for Chinese kinds their question; and for
recurring kinds "what have we learned about X?". The expected answer is the fix of the latest
occurrence.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["AgentLog", "Question", "Run", "build_log", "load"]

DATA = Path(__file__).parent / "data"
_START = datetime(2026, 9, 1, 8, tzinfo=UTC)


@dataclass
class Step:
    content: str
    tool: str
    outcome: str
    role: str  # what the step is in the run: routine, failure, diagnose, fix, verify
    at: float


@dataclass
class Run:
    """One task run: its heading and its steps; for an incident, its kind and occurrence."""

    session: str
    task: str
    outcome: str
    steps: list[Step]
    at: float
    kind: str | None = None
    occurrence: int = 0
    request: str | None = None  # the user's chat message that asked for it


@dataclass
class Question:
    kind: str
    form: str  # paste, words, chinese, lesson
    text: str
    split: str
    replaced: bool  # the kind's latest fix is another than an earlier one


@dataclass
class AgentLog:
    runs: list[Run] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    splits: dict[str, str] = field(default_factory=dict)  # kind -> dev or test


def load(data: Path = DATA) -> tuple[dict[str, Any], dict[str, Any]]:
    errors = json.loads((data / "agent_errors.json").read_text(encoding="utf-8"))
    tasks = json.loads((data / "agent_tasks.json").read_text(encoding="utf-8"))
    return errors, tasks


def _stamp(moment: datetime) -> float:
    return moment.timestamp()


def build_log(errors: dict[str, Any], tasks: dict[str, Any], *, seed: int = 7, kinds: int | None = None) -> AgentLog:
    """The log and its questions (see the module's docstring); of the first `kinds` kinds only,
    when given (a quick run)."""
    rng = random.Random(seed)
    recorded = {k["kind"]: k for k in errors["kinds"][:kinds] if k["kind"] in tasks["kinds"]}
    plans = {kind: tasks["recurring"].get(kind, ["fix"]) for kind in recorded}
    occurrences = [(kind, n) for kind, plan in plans.items() for n in range(len(plan))]
    # Every kind's first occurrence in the first half, the recurrences spread after it.
    firsts = [o for o in occurrences if o[1] == 0]
    later = [o for o in occurrences if o[1] > 0]
    rng.shuffle(firsts)
    rng.shuffle(later)
    order = firsts[: len(firsts) // 2] + sorted(firsts[len(firsts) // 2 :] + later, key=lambda _: rng.random())
    order = _after_their_firsts(order)
    routine_tasks = tasks["routine_tasks"]
    log = AgentLog(splits={kind: recorded[kind].get("split", "dev") for kind in recorded})
    clock = _START
    for kind, occurrence in order:
        for _ in range(rng.choice((0, 1, 1, 2))):
            clock += timedelta(hours=rng.uniform(2, 9))
            log.runs.append(_routine_run(rng, tasks, routine_tasks, clock, len(log.runs)))
        clock += timedelta(hours=rng.uniform(2, 9))
        log.runs.append(_incident_run(rng, tasks, recorded[kind], plans[kind][occurrence], occurrence, clock,
                                      len(log.runs)))  # fmt: skip
    log.questions = _questions(tasks, recorded, plans, log.splits)
    return log


def _after_their_firsts(order: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The order with each kind's occurrences in their own order (a recurrence after the first)."""
    counts: dict[str, int] = {}
    fixed = []
    for kind, _ in order:
        fixed.append((kind, counts.get(kind, 0)))
        counts[kind] = counts.get(kind, 0) + 1
    return fixed


def _routine_run(rng: random.Random, tasks: dict[str, Any], names: list[str], clock: datetime, index: int) -> Run:
    steps = [_step(rng.choice(tasks["routine"]), "success", "routine", clock, i) for i in range(rng.randint(2, 4))]
    return Run(session=f"run-{index:03d}", task=rng.choice(names), outcome="success", steps=steps, at=_stamp(clock))


def _step(spec: dict[str, str], outcome: str, role: str, clock: datetime, position: int) -> Step:
    return Step(content=spec["content"], tool=spec["tool"], outcome=outcome, role=role,
                at=_stamp(clock + timedelta(seconds=40 * (position + 1))))  # fmt: skip


def _incident_run(
    rng: random.Random, tasks: dict[str, Any], kind: dict[str, Any], fix_name: str, occurrence: int,
    clock: datetime, index: int,
) -> Run:  # fmt: skip
    spec = tasks["kinds"][kind["kind"]]
    chinese = tasks["chinese"].get(kind["kind"])
    failing = kind["runs"][occurrence % 2]  # the third run is kept for the questions
    plan: list[tuple[dict[str, str], str, str]] = [(rng.choice(tasks["routine"]), "success", "routine")
                                                   for _ in range(rng.randint(0, 2))]  # fmt: skip
    plan.append(({"tool": kind["tool"], "content": f"{kind['command']}\n{failing['output']}"}, "failure", "failure"))
    if "diagnose" in spec:
        plan.append((spec["diagnose"], "success", "diagnose"))
    plan.append((spec[fix_name], "success", "fix"))
    plan.append((spec["verify"], "success", "verify"))
    plan += [(rng.choice(tasks["routine"]), "success", "routine") for _ in range(rng.randint(0, 1))]
    task = chinese["task"] if chinese else spec["task"]
    request = f"Please {spec['task'][0].lower()}{spec['task'][1:]}." if rng.random() < 0.35 and not chinese else None
    return Run(session=f"run-{index:03d}", task=task, outcome="success",
               steps=[_step(s, o, r, clock, i) for i, (s, o, r) in enumerate(plan)], at=_stamp(clock),
               kind=kind["kind"], occurrence=occurrence, request=request)  # fmt: skip


def _questions(
    tasks: dict[str, Any], recorded: dict[str, Any], plans: dict[str, list[str]], splits: dict[str, str]
) -> list[Question]:
    questions = []
    for name, kind in recorded.items():
        spec, plan, split = tasks["kinds"][name], plans[name], splits[name]
        replaced = len(set(plan)) > 1 and plan[-1] != plan[0]
        pasted = f"{kind['command']}\n{kind['runs'][2]['output']}\n\nThis error again. How did we fix it last time?"
        questions.append(Question(name, "paste", pasted, split, replaced))
        questions.append(Question(name, "words", f"How did we get past {spec['subject']} last time?", split, replaced))
        if name in tasks["chinese"]:
            questions.append(Question(name, "chinese", tasks["chinese"][name]["question"], split, replaced))
        if len(plan) > 1:
            questions.append(Question(name, "lesson", f"What have we learned about {spec['subject']}?", split, replaced))
    return questions
