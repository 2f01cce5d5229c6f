"""PII redaction before anything is stored or embedded. Pure.

Finds e-mail addresses, Chinese resident ID numbers (18 characters with a valid birth date and
check digit), bank card numbers (13-19 digits with a card-network prefix and a valid Luhn
check), mobile and landline numbers (Chinese and international forms), plus any extra patterns
from settings, and replaces each with a typed placeholder: `[PHONE_1]`, `[EMAIL_2]`. The same
value gets the same placeholder within one text. Only counts per type are kept, never values.

Order matters: ID numbers and cards are checked before phone numbers, so a long digit run is
claimed by the most specific type whose checksum holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from engine.inputs import StoreRequest

__all__ = [
    "Redaction",
    "compile_patterns",
    "luhn_valid",
    "redact",
    "redact_request",
    "valid_cn_id",
]

# Digits not glued to other ASCII digits, letters or a placeholder: an order id "ORD2026..."
# must not be cut into a phone number. (Not \w: Chinese characters are \w, and "电话13800138000"
# must match.)
_EDGE_L = r"(?<![A-Za-z0-9_\[+])"
_EDGE_R = r"(?![A-Za-z0-9_\]])"

_EMAIL = re.compile(r"(?<![A-Za-z0-9_.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
_CN_ID = re.compile(_EDGE_L + r"[1-9]\d{5}(?:18|19|20)\d{2}[01]\d[0-3]\d\d{3}[\dXx]" + _EDGE_R)
# 13-19 digits, plain, in groups of 4 separated by one space or dash, or grouped 4-6-5 as
# American Express prints them.
_CARD = re.compile(_EDGE_L + r"(?:\d{4}[ -]){2,3}\d{4}(?:[ -]\d{1,3})?" + _EDGE_R + r"|"
                   + _EDGE_L + r"\d{4}[ -]\d{6}[ -]\d{5}" + _EDGE_R + r"|"
                   + _EDGE_L + r"\d{13,19}" + _EDGE_R)  # fmt: skip
_PHONE = re.compile(
    # +86 / 0086 prefix, then a Chinese mobile number, possibly split 3-4-4
    r"(?:(?<![A-Za-z0-9_+])(?:\+|00)86[ -]?)?" + _EDGE_L + r"1[3-9]\d(?:[ -]?\d{4}){2}" + _EDGE_R
    # Chinese landline: 0 + area code of 2-3 digits, a separator, 7-8 digits
    + r"|" + _EDGE_L + r"(?:\(0\d{2,3}\)|0\d{2,3})[ -]?\d{7,8}" + _EDGE_R
    # international: + country code, then 6-14 more digits in groups
    + r"|(?<![A-Za-z0-9_+])\+\d{1,3}(?:[ -]?\(?\d{1,4}\)?){2,5}" + _EDGE_R
    # North American: (415) 555-0132 or 415-555-0132 or 415.555.0132
    + r"|" + _EDGE_L + r"(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}" + _EDGE_R
)

# Card networks by leading digits (IIN): Visa, Mastercard, Amex, Discover, JCB, Diners,
# UnionPay, Maestro. A Luhn check alone passes one random number in ten.
_CARD_PREFIX = re.compile(r"^(?:4|5[0-9]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[68])|35|6)")

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum every bank card number satisfies.

    >>> luhn_valid("4111111111111111"), luhn_valid("4111111111111112")
    (True, False)
    """
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def valid_cn_id(number: str) -> bool:
    """An 18-character resident ID: a real birth date and the ISO 7064 check character.

    >>> valid_cn_id("11010519491231002X"), valid_cn_id("110105194912310021")
    (True, False)
    """
    if len(number) != 18 or not number[:17].isdigit():
        return False
    try:
        date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    except ValueError:
        return False
    check = _ID_CHECK[sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True)) % 11]
    return number[17].upper() == check


