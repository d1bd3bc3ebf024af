"""HTTP checks of the components' health endpoints: True when the answer is 200."""

from __future__ import annotations

import ssl
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path


def http_ok(url: str, token: str | None = None, ca: Path | None = None) -> bool:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    context = ssl.create_default_context(cafile=str(ca)) if ca else None
    try:
        with urllib.request.urlopen(request, timeout=3, context=context) as response:
            return response.status == 200
    except urllib.error.HTTPError:
        return False


def http_ok_insecure(url: str) -> bool:
    """The controllers' serving certs are self-signed; /healthz needs no credentials."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=3, context=context) as response:
            return response.status == 200
    except urllib.error.HTTPError:
        return False


def quiet(check: Callable[[], bool]) -> bool:
    """The check's answer, with any error (connection refused, say) as False."""
    try:
        return check()
    except Exception:  # noqa: BLE001
        return False
