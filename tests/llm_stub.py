"""An OpenAI-compatible chat completions endpoint with canned answers, on a local HTTP
server: the LLM hook's real client talks to it (`llm_stub` in conftest.py is the fixture,
`_Stub` the handler whose `answer`, `delay` and `seen` a test sets and reads)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["_Stub", "serving_stub"]


class _Stub(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat completions endpoint with canned answers."""

    answer: Any = None
    seen: list[dict[str, Any]] = []
    delay = 0.0  # seconds before each answer: a slow endpoint

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(type(self).delay)
        type(self).seen.append({"path": self.path, "auth": self.headers.get("Authorization"),
                                "body": body})  # fmt: skip
        if type(self).answer is None:
            self.send_response(500)
            self.end_headers()
            return
        content = type(self).answer if isinstance(type(self).answer, str) else json.dumps(type(self).answer)
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def serving_stub() -> Iterator[str]:
    """The stub's base URL while it serves (the `llm_stub` fixture of conftest.py)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Stub.seen, _Stub.delay = [], 0.0
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
