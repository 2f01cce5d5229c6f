"""An agent's work as its episodes tell it: the tool of a step and the error signature it
shows. Pure; shared by ingest (which links failures to their signatures and fixes), recall
and reflection (which reads them back from stored episodes the same way)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from engine.signatures import Signature, error_signature

__all__ = ["WORK_KINDS", "episode_signature", "first_line", "stated_signature", "tool_of"]

# The kinds of episode that record work: a tool call, and a task with its outcome.
WORK_KINDS = frozenset({"tool_call", "task"})
# A lesson's own label ("Lesson:", "Takeaway:", "教训："): not the tool that printed its error.
_LABEL = re.compile(r"^\s*\w{1,12}\s*[:：]\s*(?=\S)")
# Rules too loose for a text whose caller gave no outcome: a routine output that says "0 failed"
# or "retry after timeout" is no error.
_LOOSE_RULES = frozenset({"soft"})


_LINE_CHARS = 120


def first_line(text: str) -> str:
    """A step's first line, cut to a lesson's length: what was run or done.

    >>> first_line("\\n  pip install ruamel.yaml\\nSuccessfully installed")
    'pip install ruamel.yaml'
    """
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= _LINE_CHARS else line[: _LINE_CHARS - 1] + "…"


def tool_of(role: str | None, metadata: Mapping[str, Any]) -> str | None:
    """The tool an episode is a call of: metadata's `tool`, else its role.

    >>> tool_of("assistant", {"tool": "pip"}), tool_of("pytest", {}), tool_of(None, {"tool": 3})
    ('pip', 'pytest', None)
    """
    named = metadata.get("tool")
    if isinstance(named, str) and named.strip():
        return named.strip()
    return role


def episode_signature(
    content: str, *, kind: str, outcome: str | None, role: str | None, metadata: Mapping[str, Any]
) -> Signature | None:
    """The error signature an episode shows: any rule's for a failure; for a tool call or task
    whose caller gave no outcome, only a rule that reads an error plainly (an exception, a
    status, an error code); none for a success or a chat turn. `metadata.exit_code`, when an
    integer, names the exit where nothing else does.

    >>> episode_signature("KeyError: 'DATABASE_URL'", kind="tool_call", outcome=None, role="python", metadata={}).name
    "KeyError: 'DATABASE_URL'"
    >>> episode_signature("12 passed, 0 failed", kind="tool_call", outcome=None, role="pytest", metadata={}) is None
    True
    >>> episode_signature("deploy failed", kind="task", outcome="failure", role=None, metadata={"exit_code": 3}).rule
    'soft'
    """
    if outcome == "success" or (outcome is None and kind not in WORK_KINDS):
        return None
    code = metadata.get("exit_code")
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    found = error_signature(content, tool=tool_of(role, metadata), exit_code=exit_code)
    if found is not None and outcome is None and found.rule in _LOOSE_RULES:
        return None
    return found


def stated_signature(content: str) -> Signature | None:
    """The error a lesson an agent states is about ("when the embeddings API answers HTTP 429
    Too Many Requests, wait for Retry-After"): a rule that reads an error plainly, none for
    one that only says something failed.

    >>> stated_signature("Lesson: on HTTP 429 Too Many Requests from embeddings, back off.").name
    'HTTP 429: Too Many Requests'
    >>> stated_signature("Always run the migrations before the deploy fails again.") is None
    True
    >>> stated_signature("Lesson: error: You must be logged in (Unauthorized) means SSO lapsed").head
    'error'
    """
    found = error_signature(_LABEL.sub("", content, count=1))
    return None if found is None or found.rule in _LOOSE_RULES else found
