"""Which namespaces an API token may use: `api_token` for all of them, `api_tokens` each bound
to the namespaces it names.

`HINDSIGHT_API_TOKENS` is a JSON object from token to namespaces: a list of namespace names,
or "*" for every namespace, e.g. `{"9f2c...": ["team-a"], "77ab...": ["team-b", "shared"]}`.
"""

from __future__ import annotations

import hmac
import json
from dataclasses import dataclass

from engine.inputs import check_namespace

__all__ = ["Grant", "TokenScopes", "check_token", "parse_token_scopes"]

EVERY = "*"


@dataclass(frozen=True)
class Grant:
    """What one token may do: every namespace (`namespaces` None) or the ones named."""

    namespaces: frozenset[str] | None

    def allows(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces


def check_token(token: str, which: str = "the token") -> None:
    """A ValueError (never showing the token) when it is shorter than 16 characters or holds
    white space: a short token is guessed, and a space cannot travel in a header."""
    if len(token) < 16 or any(c.isspace() for c in token):
        raise ValueError(f"{which} must be at least 16 characters without spaces")


def parse_token_scopes(text: str) -> dict[str, Grant]:
    """The tokens of `HINDSIGHT_API_TOKENS`; ValueError names what is wrong (never a token)."""
    try:
        loaded = json.loads(text)
    except ValueError:
        raise ValueError('must be a JSON object such as {"<token>": ["namespace", ...]}') from None
    if not isinstance(loaded, dict) or not loaded:
        raise ValueError('must be a non-empty JSON object such as {"<token>": ["namespace"]}')
    grants: dict[str, Grant] = {}
    for number, (token, scope) in enumerate(loaded.items(), start=1):
        check_token(token, f"token {number}")
        if scope == EVERY:
            grants[token] = Grant(None)
            continue
        if not isinstance(scope, list) or not scope:
            raise ValueError(f'token {number} must map to a list of namespaces or "*"')
        try:
            grants[token] = Grant(frozenset(check_namespace(name) for name in scope))
        except ValueError as exc:
            raise ValueError(f"token {number} names a namespace that {exc}") from None
    return grants


class TokenScopes:
    """Looks a request's bearer token up in constant time per configured token."""

    def __init__(self, api_token: str | None, scoped: dict[str, Grant]) -> None:
        self._grants = [(f"Bearer {t}".encode(), g) for t, g in scoped.items()]
        if api_token:
            self._grants.insert(0, (f"Bearer {api_token}".encode(), Grant(None)))

    @property
    def enabled(self) -> bool:
        """Whether requests need a token at all (none configured: the server is open)."""
        return bool(self._grants)

    def grant(self, authorization: bytes) -> Grant | None:
        """The grant of the `Authorization` header's token; None when it matches none."""
        found = None
        for expected, grant in self._grants:  # every one compared: no early exit to time
            if hmac.compare_digest(authorization, expected):
                found = grant
        return found
