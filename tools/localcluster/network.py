"""Loopback ports (free ones, picked per cluster) and the cluster's address ranges."""

from __future__ import annotations

import socket
from collections.abc import Iterable

LOOPBACK = "127.0.0.1"
SERVICE_CIDR, SERVICE_IP = "10.96.0.0/16", "10.96.0.1"  # SERVICE_IP: the `kubernetes` Service


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((LOOPBACK, port))
        except OSError:
            return False
    return True


def pick_ports(names: Iterable[str], previous: dict[str, int] | None = None) -> dict[str, int]:
    """A distinct free loopback port per name. The previous ports when they are for the same names
    and all still free (a restarted cluster keeps its ports), else all new ones."""
    names = tuple(names)
    if previous and set(previous) == set(names) and all(port_is_free(port) for port in previous.values()):
        return dict(previous)
    ports: dict[str, int] = {}
    holders = []
    try:
        for name in names:  # hold every socket until all are picked: distinct ports
            sock = socket.socket()
            holders.append(sock)
            sock.bind((LOOPBACK, 0))
            ports[name] = sock.getsockname()[1]
    finally:
        for sock in holders:
            sock.close()
    return ports
