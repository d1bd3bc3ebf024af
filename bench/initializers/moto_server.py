"""moto's server (the same app as `python -m moto.server`), optionally with per-request latency.

    python bench/initializers/moto_server.py --port 5000 [--latency-ms 10]

On loopback a request has no network latency, so the cost of a small GET is mostly CPU in the
moto process and in botocore; a real object store answers a GET after tens of milliseconds. The
delay is a sleep before moto handles the request, so it holds no lock and delayed requests
overlap, as they would against S3.
"""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any


class DelayedApplication:
    """WSGI middleware: wait, then let moto answer."""

    def __init__(self, application: Any, latency_seconds: float) -> None:
        self._application = application
        self._latency_seconds = latency_seconds

    def __call__(self, environ: dict, start_response: Any) -> Any:
        if self._latency_seconds and not environ.get("PATH_INFO", "").startswith("/moto-api"):
            time.sleep(self._latency_seconds)
        return self._application(environ, start_response)


def main() -> None:
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
    from werkzeug.serving import run_simple

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    arguments = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    application = DelayedApplication(DomainDispatcherApplication(create_backend_app), arguments.latency_ms / 1000)
    run_simple("127.0.0.1", arguments.port, application, threaded=True, request_handler=MotoRequestHandler)


if __name__ == "__main__":
    main()
