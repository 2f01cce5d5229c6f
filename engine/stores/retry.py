"""One retry policy for the network backends: exponential backoff, bounded, each wait logged."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from tenacity import (
    RetryError,
    Retrying,
    before_sleep_log,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from engine.errors import StoreUnavailable

__all__ = ["Retry"]

log = logging.getLogger("engine.stores")
_T = TypeVar("_T")


class Retry:
    """Call a function again on `retryable` errors (of those, the ones `transient` accepts),
    up to `attempts` times, waiting 0.25 s, 0.5 s, 1 s ... at most `max_wait` s between
    attempts; then raise `StoreUnavailable`. Other errors propagate at once."""

    def __init__(
        self,
        retryable: tuple[type[BaseException], ...],
        attempts: int,
        max_wait: float = 8.0,
        *,
        transient: Callable[[BaseException], bool] = lambda _: True,
    ) -> None:
        self._retrying = Retrying(
            retry=retry_if_exception(lambda exc: isinstance(exc, retryable) and transient(exc)),
            stop=stop_after_attempt(attempts),
            wait=wait_exponential(multiplier=0.25, max=max_wait),
            before_sleep=before_sleep_log(log, logging.WARNING),
            reraise=False,
        )

    def __call__(self, work: Callable[[], _T], what: str) -> _T:
        try:
            return self._retrying(work)
        except RetryError as exc:
            last = exc.last_attempt.exception()
            raise StoreUnavailable(f"{what} unavailable after retries: {last}") from last
