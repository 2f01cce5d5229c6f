"""Error signatures: what a failing tool call or task printed, reduced to what stays the same
when the error comes back. Pure; English and Chinese.

    ModuleNotFoundError: No module named 'ruamel_yaml_clib_missing'      (a traceback's last line)
    HTTP 503: search index is still warming up, shards <*>/<*> ready   (curl's exit 22 and the body)
    git rejected: fetch first                                            (git push, refused)

A signature is a head (an exception class, an HTTP status, a tool's error code, an exit code)
and a message, with the volatile parts normalised away: hosts and ports, absolute paths (to
their file name), ids and hashes, times, versions and numbers. The next occurrence of an error,
with other ids and paths, has the same signature, so the episodes that show it meet at one
entity of type SIGNATURE in the graph.

The rules are tried in order, the most specific first; each is a named pattern over the
text's lines (`RULES`). A question that pastes an error ("this again: ModuleNotFoundError: No
module named 'yaml' - how did we fix it?") is read by `query_keys`: the keys of every prefix
of the message it pastes, as the stored signature may hold fewer of its words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from engine.text import MAX_NAME_CHARS, canonical_name

__all__ = ["ENTITY_TYPE", "Signature", "error_signature", "normalise_volatile", "query_keys"]

ENTITY_TYPE = "SIGNATURE"
# A message keeps its first words: enough to tell two causes apart, and a key short enough
# that a question pasting the error names it.
MAX_MESSAGE_WORDS = 14


class Signature(NamedTuple):
    head: str  # "ModuleNotFoundError", "HTTP 503", "npm E404", "exit 137"
    message: str  # normalised: "No module named 'yaml'"
    rule: str  # the rule that found it (`RULES`)

    @property
    def name(self) -> str:
        """As an entity is named: 'HTTP 503: search index is still warming up' (at most
        MAX_NAME_CHARS: a word of a log can be any length)."""
        return (f"{self.head}: {self.message}" if self.message else self.head)[:MAX_NAME_CHARS]

    @property
    def key(self) -> str:
        """The entity's canonical name: a later occurrence has the same."""
        return canonical_name(self.name)

    @property
    def alias(self) -> str | None:
        """The head alone as an alias ("http 503", "modulenotfounderror"), so a question that
        names only the class or status finds every signature of it; None for a head that
        names nothing in particular ("error", an exit code)."""
        if self.head.casefold() in _GENERIC_HEADS or " exit " in f" {self.head}":
            return None
        return canonical_name(re.sub(r"[\[\]()]", " ", self.head))


_GENERIC_HEADS = frozenset({"error", "fatal", "panic", "exception", "failure", "错误", "报错", "失败", "异常"})

# -- normalising the volatile parts -------------------------------------------------------------

