"""A loopback HTTP server answering recorded API responses, for the watch unit tests: the real client
(kubernetes) talks to it as to an API server; every request is kept (path with query, headers)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, Any]  # status and body: a dict or list as JSON, str or bytes as text


class RecordedAPI:
    def __init__(self, answers: dict[str, Answer]) -> None:
        self.answers = answers
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.url = ""

    def answer(self, path: str) -> Answer:
        """The answer for a path with its query, else for the path alone, else 404 as the API server says it.
        Compared without case: client versions spell a boolean query value True or true."""
        answers = {key.lower(): value for key, value in self.answers.items()}
        found = answers.get(path.lower()) or answers.get(path.split("?", 1)[0].lower())
        return found or (404, {"kind": "Status", "status": "Failure", "reason": "NotFound", "code": 404,
                               "message": f"{path.split('?', 1)[0]} not found"})


@contextmanager
def serving(answers: dict[str, Answer]) -> Iterator[RecordedAPI]:
    api = RecordedAPI(answers)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            api.requests.append((self.path, dict(self.headers)))
            status, body = api.answer(self.path)
            payload = body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain" if isinstance(body, (str, bytes)) else "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()


def kubeconfig_for(url: str, user: dict[str, Any] | None = None, namespace: str = "team-a") -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Config", "current-context": "here",
            "clusters": [{"name": "here", "cluster": {"server": url}}],
            "users": [{"name": "me", "user": user or {"token": "recorded-token"}}],
            "contexts": [{"name": "here", "context": {"cluster": "here", "user": "me", "namespace": namespace}}]}
