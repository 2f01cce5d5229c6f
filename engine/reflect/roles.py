"""The roles of a chat that are no person's name: the user, and an assistant."""

from __future__ import annotations

from engine.reflect.word_lists import WordLists

_WORDS = WordLists("roles")

__all__ = ["is_assistant", "is_user"]

_USER_ROLES = _WORDS("user_roles")
_ASSISTANT_ROLES = _WORDS("assistant_roles")


def is_user(role: str) -> bool:
    """Whether a role is the chat's user.

    >>> is_user("User"), is_user("Caroline")
    (True, False)
    """
    return role.casefold() in _USER_ROLES


def is_assistant(role: str) -> bool:
    """Whether a role is an assistant (never the subject of a fact).

    >>> is_assistant("assistant"), is_assistant("user")
    (True, False)
    """
    return role.casefold() in _ASSISTANT_ROLES