_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://[^\s'\"<>()\]]+", re.IGNORECASE)
_HOST_PORT = re.compile(
    r"\b(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|\[[0-9a-f:]+\])(?::\d+)?\b|\b[\w-]+(?:\.[\w-]+)+:\d{2,5}\b", re.IGNORECASE
)
_ABSOLUTE_PATH = re.compile(r"(?<![\w.])(?:~|[A-Za-z]:)?(?:[/\\][\w.@~+\-]+){2,}[/\\]?")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.IGNORECASE)
_ADDRESS = re.compile(r"\b0x[0-9a-f]+\b", re.IGNORECASE)
_HEX_ID = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{6,}\b", re.IGNORECASE)
_TOKEN_ID = re.compile(r"\b(?:tok|sk|pk|key|req|txn|ch|cus|sub|evt|run|job)_[A-Za-z0-9]{6,}\b")
_TIMESTAMP = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T _]\d{2}[:_]\d{2}(?:[:_]\d{2}(?:[.,_]\d+)?)?Z?(?:[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b|\b\d{4}年\d{1,2}月\d{1,2}[日号]"
)
# A Kubernetes pod's name: its deployment, then a replica set's hash and the pod's own suffix.
_POD = re.compile(r"\b([a-z][a-z0-9-]*?)-[a-z0-9]{6,10}-[a-z0-9]{5}\b")
_ANY = "<*>"  # what a volatile id, number, version or address becomes
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?\b")
# Names that end in a number the way encodings and standards do: not a volatile id.
_KEPT_SUFFIX = re.compile(r"\b(?:utf|utf_|ucs|iso|latin|cp|ipv|sha|md|http|tls|x|base)[-_]?\d+\b", re.IGNORECASE)
_SUFFIX_NUMBER = re.compile(r"(?<=[A-Za-z])([-_])\d+\b")
_NUMBER = re.compile(r"(?<![\w<*])\d+(?:[.,]\d+)?(?![\w>*])")
_PLACEHOLDER = re.compile(r"\[([A-Z_]+?)_\d+\]")  # redaction's "[EMAIL_1]"
_SPACE = re.compile(r"\s+")


def _url_path(url: str) -> str:
    """A URL as its path: hosts, ports and query strings change.

    >>> _url_path("http://127.0.0.1:8080/api/v1/users/42?limit=5")
    '/api/v1/users/42'
    """
    rest = url.split("://", 1)[1]
    path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
    return path.split("?", 1)[0].split("#", 1)[0].rstrip(".,;:")


def _file_name(match: re.Match[str]) -> str:
    """An absolute path as its file name: the folder is the run's, the file the error's."""
    parts = [p for p in re.split(r"[/\\]", match.group()) if p]
    return parts[-1] if parts else match.group()


def normalise_volatile(text: str) -> str:
    """`text` with what changes between occurrences of one error replaced or cut.

    >>> normalise_volatile("curl: (7) Failed to connect to 127.0.0.1 port 44573 after 0 ms")
    'curl: (<*>) Failed to connect to <host> port <*> after <*> ms'
    >>> normalise_volatile("lstat /tmp/docker-hrlz/Dockerfile: no such file, see https://x.io/a/42?b=1")
    'lstat Dockerfile: no such file, see /a/<*>'
    >>> normalise_volatile("pydantic-settings==10.0.1 at 2026-12-06T22:21:48Z for web-7, utf-8 0xe9 id 9f8e7d6c5b")
    'pydantic-settings==<*> at <time> for web-<*>, utf-8 <*> id <*>'
    """
    kept: list[str] = []

    def keep(value: str) -> str:
        # A marker the rules below leave alone (no digit, no word character).
        kept.append(value)
        return f"\x00{chr(0xE000 + len(kept) - 1)}\x00"

    text = _PLACEHOLDER.sub(r"[\1]", text)
    text = _URL.sub(lambda m: keep(_volatile_parts(_url_path(m.group()))), text)
    text = _TIMESTAMP.sub("<time>", text)
    text = _HOST_PORT.sub("<host>", text)
    text = _ABSOLUTE_PATH.sub(_file_name, text)
    text = _KEPT_SUFFIX.sub(lambda m: keep(m.group()), text)
    text = _volatile_parts(text)
    for index, original in enumerate(kept):
        text = text.replace(f"\x00{chr(0xE000 + index)}\x00", original)
    return _SPACE.sub(" ", text).strip()


def _volatile_parts(text: str) -> str:
    """Ids, hashes, versions and numbers replaced by one placeholder: a slot that holds a
    short hash one time and digits the next ("1234567" and "abc1234") is one slot."""
    text = _UUID.sub(_ANY, text)
    text = _POD.sub(lambda m: m.group(1) + "-" + _ANY, text)
    text = _ADDRESS.sub(_ANY, text)
    text = _TOKEN_ID.sub(_ANY, text)
    text = _HEX_ID.sub(_ANY, text)
    text = _VERSION.sub(_ANY, text)
    text = _SUFFIX_NUMBER.sub(r"\1" + _ANY, text)
    return _NUMBER.sub(_ANY, text)


def _message(text: str) -> str:
    """A message normalised and cut to its first words, without trailing punctuation."""
    words = normalise_volatile(text).split(" ")[:MAX_MESSAGE_WORDS]
    return " ".join(words).rstrip(" .,;:-—")


# -- the rules ---------------------------------------------------------------------------------

Found = tuple[str, str]  # head, raw message
Rule = Callable[[list[str], str], Found | None]

_HTTP_REASONS = (
    "Bad Request|Unauthorized|Payment Required|Forbidden|Not Found|Method Not Allowed|Conflict|Gone"
    "|Payload Too Large|Unprocessable (?:Entity|Content)|Too Many Requests|Internal Server Error"
    "|Not Implemented|Bad Gateway|Service Unavailable|Gateway Time-?out"
)
_HTTP_STATUS = re.compile(
    r"HTTP Error (?P<a>[45]\d\d)\b|\b(?P<b>[45]\d\d) (?:Client|Server) Error\b"
    r"|returned error:? (?P<c>[45]\d\d)\b|\bHTTP/\d(?:\.\d)? (?P<d>[45]\d\d)\b"
    r"|\bstatus(?: code)?[:= ]+(?P<e>[45]\d\d)\b|\b(?P<f>[45]\d\d) (?:" + _HTTP_REASONS + r")\b"
    r"|\bHTTP (?P<g>[45]\d\d)\b|(?:状态码|返回了?|响应)[:：]?\s*(?P<h>[45]\d\d)(?!\d)",
    re.IGNORECASE,
)
_HTTP_REASON = re.compile(_HTTP_REASONS, re.IGNORECASE)
_JSON_OBJECT = re.compile(r"\{.*\}")
_BODY_KEYS = ("error_description", "message", "error", "detail", "title", "reason")
# "raise_for_status" and urllib name the URL: its path tells one endpoint's failure from another's.
_FOR_URL = re.compile(r"\bfor url: (\S+)", re.IGNORECASE)


def _body_message(lines: list[str]) -> str | None:
    """The error a JSON response body states ({"error": "..."}), if the text shows one."""
    for line in lines:
        for candidate in _JSON_OBJECT.findall(line):
            try:
                body = json.loads(candidate)
            except ValueError:
                continue
            if isinstance(body, dict):
                errors = body.get("errors")
                if isinstance(errors, list) and errors and isinstance(errors[0], dict):
                    body = errors[0]
                for key in _BODY_KEYS:
                    value = body.get(key)
                    if isinstance(value, str) and value.strip():
                        return value
    return None


def _http(lines: list[str], text: str) -> Found | None:
    """An HTTP status of 4xx or 5xx, with the body's error, else the endpoint and reason."""
    match = None
    for line in reversed(lines):
        match = _HTTP_STATUS.search(line)
        if match:
            break
    if match is None:
        return None
    status = next(value for value in match.groupdict().values() if value)
    body = _body_message(lines)
    if body:
        return f"HTTP {status}", body
    reason = _HTTP_REASON.search(match.string)
    url = _FOR_URL.search(match.string)
    said = " ".join(part for part in (reason.group() if reason else "", f"for {url.group(1)}" if url else "") if part)
    return f"HTTP {status}", said


_EXCEPTION = re.compile(
    r"(?:^|(?<=[\s，。：:；（(\u4e00-\u9fff]))(?:Exception in thread \"[^\"]*\" |Uncaught |Caused by: )?"
    r"(?P<cls>(?:[A-Za-z_][\w]*\.)*[A-Z][\w]*(?:Error|Exception|Expired|Timeout|Exit|Interrupt|Fault|Denied)|MemoryError|StopIteration)"
    r"(?::\s*(?P<msg>.*))?$"
)


def _exception(lines: list[str], text: str) -> Found | None:
    """The exception a traceback or a stack ends with (its last such line), its class without
    the module path: "sqlite3.OperationalError" is OperationalError of sqlite3."""
    for line in reversed(lines):
        match = _EXCEPTION.search(line)
        if match and not line.lstrip().startswith("raise "):
            name = match["cls"]
            cls = name.rsplit(".", 1)[-1]
            module = name.rsplit(".", 1)[0].split(".")[0] if "." in name else ""
            head = f"{module}.{cls}" if module and module not in ("builtins", "java", "javax") else cls
            return head, match["msg"] or ""
    return None


_PYTEST_FAILED = re.compile(r"^FAILED (?P<test>\S+)(?: - (?P<why>[A-Za-z_.]+(?:Error|Exception|Failed)))?")
_NPM_CODE = re.compile(r"^npm (?:ERR!|error) code (?P<code>\w+)")
_NPM_LINE = re.compile(r"^npm (?:ERR!|error) (?:\d{3} )?(?P<msg>\S.*)")
_RUST = re.compile(r"(?:^|\s)error\[(?P<code>E\d{4})\]: (?P<msg>.+)")
_GIT_REJECTED = re.compile(r"^\s*! \[(?:remote )?rejected\]\s+\S+ -> \S+ \((?P<why>[^)]+)\)")
_GIT_CONFLICT = re.compile(r"^CONFLICT \((?P<what>[\w/ -]+)\): (?P<msg>.+)")
_MAKE = re.compile(r"^(?:g?make)(?:\[\d+\])?: \*\*\* (?P<msg>.+?)(?:\s+Stop\.)?$")
_JAVAC_SYMBOL = re.compile(r"^\s*symbol:\s+(?P<what>.+)$")
_DIAGNOSTIC = re.compile(r"^(?:\./)?[\w./\\-]+\.\w+:\d+(?::\d+)?: (?:(?:fatal )?error: )?(?P<msg>.+)$")
_PREFIXED = re.compile(
    r"^(?:(?P<tool>[\w.-]+)(?: \(child\))?: )?(?P<head>error|fatal|panic|ERROR|FATAL|PANIC|Error|E)(?:\[\w+\])?[:!]\s*"
    r"(?P<msg>\S.*)$"
)
_ZH_PREFIXED = re.compile(r"(?P<head>报错|错误|失败|异常)(?:信息|原因|提示)?[:：]\s*(?P<msg>\S.*)$")
_ERRNO = re.compile(
    r"(?:No such file or directory|Permission denied|Connection refused|Connection reset by peer"
    r"|Address already in use|Operation not permitted|No space left on device|Too many open files"
    r"|Broken pipe|Network is unreachable|Name or service not known|Temporary failure in name resolution"
    r"|command not found|Read-only file system|Is a directory|Not a directory|Cannot allocate memory"
    r"|Killed|Segmentation fault|Out of memory|OOMKilled|CrashLoopBackOff|ImagePullBackOff)",
    re.IGNORECASE,
)
_SOFT_ERROR = re.compile(
    r"\b(?:refused|denied|not found|failed|failure|cannot|can't|couldn't|unable to|invalid|missing"
    r"|timed out|timeout|exceeded|not allowed|forbidden|unauthori[sz]ed|aborted|conflict|rejected)\b"
    r"|失败|拒绝|超时|找不到|不存在|无法|没有权限|冲突",
    re.IGNORECASE,
)
_EXIT = re.compile(
    r"\bexit(?:ed)?(?: with)?(?: status| code)?[: ]+(?P<a>\d{1,3})\b|non-zero exit status (?P<b>\d{1,3})"
    r"|退出码[:：]?\s*(?P<c>\d{1,3})",
    re.IGNORECASE,
)
_CURL = re.compile(r"^curl: \((?P<code>\d+)\) (?P<msg>.+)")


def _first(pattern: re.Pattern[str], lines: list[str], *, last: bool = False) -> re.Match[str] | None:
    for line in reversed(lines) if last else lines:
        match = pattern.search(line)
        if match:
            return match
    return None


# Ruby: "app/models/user.rb:12:in `full_name': undefined method `upcase' for nil:NilClass (NoMethodError)".
_RUBY = re.compile(r"^\S+:\d+:in [`'][^']*': (?P<msg>.+) \((?P<cls>[A-Z]\w*)\)$")
# The AWS CLI: "An error occurred (AccessDenied) when calling the PutObject operation: Access Denied".
_AWS = re.compile(r"An error occurred \((?P<code>[\w.]+)\) when calling the (?P<op>\w+) operation: (?P<msg>.*)")


def _ruby(lines: list[str], text: str) -> Found | None:
    match = _first(_RUBY, lines, last=True)
    return None if match is None else (match["cls"], match["msg"])


def _aws(lines: list[str], text: str) -> Found | None:
    match = _first(_AWS, lines, last=True)
    return None if match is None else (f"aws {match['code']}", f"{match['op']}: {match['msg']}")


def _pytest(lines: list[str], text: str) -> Found | None:
    match = _first(_PYTEST_FAILED, lines)
    return None if match is None else ("pytest FAILED", " - ".join(p for p in (match["test"], match["why"]) if p))


def _npm(lines: list[str], text: str) -> Found | None:
    code = _first(_NPM_CODE, lines)
    if code is None:
        return None
    detail = next((m["msg"] for line in lines if (m := _NPM_LINE.match(line)) and not _NPM_CODE.match(line)), "")
    return f"npm {code['code']}", detail


def _rust(lines: list[str], text: str) -> Found | None:
    match = _first(_RUST, lines)
    return None if match is None else (f"error[{match['code']}]", match["msg"])


def _git(lines: list[str], text: str) -> Found | None:
    rejected = _first(_GIT_REJECTED, lines)
    if rejected is not None:
        return "git rejected", rejected["why"]
    conflict = _first(_GIT_CONFLICT, lines)
    return None if conflict is None else (f"git CONFLICT ({conflict['what']})", conflict["msg"])


def _make(lines: list[str], text: str) -> Found | None:
    match = _first(_MAKE, lines)
    return None if match is None else ("make", match["msg"])


def _curl(lines: list[str], text: str) -> Found | None:
    match = _first(_CURL, lines, last=True)
    return None if match is None else (f"curl ({match['code']})", match["msg"])


def _diagnostic(lines: list[str], text: str) -> Found | None:
    """A compiler's "file:line:col: error: message", with javac's symbol line after it."""
    for index, line in enumerate(lines):
        match = _DIAGNOSTIC.match(line)
        if match and ("error" in line.casefold() or not _is_note(match["msg"])):
            message = match["msg"]
            symbol = _first(_JAVAC_SYMBOL, lines[index + 1 : index + 4])
            if symbol is not None:
                message = f"{message}: {symbol['what']}"
            return "error", message
    return None


def _is_note(message: str) -> bool:
    return message.split(":", 1)[0].strip().casefold() in {"note", "warning", "in function", "in member function"}


def _prefixed(lines: list[str], text: str) -> Found | None:
    """A line a tool begins with its word for an error ("error:", "fatal:", "ERROR:", 报错：)."""
    for line in reversed(lines):
        match = _PREFIXED.match(line.strip())
        if match and (match["head"] != "E" or match["tool"]):
            return match["tool"] or match["head"].casefold(), match["msg"]
    zh = _first(_ZH_PREFIXED, lines, last=True)
    return None if zh is None else (zh["head"], zh["msg"])


def _errno(lines: list[str], text: str) -> Found | None:
    """A line with a system error's words ("Permission denied"), after the shell's prefix."""
    for line in lines:
        if _ERRNO.search(line):
            said = re.sub(r"^(?:/bin/)?(?:ba|z)?sh: (?:line )?\d+: ", "", line.strip())
            return "error", said
    return None


def _soft(lines: list[str], text: str) -> Found | None:
    """The last line that says something failed, was refused or could not be done."""
    for line in reversed(lines):
        if _SOFT_ERROR.search(line) and len(line) <= 400:
            return "error", line.strip()
    return None


RULES: tuple[tuple[str, Rule], ...] = (
    ("pytest", _pytest),
    ("npm", _npm),
    ("rustc", _rust),
    ("git", _git),
    ("make", _make),
    ("aws", _aws),
    ("http", _http),
    ("ruby", _ruby),
    ("exception", _exception),
    ("diagnostic", _diagnostic),
    ("curl", _curl),
    ("prefixed", _prefixed),
    ("errno", _errno),
    ("soft", _soft),
)
_MAX_LINES = 400  # a long log's head and tail: the error is in the last lines


# The prefix of a Go program's log line (klog, glog): a level, a time, a thread, a source line.
_LOG_PREFIX = re.compile(r"^[EWIF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [\w.-]+:\d+\] ")


def _lines(text: str) -> list[str]:
    lines = [_LOG_PREFIX.sub("", line.rstrip()) for line in text.splitlines() if line.strip()]
    return lines if len(lines) <= _MAX_LINES else lines[:50] + lines[-(_MAX_LINES - 50) :]


def error_signature(text: str, *, tool: str | None = None, exit_code: int | None = None) -> Signature | None:
    """The signature of an error a text shows, by the first rule that finds one; else, given
    a non-zero exit code (or one the text names), the tool's exit; else None.

    >>> error_signature("Traceback (most recent call last):\\n  File \\"/tmp/a8/job.py\\", line 4\\nModuleNotFoundError: No module named 'yaml'").name
    "ModuleNotFoundError: No module named 'yaml'"
    >>> error_signature('{"error": "pool exhausted: 20 of 20 in use"}curl: (22) The requested URL returned error: 503').name
    'HTTP 503: pool exhausted: <*> of <*> in use'
    >>> error_signature("部署失败，报错：连接 10.0.0.7:5432 被拒绝").name
    '报错: 连接 <host> 被拒绝'
    >>> error_signature("Build finished in 3.2 s"), error_signature("", tool="make", exit_code=2).name
    (None, 'make exit 2')
    """
    lines = _lines(text)
    for name, rule in RULES:
        found = rule(lines, text)
        if found is not None:
            head, message = found
            return Signature(head=head, message=_message(message), rule=name)
    code = exit_code
    if code is None:
        match = _first(_EXIT, lines, last=True)
        code = int(next(v for v in match.groupdict().values() if v)) if match else None
    if code:
        return Signature(head=f"{tool} exit {code}" if tool else f"exit {code}", message="", rule="exit")
    return None


def _prefixes(message: str) -> Iterator[str]:
    words = message.split(" ")
    for end in range(len(words), 0, -1):
        yield " ".join(words[:end]).rstrip(" .,;:-—")


def query_keys(text: str) -> list[str]:
    """The signature keys a question may name by pasting an error: its own signature's, and
    those of the message cut after each of its words (a question runs on after the error:
    "... No module named 'yaml' again, how did we fix it?"), longest first.

    >>> keys = query_keys("ModuleNotFoundError: No module named 'yaml' again - how did we fix it?")
    >>> "modulenotfounderror no module named yaml" in keys, keys[-1]
    (True, 'modulenotfounderror')
    """
    found = error_signature(text)
    if found is None or found.rule == "soft":  # "why did the launch fail?" pastes no error
        return []
    keys = [canonical_name(f"{found.head}: {prefix}" if prefix else found.head) for prefix in _prefixes(found.message)]
    return list(dict.fromkeys([*keys, canonical_name(found.head)]))
