"""What of a text is said in words, and what is machine output: stack frames, source lines,
JSON, log records, progress bars. Pure.

A tool's output carries names that are no one's (`Traceback`, `File`, a module path) and
sentences that state nothing about a person. Entity extraction on a step of work and
reflection's statement rules read only the lines `prose` keeps.
"""

from __future__ import annotations

import re

__all__ = ["is_machine_line", "prose"]

_FRAME = re.compile(r'^\s*(?:File "[^"]*", line \d+|at \S.*(?:\(|:\d+)|#\d+ 0x[0-9a-f]+ in )')
_TRACE_HEAD = re.compile(r"^\s*(?:Traceback \(most recent call last\)|Stack trace|goroutine \d+ \[)")
_MARKS = re.compile(r"^\s*[\^~|+\-=_*#.>]{3,}\s*$|^\s*\d+\s*\|")  # carets, rulers, gutters
_LOG_RECORD = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN(?:ING)?|ERROR|TRACE|FATAL)\]?\s"
    r"|[EWIF]\d{4} \d{2}:\d{2}:\d{2}|npm (?:ERR!|error|warn) |hint: |remote: |\s{4,}\S)"
)
_CODE = re.compile(r"[{};=()\[\]<>]|\b(?:def|return|import|const|let|var|function|class|lambda|raise)\b")
_FENCE = re.compile(r"^\s*```")
_LETTER = re.compile(r"[^\W\d_]")


def is_machine_line(line: str) -> bool:
    """Whether a line is a tool's output rather than words: a stack frame, a trace's heading,
    a gutter or ruler, a log record or an indented block, a JSON or code line (mostly symbols).

    >>> is_machine_line('  File "/tmp/a/job.py", line 4, in <module>'), is_machine_line("The deploy failed twice.")
    (True, False)
    >>> is_machine_line('{"error": "rate limited", "retry_after": 20}'), is_machine_line("    at Object.<anonymous> (/srv/a.js:1:17)")
    (True, True)
    >>> is_machine_line("I moved to Lisbon (for work) last year."), is_machine_line("2026-11-10 12:00:01 INFO started")
    (False, True)
    """
    stripped = line.strip()
    if len(stripped) < 4:
        return False  # ";)", "ok": too short to tell
    if _FRAME.match(line) or _TRACE_HEAD.match(line) or _MARKS.match(line) or _LOG_RECORD.match(line):
        return True
    if stripped[0] in "{[" and stripped[-1] in "}]," and ('"' in stripped or ":" in stripped):
        return True  # JSON, not "[shares a photo]"
    letters = len(_LETTER.findall(stripped))
    symbols = len(_CODE.findall(stripped))
    return letters < len(stripped) * 0.5 or symbols >= max(3, letters // 8)


def prose(text: str) -> str:
    """The lines of `text` said in words, in order: what is left once fenced code and machine
    lines are dropped (the text itself when none is).

    >>> prose("I retried the job.\\nTraceback (most recent call last):\\n  File \\"x.py\\", line 2\\nKeyError: 'a'")
    "I retried the job.\\nKeyError: 'a'"
    """
    kept: list[str] = []
    fenced = dropped = False
    lines = text.splitlines()
    for line in lines:
        if _FENCE.match(line):
            fenced, dropped = not fenced, True
        elif fenced or is_machine_line(line):
            dropped = True
        else:
            kept.append(line)
    return "\n".join(kept) if dropped else text
