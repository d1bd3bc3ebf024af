"""Throughput of the S3 initializer against a sequential boto3 baseline, on one moto server.

    .venv/bin/python bench/initializers/run.py [--small-count 1000] [--large-mib 128] [--repeat 3]

Starts moto's server (moto_server.py: the app of `python -m moto.server`) on a free loopback
port in a separate process, so server and client do not share a GIL; uploads N small objects
and one large (multipart) one; then times, on that same server:

  baseline  list, then for each object get_object + read the whole body + write the file,
            one after another (what upstream's OpenDAL initializer does with `op.read`)
  ours      `run_initializer("dataset", ...)`: parallel, streamed, checksummed, with manifest
  ranged    ours with the large object forced into 16 MiB ranges (shows what moto charges for
            a ranged GET: it reads the whole object for each one)

With --latency-ms > 0 (default 10) the small-object case runs again on a second moto server that
waits that long before answering each request, like a real object store's time to first byte.

Each figure is the median of --repeat runs, interleaved between methods and after one untimed
warm-up round (not for the slow latency scenario), each into a fresh directory; every method's files are compared (sha256) with the baseline's. Prints a table with seconds, MB/s and the ratio to the
baseline. This is a script, not a test: its numbers depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "components"))

from pulumi_kubeflow_trainer.initializers import run_initializer  # noqa: E402
from pulumi_kubeflow_trainer.initializers.safe_paths import MANIFEST_NAME  # noqa: E402

BUCKET = "bench"
KEY = SECRET = "bench"
MB = 1_000_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_moto(port: int, latency_ms: float) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("moto_server.py")), "--port", str(port),
         "--latency-ms", str(latency_ms)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/moto-api/data.json", timeout=1).read()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("moto server did not start")


def s3_client(endpoint: str):
    """A client from a fresh session, as a new initializer process would build (boto3's default
    session would cache the parsed service model between runs and flatter the baseline)."""
    import boto3

    session = boto3.Session(aws_access_key_id=KEY, aws_secret_access_key=SECRET, region_name="us-east-1")
    return session.client("s3", endpoint_url=endpoint)


def upload_fixtures(endpoint: str, small_count: int, small_size: int, large_mib: int) -> None:
    client = s3_client(endpoint)
    client.create_bucket(Bucket=BUCKET)
    payload = os.urandom(small_size)

    def put(index: int) -> None:
        # Distinct content per object so that nothing can be deduplicated along the way.
        client.put_object(Bucket=BUCKET, Key=f"small/{index % 10}/{index:05d}.bin", Body=index.to_bytes(8, "big") + payload)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, range(small_count)))
    with tempfile.NamedTemporaryFile() as large:
        for _ in range(large_mib):
            large.write(os.urandom(1024 * 1024))
        large.flush()
        client.upload_file(large.name, BUCKET, "large/weights.bin")  # multipart, like a real upload


def sequential_baseline(endpoint: str, prefix: str, output: Path) -> None:
    """Upstream's approach: list, then read each object whole into memory and write it."""
    client = s3_client(endpoint)
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        for listed in page.get("Contents", ()):
            target = output / listed["Key"][len(prefix):]
            target.parent.mkdir(parents=True, exist_ok=True)
            body = client.get_object(Bucket=BUCKET, Key=listed["Key"])["Body"].read()
            target.write_bytes(body)


def our_initializer(endpoint: str, prefix: str, output: Path, workers: int | None, **transfer: int) -> None:
    """The initializer as the CLI runs it; `transfer` overrides part size / ranged threshold."""
    from pulumi_kubeflow_trainer.initializers.config import load_settings
    from pulumi_kubeflow_trainer.initializers.patterns import resolve_path_filter
    from pulumi_kubeflow_trainer.initializers.s3_source import S3Source
    from pulumi_kubeflow_trainer.initializers.storage_uri import parse_storage_uri

    environ = {"STORAGE_URI": f"s3://{BUCKET}/{prefix}", "ENDPOINT": endpoint, "ACCESS_KEY_ID": KEY,
               "SECRET_ACCESS_KEY": SECRET, "REGION": "us-east-1"}
    if not transfer:
        status = run_initializer("dataset", str(output), workers, environ=environ, stream=io.StringIO())
        if status != 0:
            raise SystemExit(f"initializer failed with status {status}")
        return
    settings = load_settings("dataset", environ, output_dir=output, workers=workers)
    location = parse_storage_uri(environ["STORAGE_URI"], "dataset")
    S3Source(settings, location, resolve_path_filter(settings, "s3"), io.StringIO(), **transfer).download()


def time_once(run: Callable[[Path], None], output: Path) -> float:
    started = time.perf_counter()
    run(output)
    return time.perf_counter() - started


def digest_tree(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in root.rglob("*")
        if path.is_file() and path.name != MANIFEST_NAME
    }


