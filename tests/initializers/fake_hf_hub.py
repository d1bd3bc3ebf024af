"""A tiny local stand-in for the Hugging Face Hub: just the routes `snapshot_download` uses.

Routes (repo ids are `org/name`; datasets are prefixed `datasets/` in file URLs):
  GET  /api/{models|datasets}/{repo}/revision/{revision}   -> {"id", "sha", "siblings"}
  GET  /api/{models|datasets}/{repo}/tree/{revision}        -> flat list of files (recursive)
  HEAD /[datasets/]{repo}/resolve/{revision}/{path}          -> X-Repo-Commit, ETag, size headers
  GET  same                                                  -> the bytes (Range supported)

Private repos answer 401 without the right `Authorization: Bearer <token>`, like the Hub does.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_SUFFIXES = (".safetensors", ".bin", ".gguf", ".msgpack", ".h5", ".pt", ".pth", ".parquet")


def git_blob_id(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class FakeRepo:
    repo_id: str
    repo_type: str  # "model" or "dataset"
    commits: dict[str, dict[str, bytes]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    token: str | None = None  # set: the repo is private
    # Bytes served for a path instead of the committed ones (to simulate corruption in transit).
    serve_instead: dict[str, bytes] = field(default_factory=dict)

    def add_commit(self, files: dict[str, bytes], ref: str = "main") -> str:
        sha = hashlib.sha1(json.dumps(sorted((k, v.hex()) for k, v in files.items())).encode()).hexdigest()
        self.commits[sha] = dict(files)
        self.refs[ref] = sha
        return sha

    def resolve(self, revision: str) -> str | None:
        if revision in self.commits:
            return revision
        return self.refs.get(revision)


def tree_entry(path: str, content: bytes) -> dict:
    entry = {"type": "file", "path": path, "size": len(content), "oid": git_blob_id(content)}
    if path.endswith(LFS_SUFFIXES):
        entry["lfs"] = {"oid": hashlib.sha256(content).hexdigest(), "size": len(content), "pointerSize": 134}
    return entry


class FakeHub:
    """Holds repos, serves them on 127.0.0.1, and records request paths."""

    def __init__(self) -> None:
        self.repos: dict[tuple[str, str], FakeRepo] = {}
        self.requests: list[tuple[str, str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def endpoint(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeHub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_repo(self, repo_id: str, repo_type: str = "model", token: str | None = None) -> FakeRepo:
        repo = FakeRepo(repo_id, repo_type, token=token)
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def downloads(self) -> list[str]:
        """Paths of file GETs served so far (the bytes actually transferred)."""
        return [path for method, path in self.requests if method == "GET" and "/resolve/" in path]


_API = re.compile(r"^/api/(models|datasets)/(.+?)/(revision|tree)/([^/]+)(?:/(.*))?$")
_RESOLVE = re.compile(r"^/(datasets/)?(.+?)/resolve/([^/]+)/(.+)$")


class HubRequestHandler(BaseHTTPRequestHandler):
    """Serves one FakeHub; `hub` is bound per server by `_make_handler`."""

    protocol_version = "HTTP/1.1"
    hub: FakeHub

    def log_message(self, *arguments: object) -> None:  # keep pytest output clean
        pass

    def do_GET(self) -> None:
        self._route(send_body=True)

    def do_HEAD(self) -> None:
        self._route(send_body=False)

    def _route(self, send_body: bool) -> None:
        path = urlsplit(self.path).path
        self.hub.requests.append((self.command, path))
        if match := _API.match(path):
            kind, repo_id, route, revision, _ = match.groups()
            self._api(kind[:-1], repo_id, route, unquote(revision))
        elif match := _RESOLVE.match(path):
            prefix, repo_id, revision, file_path = match.groups()
            repo_type = "dataset" if prefix else "model"
            self._resolve(repo_type, repo_id, unquote(revision), unquote(file_path), send_body)
        else:
            self._error(404, "EntryNotFound")

    def _repo(self, repo_type: str, repo_id: str) -> FakeRepo | None:
        repo = self.hub.repos.get((repo_type, repo_id))
        if repo is None:
            self._error(401 if "Authorization" not in self.headers else 404, "RepoNotFound")
            return None
        if repo.token and self.headers.get("Authorization") != f"Bearer {repo.token}":
            self._error(401, "RepoNotFound")
            return None
        return repo

    def _api(self, repo_type: str, repo_id: str, route: str, revision: str) -> None:
        repo = self._repo(repo_type, repo_id)
        if repo is None:
            return
        sha = repo.resolve(revision)
        if sha is None:
            self._error(404, "RevisionNotFound")
            return
        files = repo.commits[sha]
        if route == "revision":
            siblings = [{"rfilename": name} for name in sorted(files)]
            self._json({"id": repo_id, "sha": sha, "siblings": siblings, "private": bool(repo.token)})
        else:
            self._json([tree_entry(name, files[name]) for name in sorted(files)])

    def _resolve(self, repo_type: str, repo_id: str, revision: str, file_path: str, send_body: bool) -> None:
        repo = self._repo(repo_type, repo_id)
        if repo is None:
            return
        sha = repo.resolve(revision)
        content = repo.commits.get(sha, {}).get(file_path) if sha else None
        if content is None:
            self._error(404, "EntryNotFound")
            return
        entry = tree_entry(file_path, content)
        etag = entry["lfs"]["oid"] if "lfs" in entry else entry["oid"]
        start, end = _byte_range(self.headers.get("Range"), len(content))
        self.send_response(206 if (start, end) != (0, len(content)) else 200)
        self.send_header("X-Repo-Commit", sha)
        self.send_header("ETag", f'"{etag}"')
        self.send_header("Content-Length", str(end - start))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if send_body:
            self.wfile.write(repo.serve_instead.get(file_path, content)[start:end])

    def _json(self, document: object) -> None:
        body = json.dumps(document).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str) -> None:
        body = json.dumps({"error": code}).encode()
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def _make_handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    return type("BoundHubRequestHandler", (HubRequestHandler,), {"hub": hub})


def _byte_range(header: str | None, size: int) -> tuple[int, int]:
    match = re.match(r"bytes=(\d+)-(\d*)$", header or "")
    if not match:
        return 0, size
    start = int(match.group(1))
    end = int(match.group(2)) + 1 if match.group(2) else size
    return min(start, size), min(end, size)
