"""Which step fixed which failure (`engine.ingest.resolutions`): the cases a run's shape
decides, and properties over random runs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.ingest.resolutions import RunStep, derive_resolutions, failed
from engine.models import Resolution


def step(id: str, at: float, **fields: object) -> RunStep:
    return RunStep.model_validate({"id": id, "at": at, "kind": fields.pop("kind", "tool_call"), **fields})


def edges(run: list[RunStep], new: list[str] | None = None, existing: list[Resolution] | None = None):  # type: ignore[no-untyped-def]
    found, not_held = derive_resolutions(run, new if new is not None else [s.id for s in run], existing or [])
    return [(r.failure_id, r.fix_id, r.confirmed_by, r.held) for r in found], not_held


def test_the_change_between_a_failure_and_its_rerun_is_the_fix() -> None:
    run = [step("fail", 1, outcome="failure", tool="terraform", signature="error state lock"),
           step("look", 2, outcome="success", tool="shell"),
           step("unlock", 3, outcome="success", tool="terraform-admin"),
           step("apply", 4, outcome="success", tool="terraform")]  # fmt: skip
    assert edges(run)[0] == [("fail", "unlock", "apply", True)]


def test_a_retry_that_works_is_its_own_fix() -> None:
    run = [step("fail", 1, outcome="failure", tool="curl"), step("retry", 2, outcome="success", tool="curl")]
    assert edges(run)[0] == [("fail", "retry", None, True)]


def test_a_success_about_something_else_fixes_nothing() -> None:
    run = [step("fail", 1, outcome="failure", tool="mvn", entities=frozenset({"billing"})),
           step("other", 2, outcome="success", tool="npm", entities=frozenset({"web"}))]  # fmt: skip
    assert edges(run)[0] == []


def test_a_shared_entity_ties_a_success_to_the_failure() -> None:
    run = [step("fail", 1, outcome="failure", tool="helm", entities=frozenset({"billing"})),
           step("ok", 2, outcome="success", tool="kubectl", entities=frozenset({"billing"}))]  # fmt: skip
    assert edges(run)[0] == [("fail", "ok", None, True)]


def test_the_same_error_again_after_a_fix_shows_it_did_not_hold() -> None:
    run = [step("f1", 1, outcome="failure", tool="pytest", signature="pytest failed test_a"),
           step("patch", 2, outcome="success", tool="editor"),
           step("f2", 3, outcome="failure", tool="pytest", signature="pytest failed test_a"),
           step("patch2", 4, outcome="success", tool="editor"),
           step("ok", 5, outcome="success", tool="pytest")]  # fmt: skip
    found, _ = edges(run)
    assert ("f1", "patch", None, False) in found and ("f2", "patch2", "ok", True) in found


def test_a_later_recurrence_marks_an_earlier_fix_not_held() -> None:
    existing = [Resolution(failure_id="f1", fix_id="ok", at=2, derived_by="run")]
    run = [step("f1", 1, outcome="failure", tool="go", signature="undefined parsebatch"),
           step("ok", 2, outcome="success", tool="go"),
           step("f3", 5, outcome="failure", tool="go", signature="undefined parsebatch")]  # fmt: skip
    assert edges(run, ["f3"], existing)[1] == [("f1", "ok", "f3")]


def test_another_error_on_the_same_tool_means_the_first_was_got_past() -> None:
    run = [step("f1", 1, outcome="failure", tool="python", signature="modulenotfounderror yaml"),
           step("pip", 2, outcome="success", tool="pip"),
           step("f2", 3, outcome="failure", tool="python", signature="keyerror database_url")]  # fmt: skip
    assert edges(run)[0] == [("f1", "pip", "f2", True)]


def test_the_caller_names_the_fix_and_a_heading_is_no_step() -> None:
    run = [step("task", 0, kind="task", outcome="failure", heading=True),
           step("f", 1, outcome="failure", tool="kubectl"),
           step("note", 2, kind="message", resolves=("f",))]  # fmt: skip
    found, _ = edges(run)
    assert found == [("f", "note", None, True)]
    assert failed(step("x", 0, kind="tool_call", signature="http 500")) and not failed(step("y", 0, kind="message", signature="http 500"))


_TOOLS = ("git", "npm", "pip")
_SIGNATURES = (None, "error a", "error b")


@st.composite
def _runs(draw: st.DrawFn) -> list[RunStep]:
    size = draw(st.integers(1, 12))
    return [
        step(f"s{i}", float(draw(st.integers(0, 20))), outcome=draw(st.sampled_from(["success", "failure", None])),
             tool=draw(st.sampled_from(_TOOLS)), signature=draw(st.sampled_from(_SIGNATURES)))
        for i in range(size)
    ]  # fmt: skip


@settings(max_examples=200, deadline=None, derandomize=True)
@given(_runs(), st.data())
def test_every_fix_comes_after_its_failure_and_did_not_fail(run: list[RunStep], data: st.DataObject) -> None:
    new = data.draw(st.sets(st.sampled_from([s.id for s in run])))
    found, not_held = derive_resolutions(run, new, [])
    by_id = {s.id: s for s in run}
    order = {s.id: i for i, s in enumerate(sorted(run, key=lambda s: s.at))}
    assert len({r.failure_id for r in found}) == len(found)  # a failure is resolved once
    for edge in found:
        failure, fix = by_id[edge.failure_id], by_id[edge.fix_id]
        assert failed(failure) and not failed(fix) and fix.outcome != "failure"
        assert order[failure.id] < order[fix.id]
        assert edge.failure_id in new or edge.fix_id in new or (edge.confirmed_by or "") in new or edge.recurred_by in new
    for _, fix_id, recurred in not_held:
        assert failed(by_id[recurred]) and order[fix_id] < order[recurred]
    # A run read again with nothing new adds nothing.
    assert derive_resolutions(run, [], found) == ([], [])
