"""Error signatures (`engine.signatures`), on error texts written for these tests from tools
and languages the benchmark's recorded errors do not come from (Java, Go, Ruby, Terraform,
the AWS CLI, Kubernetes, Postgres's server, a Chinese agent's notes), and as properties: one
error with other volatile parts has one signature; two errors that differ in what they say
have two."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.signatures import error_signature, normalise_volatile, query_keys
from engine.work import episode_signature, stated_signature

# (text, the signature's name)
WRITTEN = [
    ('Exception in thread "main" java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null\n'
     "\tat com.acme.Billing.total(Billing.java:42)",
     'NullPointerException: Cannot invoke "String.length()" because "name" is null'),
    ("panic: runtime error: index out of range [5] with length 3\n\ngoroutine 1 [running]:\nmain.main()\n"
     "\t/src/app/main.go:12 +0x1d", "panic: runtime error: index out of range [<*>] with length <*>"),
    ("app/models/user.rb:12:in `full_name': undefined method `upcase' for nil:NilClass (NoMethodError)",
     "NoMethodError: undefined method `upcase' for nil:NilClass"),
    ('Error: Error acquiring the state lock\n\nLock Info:\n  ID: 8c1f2a9e-3b4d-4e5f-9a0b-1c2d3e4f5a6b',
     "error: Error acquiring the state lock"),
    ("An error occurred (AccessDenied) when calling the PutObject operation: Access Denied",
     "aws AccessDenied: PutObject: Access Denied"),
    ('ERROR:  relation "invoices" does not exist at character 15', 'error: relation "invoices" does not exist at character <*>'),
    ("Back-off restarting failed container api in pod api-7f9c8d6b5-x2k4q (CrashLoopBackOff)",
     "error: Back-off restarting failed container api in pod api-<*> (CrashLoopBackOff)"),
    ("部署到预发环境失败，报错：连接 10.0.3.7:6379 超时", "报错: 连接 <host> 超时"),
    ("运行迁移脚本时报错 KeyError: 'DATABASE_URL'", "KeyError: 'DATABASE_URL'"),
    ("接口返回 401，提示 Unauthorized", "HTTP 401: Unauthorized"),
]


@pytest.mark.parametrize(("text", "name"), WRITTEN)
def test_written_errors_have_their_signature(text: str, name: str) -> None:
    found = error_signature(text)
    assert found is not None and found.name == name, (text, found)


@pytest.mark.parametrize(
    "text",
    [
        "Deployed billing-api 3.8.1 to staging in 42 s",
        "12 passed, 0 failed in 3.2s",  # read plainly, "failed" is no error here
        "We decided to retry the import tomorrow.",
        "今天的部署很顺利，没有报警。",
    ],
)
def test_a_tool_call_without_an_error_has_no_signature(text: str) -> None:
    assert episode_signature(text, kind="tool_call", outcome=None, role="shell", metadata={}) is None


def test_a_success_and_a_chat_turn_have_no_signature() -> None:
    error = "KeyError: 'DATABASE_URL'"
    assert episode_signature(error, kind="tool_call", outcome="success", role="python", metadata={}) is None
    assert episode_signature(error, kind="message", outcome=None, role="user", metadata={}) is None
    failed = episode_signature("the job stopped", kind="task", outcome="failure", role="cron", metadata={"exit_code": 137})
    assert failed is not None and failed.name == "cron exit 137"


def test_a_question_that_pastes_an_error_names_its_keys() -> None:
    keys = query_keys("Seeing java.lang.IllegalStateException: Pool closed again in the worker, how did we fix it?")
    assert "illegalstateexception pool closed" in keys and keys[-1] == "illegalstateexception"
    assert query_keys("Why did the deploy fail on Friday?") == []  # says something failed, pastes nothing


def test_a_stated_lesson_names_the_error_it_is_about() -> None:
    found = stated_signature("Lesson: when Redis answers OOM command not allowed, raise maxmemory.")
    assert found is None  # no error it prints
    found = stated_signature("教训：遇到 HTTP 503 Service Unavailable 时先等索引预热完成。")
    assert found is not None and found.name == "HTTP 503: Service Unavailable"


_WORD = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=9)
# The parts of an error that change from one occurrence to the next.
# The kinds of part that change from one occurrence to the next; a slot holds one kind.
_VOLATILE = [
    st.uuids().map(str),
    st.integers(min_value=0, max_value=10**9).map(str),
    st.builds(lambda a, b: f"127.0.{a}.{b}:{a * 100 + b + 1024}", st.integers(0, 255), st.integers(1, 254)),
    _WORD.map(lambda folder: f"/tmp/{folder}/job.py"),  # the folder changes, the file is the error's
    st.binary(min_size=4, max_size=10).map(lambda b: b.hex()),
    st.builds(lambda h, m: f"2026-11-{h % 28 + 1:02d}T{h % 24:02d}:{m:02d}:07Z", st.integers(0, 999), st.integers(0, 59)),
]


@st.composite
def _occurrences(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Two fillings of three slots, each slot of one kind."""
    kinds = [draw(st.sampled_from(_VOLATILE)) for _ in range(3)]
    return [draw(kind) for kind in kinds], [draw(kind) for kind in kinds]
_TEMPLATES = [
    "Traceback (most recent call last):\n  File \"{0}\", line 4\nConnectionError: cannot reach queue at {1} after {2} tries",
    '{{"error": "job {0} was cancelled by {1}"}}curl: (22) The requested URL returned error: 409',
    "npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/left-pad failed, reason: {0} {1} {2}",
    "deploy {0} failed: timeout waiting for {1} after {2} seconds",
]


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.sampled_from(_TEMPLATES), _occurrences())
def test_one_error_with_other_volatile_parts_has_one_signature(template: str, fillings: tuple[list[str], list[str]]) -> None:
    one, other = fillings
    first = error_signature(template.format(*one), exit_code=1)
    second = error_signature(template.format(*other), exit_code=1)
    assert first is not None and second is not None
    assert first.key == second.key, (first.name, second.name)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(_WORD, _WORD)
def test_errors_that_say_different_things_have_different_signatures(a: str, b: str) -> None:
    if a == b:
        return
    first = error_signature(f"ModuleNotFoundError: No module named '{a}'")
    second = error_signature(f"ModuleNotFoundError: No module named '{b}'")
    assert first is not None and second is not None and first.key != second.key


def test_normalising_keeps_what_an_error_says() -> None:
    said = normalise_volatile("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 13")
    assert "'utf-8' codec can't decode byte" in said and "13" not in said