def measure(case: tuple[str, str, int], methods: list[tuple[str, Callable[[Path], None]]],
            repeat: int, scratch: Path, warmup: bool = True) -> list[tuple[str, str, float, int, float]]:
    """Median time of each method on one case; the first method is the baseline.

    Repetitions are interleaved (A B C, A B C, ...) so that a change in machine load during the
    run affects every method alike. Every method's files must match the baseline's.
    """
    name, prefix, total_bytes = case
    durations: dict[str, list[float]] = {method: [] for method, _ in methods}
    # Round -1 is an untimed warm-up: the first call in a process pays for lazy imports and
    # first-touch allocations that a method should not be charged for just by running first.
    for attempt in range(-1 if warmup else 0, repeat):
        reference = None
        for index, (method, run) in enumerate(methods):
            output = scratch / f"{prefix.strip('/')}-{index}-{attempt}"
            seconds = time_once(run, output)
            if attempt >= 0:
                durations[method].append(seconds)
            digests = digest_tree(output)
            if reference is None:
                reference = digests
            elif digests != reference:
                raise SystemExit(f"{name}: {method} produced files that differ from the baseline's")
            shutil.rmtree(output)
    baseline_seconds = statistics.median(durations[methods[0][0]])
    return [(name, method, statistics.median(durations[method]), total_bytes, baseline_seconds) for method, _ in methods]


def run_scenario(arguments: argparse.Namespace, latency_ms: float, scratch: Path) -> list[tuple]:
    port = free_port()
    server = start_moto(port, latency_ms)
    endpoint = f"http://127.0.0.1:{port}"
    small_bytes = arguments.small_count * (arguments.small_kib * 1024 + 8)
    small = (f"{arguments.small_count} x {arguments.small_kib} KiB", "small/", small_bytes)
    large = (f"1 x {arguments.large_mib} MiB", "large/", arguments.large_mib * 1024 * 1024)
    baseline = ("sequential boto3 (upstream-like)", lambda prefix: lambda out: sequential_baseline(endpoint, prefix, out))
    ours = ("initializer (defaults)", lambda prefix: lambda out: our_initializer(endpoint, prefix, out, arguments.workers))
    ranged = ("initializer, 16 MiB ranges forced",
              lambda prefix: lambda out: our_initializer(endpoint, prefix, out, arguments.workers,
                                                         part_size=16 << 20, ranged_threshold=16 << 20))
    try:
        upload_fixtures(endpoint, arguments.small_count, arguments.small_kib * 1024,
                        arguments.large_mib if latency_ms == 0 else 1)
        label = f"moto{f' +{latency_ms:g} ms' if latency_ms else ''}"
        # With added latency a warm-up round would cost as much as a measured one and change little.
        rows = [(label, *row) for row in measure(
            small, [(m, factory("small/")) for m, factory in (baseline, ours)], arguments.repeat, scratch,
            warmup=latency_ms == 0)]
        if latency_ms == 0:  # latency changes little for one large stream; keep the run short
            rows += [(label, *row) for row in measure(
                large, [(m, factory("large/")) for m, factory in (baseline, ours, ranged)], arguments.repeat, scratch)]
        return rows
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small-count", type=int, default=1000)
    parser.add_argument("--small-kib", type=int, default=16)
    parser.add_argument("--large-mib", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--latency-ms", type=float, default=10.0,
                        help="also run the small-object case with this per-request latency (0: skip)")
    parser.add_argument("--workers", type=int, default=None, help="initializer workers (default: its own)")
    arguments = parser.parse_args()
    os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory(prefix="initializer-bench-") as scratch_root:
        for latency_ms in sorted({0.0, arguments.latency_ms}):
            rows += run_scenario(arguments, latency_ms, Path(scratch_root) / f"latency-{latency_ms:g}")
    print_table(rows, arguments.repeat)
    return 0


def print_table(rows: list[tuple], repeat: int) -> None:
    load = os.getloadavg()[0]
    print(f"\nS3 download, median of {repeat} run(s); {os.cpu_count()} CPUs, load average {load:.1f}\n")
    print(f"| {'server':<14} | {'case':<16} | {'method':<34} | {'seconds':>8} | {'MB/s':>7} | {'vs baseline':>11} |")
    print(f"|{'-' * 16}|{'-' * 18}|{'-' * 36}|{'-' * 10}|{'-' * 9}|{'-' * 13}|")
    for server, case, method, seconds, total_bytes, baseline_seconds in rows:
        print(
            f"| {server:<14} | {case:<16} | {method:<34} | {seconds:>8.2f} | {total_bytes / MB / seconds:>7.1f} | "
            f"{baseline_seconds / seconds:>10.2f}x |"
        )


if __name__ == "__main__":
    raise SystemExit(main())