def _card(text: str) -> bool:
    digits = re.sub(r"[ -]", "", text)
    return 13 <= len(digits) <= 19 and bool(_CARD_PREFIX.match(digits)) and luhn_valid(digits)


def _phone(text: str) -> bool:
    digits = re.sub(r"\D", "", text)
    return 7 <= len(digits) <= 15


# (type, pattern, check on the matched text), in the order they claim text.
_BUILTIN: list[tuple[str, re.Pattern[str], Callable[[str], bool]]] = [
    ("EMAIL", _EMAIL, lambda _: True),
    ("CN_ID", _CN_ID, valid_cn_id),
    ("BANK_CARD", _CARD, _card),
    ("PHONE", _PHONE, _phone),
]


class Redaction(BaseModel):
    """Redacted text and how many values of each type were replaced."""

    text: str
    counts: dict[str, int] = Field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def compile_patterns(patterns: Mapping[str, str]) -> dict[str, re.Pattern[str]]:
    """Extra patterns from settings, by placeholder type (upper-case letters and _).

    >>> compile_patterns({"EMPLOYEE_ID": r"EMP-\\d{6}"})["EMPLOYEE_ID"].pattern
    'EMP-\\\\d{6}'
    """
    compiled = {}
    for kind, pattern in patterns.items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]{0,31}", kind):
            raise ValueError(f"pii pattern name {kind!r} must be upper-case letters, digits, _")
        try:
            compiled[kind] = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"pii pattern {kind}: {exc}") from None
    return compiled


class _Redactor:
    """Applies every rule to each text it is given, numbering values across all of them."""

    def __init__(self, extra: Mapping[str, re.Pattern[str]] | None) -> None:
        self.rules = list(_BUILTIN) + [(k, p, _always) for k, p in (extra or {}).items()]
        self.numbered: dict[str, dict[str, str]] = {}
        self.counts: dict[str, int] = {}

    def __call__(self, text: str) -> str:
        for kind, pattern, check in self.rules:
            numbered = self.numbered.setdefault(kind, {})

            def replace(match: re.Match[str], kind: str = kind,
                        check: Callable[[str], bool] = check,
                        numbered: dict[str, str] = numbered) -> str:  # fmt: skip
                value = match.group(0)
                if not check(value):
                    return value
                if value not in numbered:
                    numbered[value] = f"[{kind}_{len(numbered) + 1}]"
                self.counts[kind] = self.counts.get(kind, 0) + 1
                return numbered[value]

            text = pattern.sub(replace, text)
        return text


def _always(_: str) -> bool:
    return True


def redact(text: str, extra: Mapping[str, re.Pattern[str]] | None = None) -> Redaction:
    """Replace personal data in `text` with typed, numbered placeholders.

    >>> redact("Call 138 0013 8000 or mail li.lei@example.com").text
    'Call [PHONE_1] or mail [EMAIL_1]'
    >>> r = redact("身份证11010519491231002X，卡号6222 0202 0000 0000 006，订单2026112900012")
    >>> r.text, r.counts
    ('身份证[CN_ID_1]，卡号[BANK_CARD_1]，订单2026112900012', {'CN_ID': 1, 'BANK_CARD': 1})
    """
    redactor = _Redactor(extra)
    return Redaction(text=redactor(text), counts=redactor.counts)


def redact_request(
    request: StoreRequest, extra: Mapping[str, re.Pattern[str]] | None = None
) -> tuple[StoreRequest, dict[str, int]]:
    """The request with its content and every string in its metadata redacted, and the counts.

    Metadata is redacted too: a phone number in `{"contact": ...}` is as personal as one in
    the text. Placeholders are numbered across the content and the metadata together.
    """
    redactor = _Redactor(extra)
    content = redactor(request.content)
    metadata = _map_strings(request.metadata, redactor)
    if not redactor.counts:
        return request, {}
    return request.model_copy(update={"content": content, "metadata": metadata}), redactor.counts


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    """Apply `change` to every string inside a JSON value (keys stay as they are)."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    return value
