"""Captured these recordings from the single-file tools/cluster of commit a39ae26, for fixed inputs
(ports 30001.., fake CA certificates, a fixed token, the dir and bin dir replaced by /CLUSTER_DIR and
/CLUSTER_BIN). Kept to show how they were made; it runs against that script, not the package:

    git show a39ae26:tools/cluster > /tmp/old-cluster
    COLUMNS=80 python3 tests/tools/recorded/cluster/capture.py /tmp/old-cluster /tmp/capture
"""
import importlib.machinery, importlib.util, json, sys, argparse
from pathlib import Path

script, out = Path(sys.argv[1]), Path(sys.argv[2])
loader = importlib.machinery.SourceFileLoader("old_cluster", str(script))
spec = importlib.util.spec_from_loader("old_cluster", loader)
old = importlib.util.module_from_spec(spec)
loader.exec_module(old)

DIR = "/CLUSTER_DIR"
BIN = "/CLUSTER_BIN"
root = out / "work"
root.mkdir(parents=True, exist_ok=True)
layout = old.Layout(root)
layout.make()
FAKE_CA = "-----BEGIN CERTIFICATE-----\nRkFLRSBDQQ==\n-----END CERTIFICATE-----\n"
FAKE_WEBHOOK_CA = "-----BEGIN CERTIFICATE-----\nRkFLRSBXRUJIT09LIENB\n-----END CERTIFICATE-----\n"
(layout.pki / "ca.crt").write_text(FAKE_CA)
(layout.pki / "webhook-ca.crt").write_text(FAKE_WEBHOOK_CA)
ports = {name: 30001 + i for i, name in enumerate(old.PORT_NAMES)}
token = "0123456789abcdef0123456789abcdef0123456789abcdef"
old.write_kubeconfig(layout, ports, token)
old.write_configs(layout, ports)

def placeholder(text: str) -> str:
    return text.replace(str(layout.root), DIR).replace(BIN_REAL, BIN)

BIN_REAL = str(out / "bin")
rec = out / "recorded"
rec.mkdir(exist_ok=True)
for name in ("scheduler.yaml", "jobset.yaml", "kwok.yaml", "webhooks.json"):
    (rec / name).write_text(placeholder((layout.config / name).read_text()))
(rec / "kubeconfig").write_text(placeholder(layout.kubeconfig.read_text()))
(rec / "nodes-2.json").write_text(json.dumps(old.nodes_manifest(2), indent=2) + "\n")
(rec / "nodes-3.json").write_text(json.dumps(old.nodes_manifest(3), indent=2) + "\n")
(rec / "storage-class.json").write_text(json.dumps(old.storage_class(), indent=2) + "\n")

# The command lines and environments of the components, in start order.
started = []
old.start = lambda layout, name, argv, env=None: started.append({"name": name, "argv": argv, "env": env or {}}) or 1
old.wait_for = lambda *a, **k: None
phases = {}
old._start_all(layout, Path(BIN_REAL), ports, token, 1.0, phases)
(rec / "components.json").write_text(placeholder(json.dumps(
    {"ports": ports, "token": token, "ca.crt": FAKE_CA, "webhook-ca.crt": FAKE_WEBHOOK_CA,
     "start_order": list(old.COMPONENTS), "started": started, "phases": list(phases)}, indent=2)) + "\n")
(rec / "probe-jobset.json").write_text(json.dumps(old._probe_jobset(), indent=2) + "\n")
# The CLI: every subcommand's options and defaults.
import io, contextlib
helps = {}  # argparse wraps at $COLUMNS: capture with COLUMNS=80
for cmd in ("up", "down", "status", "env", "kubectl"):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            old.main([cmd, "--help"])
    except SystemExit:
        pass
    helps[cmd] = buf.getvalue()
(rec / "cli-help.json").write_text(json.dumps(helps, indent=2) + "\n")
print(rec)

# The PKI: every openssl command make_pki runs on an empty dir, and the files it leaves.
pki_root = out / "pki-work"
pki_layout = old.Layout(pki_root)
pki_layout.make()
calls = []
def fake_openssl(*args, cwd):
    calls.append(list(args))
    for flag in ("-out", "-keyout"):
        if flag in args:
            (cwd / args[args.index(flag) + 1]).write_text("fake\n")
old.openssl = fake_openssl
old.secrets.token_hex = lambda n: "f" * (2 * n)
tok = old.make_pki(pki_layout)
files = {}
for path in sorted(pki_layout.pki.rglob("*")):
    if path.is_file():
        rel = str(path.relative_to(pki_layout.pki))
        files[rel] = {"mode": oct(path.stat().st_mode & 0o777),
                      **({"text": path.read_text()} if path.suffix in (".ext", ".csv") else {})}
calls_again = len(calls)
old.make_pki(pki_layout)  # idempotent: a second run runs nothing
(rec / "pki.json").write_text(json.dumps({"token": tok, "openssl": calls, "second_run_openssl": len(calls) - calls_again,
                                          "files": files, "dir_mode": oct(pki_layout.pki.stat().st_mode & 0o777)}, indent=2) + "\n")
