"""End-to-end smoke check of the offline Pulumi toolchain (run it via tools/smoke-engine).

Proves, in a temp dir and with no cluster and no network, that the CLI, the Python language host,
the Python dynamic-provider plugin and the kubernetes provider work together with the project's
Python SDKs. Two programs run the same resources:

  inline     Automation API inline program (the program runs in this process; no language host)
  directory  Pulumi.yaml + __main__.py with runtime python/virtualenv (goes through
             pulumi-language-python and pulumi-language-python-exec)

Resources: a kubernetes Provider with render_yaml_to_directory, a core/v1 ConfigMap and a JobSet
(apiextensions.CustomResource, jobset.x-k8s.io/v1alpha2) through it, and a Python dynamic
resource whose output is marked secret. Steps per program: preview -> up -> YAML files rendered
-> preview again with zero changes -> export state, secret is ciphertext -> destroy (files gone).
Each step prints PASS/FAIL; the last line is "N passed, M failed"; exit code 1 on any failure.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import pulumi.automation as auto

TOOLS = Path(__file__).resolve().parent
PROJECT = "kft-smoke"
STACK = "smoke"
NAMESPACE = "smoke-ns"
SECRET_SIG = "4dabf18193072939515e22adb298388d"  # Pulumi's marker key for secret values in state

# The program, shared by both modes: exec'd into __main__ for the inline program (so dill pickles
# the dynamic provider by value) and written out as __main__.py for the directory program.
PROGRAM_SRC = textwrap.dedent(
    '''
    import secrets

    import pulumi
    import pulumi_kubernetes as k8s
    from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider


    class SmokeTokenProvider(ResourceProvider):
        """Generates a random token once; it lives only in (encrypted) state."""

        def create(self, props):
            import secrets as _secrets
            return CreateResult(id_="smoke-token", outs={"label": props["label"], "token": _secrets.token_hex(16)})

        def diff(self, _id, olds, news):
            return DiffResult(changes=olds.get("label") != news.get("label"))


    class SmokeToken(Resource):
        token: pulumi.Output[str]

        def __init__(self, name, label, opts=None):
            opts = pulumi.ResourceOptions.merge(
                opts, pulumi.ResourceOptions(additional_secret_outputs=["token"]))
            super().__init__(SmokeTokenProvider(), name, {"label": label, "token": None}, opts)


    def smoke_program():
        cfg = pulumi.Config()
        render_dir = cfg.require("renderDir")
        ns = cfg.require("namespace")
        provider = k8s.Provider("render", render_yaml_to_directory=render_dir)
        opts = pulumi.ResourceOptions(provider=provider)
        cm = k8s.core.v1.ConfigMap(
            "smoke-cm",
            metadata={"name": "smoke-cm", "namespace": ns},
            data={"hello": "world"},
            opts=opts,
        )
        js = k8s.apiextensions.CustomResource(
            "smoke-jobset",
            api_version="jobset.x-k8s.io/v1alpha2",
            kind="JobSet",
            metadata={"name": "smoke-jobset", "namespace": ns},
            spec={
                "replicatedJobs": [{
                    "name": "workers",
                    "replicas": 1,
                    "template": {"spec": {"template": {"spec": {
                        "restartPolicy": "Never",
                        "containers": [{"name": "main", "image": "busybox:1.36", "command": ["true"]}],
                    }}}},
                }],
            },
            opts=opts,
        )
        tok = SmokeToken("smoke-token", label="v1")
        pulumi.export("configmap", cm.metadata["name"])
        pulumi.export("jobset", js.metadata["name"])
        pulumi.export("token", tok.token)
    '''
)

RESULTS: list[tuple[str, bool, str]] = []


def step(name: str, fn: Callable[[], str | None]) -> bool:
    """Run one check, print PASS/FAIL with a detail line, never raise."""
    t0 = time.monotonic()
    try:
        detail = fn() or ""
        ok = True
    except Exception as exc:  # noqa: BLE001 - a smoke check reports, it does not crash
        ok, detail = False, f"{type(exc).__name__}: {exc}"
        if os.environ.get("SMOKE_TRACEBACK"):
            traceback.print_exc()
    dt = time.monotonic() - t0
    print(f"{'PASS' if ok else 'FAIL'}  {name}  ({dt:.1f}s)  {detail}".rstrip(), flush=True)
    RESULTS.append((name, ok, detail))
    return ok


def load_offline_env():
    spec = importlib.util.spec_from_file_location("offline_env", TOOLS / "offline_env.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bootstrap_bin() -> Path:
    out = subprocess.run([str(TOOLS / "bootstrap")], check=True, stdout=subprocess.PIPE, text=True).stdout
    return Path(out.strip().splitlines()[-1])


class Scenario:
    """One program (inline or directory) with its own render dir, taken through all steps."""

    def __init__(self, mode: str, root: Path, env: dict[str, str], bin_dir: Path):
        self.mode, self.root, self.env, self.bin_dir = mode, root, env, bin_dir
        self.render_dir = root / "rendered"
        self.stack: auto.Stack | None = None
        self.log = (root / "pulumi.log").open("w")

    def out(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()

    def create_stack(self) -> str:
        ws_opts = auto.LocalWorkspaceOptions(
            pulumi_home=self.env["PULUMI_HOME"],
            env_vars=self.env,
            pulumi_command=auto.PulumiCommand(root=str(self.bin_dir.parent)),
            secrets_provider="passphrase",
        )
        if self.mode == "inline":
            ws_opts.project_settings = auto.ProjectSettings(
                name=PROJECT,
                runtime="python",
                backend=auto.ProjectBackend(url=self.env["PULUMI_BACKEND_URL"]),
            )
            exec(compile(PROGRAM_SRC, "<smoke-program>", "exec"), vars(sys.modules["__main__"]))
            program = vars(sys.modules["__main__"])["smoke_program"]
            self.stack = auto.create_stack(STACK, project_name=PROJECT, program=program, opts=ws_opts)
        else:
            work = self.root / "program"
            work.mkdir()
            venv = Path(self.env["PULUMI_KFT_PYTHON"]).parent.parent
            (work / "Pulumi.yaml").write_text(
                f"name: {PROJECT}\n"
                f"runtime:\n  name: python\n  options:\n    virtualenv: {venv}\n"
                f"backend:\n  url: {self.env['PULUMI_BACKEND_URL']}\n"
            )
            (work / "__main__.py").write_text(PROGRAM_SRC + "\n\nsmoke_program()\n")
            self.stack = auto.create_stack(STACK, work_dir=str(work), opts=ws_opts)
        self.stack.set_config("renderDir", auto.ConfigValue(str(self.render_dir)))
        self.stack.set_config("namespace", auto.ConfigValue(NAMESPACE))
        return f"stack {STACK} ({self.mode})"

    def preview_creates(self) -> str:
        res = self.stack.preview(on_output=self.out, color="never")
        summary = dict(res.change_summary)
        # stack + k8s provider + ConfigMap + JobSet + dynamic resource
        if summary.get("create") != 5:
            raise AssertionError(f"expected 5 creates, got {summary}")
        return f"change_summary={summary}"

    def up(self) -> str:
        res = self.stack.up(on_output=self.out, color="never")
        if res.summary.result != "succeeded":
            raise AssertionError(f"up result {res.summary.result}")
        token = res.outputs["token"]
        if not token.secret or len(token.value) != 32:
            raise AssertionError(f"token output not a secret 32-hex string: secret={token.secret}")
        return f"resource_changes={res.summary.resource_changes}"

    def rendered_files(self) -> list[Path]:
        return sorted(p for p in self.render_dir.rglob("*.yaml"))

    def yaml_rendered(self) -> str:
        files = self.rendered_files()
        names = [str(p.relative_to(self.render_dir)) for p in files]
        text = "\n".join(p.read_text() for p in files)
        for needle in ("kind: ConfigMap", "kind: JobSet", "apiVersion: jobset.x-k8s.io/v1alpha2",
                       "name: smoke-cm", "name: smoke-jobset", f"namespace: {NAMESPACE}", "replicatedJobs"):
            if needle not in text:
                raise AssertionError(f"{needle!r} not in rendered YAML {names}")
        return f"{len(files)} files: {names}"

    def preview_no_changes(self) -> str:
        res = self.stack.preview(on_output=self.out, color="never", expect_no_changes=True)
        changed = {k: v for k, v in res.change_summary.items() if k != "same" and v}
        if changed:
            raise AssertionError(f"unexpected changes {res.change_summary}")
        return f"change_summary={dict(res.change_summary)}"

    def secret_encrypted(self) -> str:
        # The Automation API's export_stack() passes --show-secrets (its envelopes say
        # "plaintext"), so export through the CLI without it, as a user would, and also read the
        # checkpoint file of the DIY backend: both must hold only ciphertext for the token.
        plaintext = self.stack.outputs()["token"].value  # outputs() also uses --show-secrets
        exported = subprocess.run(
            [str(self.bin_dir / "pulumi"), "stack", "export", "--stack", STACK, "--non-interactive"],
            cwd=self.stack.workspace.work_dir, env=self.env, check=True, capture_output=True, text=True,
        ).stdout
        deployment = json.loads(exported)["deployment"]
        state_files = list((self.root / "state").rglob(f"{STACK}.json"))
        if len(state_files) != 1:
            raise AssertionError(f"expected one checkpoint file, found {state_files}")
        for where, text in (("stack export", exported), (str(state_files[0]), state_files[0].read_text())):
            if plaintext in text:
                raise AssertionError(f"plaintext token found in {where}")
        dyn = [r for r in deployment["resources"] if r["type"].startswith("pulumi-python:dynamic")]
        if len(dyn) != 1:
            raise AssertionError(f"expected 1 dynamic resource in state, found {len(dyn)}")
        tok = dyn[0]["outputs"]["token"]
        if not (isinstance(tok, dict) and tok.get(SECRET_SIG) and tok.get("ciphertext")):
            raise AssertionError(f"token output is not a ciphertext envelope: {str(tok)[:80]}")
        stack_out = next(r for r in deployment["resources"] if r["type"] == "pulumi:pulumi:Stack")
        if "ciphertext" not in json.dumps(stack_out["outputs"].get("token")):
            raise AssertionError("stack output 'token' is not encrypted")
        return (f"token = ciphertext {tok['ciphertext'][:16]}...; plaintext absent from "
                f"`pulumi stack export` and {state_files[0].name}")

    def destroy(self) -> str:
        res = self.stack.destroy(on_output=self.out, color="never")
        if res.summary.result != "succeeded":
            raise AssertionError(f"destroy result {res.summary.result}")
        left = self.rendered_files()
        if left:
            raise AssertionError(f"rendered files left after destroy: {left}")
        self.stack.workspace.remove_stack(STACK)
        if self.mode == "inline":  # LocalWorkspace made a temp project dir for the inline program
            shutil.rmtree(self.stack.workspace.work_dir, ignore_errors=True)
        return f"resource_changes={res.summary.resource_changes}; rendered files removed"

    def run(self) -> None:
        prefix = f"[{self.mode}]"
        if not step(f"{prefix} create stack", self.create_stack):
            return
        ok = step(f"{prefix} preview (5 creates)", self.preview_creates)
        ok = step(f"{prefix} up", self.up) and ok
        if ok:
            step(f"{prefix} rendered YAML present", self.yaml_rendered)
            step(f"{prefix} preview again: zero changes", self.preview_no_changes)
            step(f"{prefix} state export: secret is ciphertext", self.secret_encrypted)
        step(f"{prefix} destroy", self.destroy)
        self.report_warnings()

    def report_warnings(self) -> None:
        """Informational: distinct engine warnings seen (e.g. provider version mismatch)."""
        self.log.close()
        seen = []
        for line in (self.root / "pulumi.log").read_text().splitlines():
            if "warning:" in line:
                msg = line.split("warning:", 1)[1].strip()
                if msg not in seen:
                    seen.append(msg)
        for msg in seen:
            print(f"note  [{self.mode}] engine warning: {msg}")


def install_provider_in_cache(bin_dir: Path, env: dict[str, str]) -> str:
    """The version-exact alternative to the PATH lookup (see tools/README.md)."""
    version = json.loads((Path(auto.__file__).parents[1].parent / "pulumi_kubernetes"
                          / "pulumi-plugin.json").read_text())["version"]
    subprocess.run([str(bin_dir / "pulumi"), "plugin", "install", "resource", "kubernetes", version,
                    "--file", str(bin_dir.parent / "provider" / "pulumi-resource-kubernetes")],
                   env=env, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    env["PULUMI_IGNORE_AMBIENT_PLUGINS"] = "true"
    os.environ["PULUMI_IGNORE_AMBIENT_PLUGINS"] = "true"
    installed = sorted(p.name for p in (Path(env["PULUMI_HOME"]) / "plugins").iterdir())
    return f"{installed}; PULUMI_IGNORE_AMBIENT_PLUGINS=true"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", help="bin dir with pulumi + plugins (default: run tools/bootstrap)")
    ap.add_argument("--mode", choices=["inline", "directory", "both"], default="both")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (logs, rendered YAML)")
    ap.add_argument("--plugin-cache", action="store_true",
                    help="find the provider through `pulumi plugin install --file` in PULUMI_HOME "
                         "with PULUMI_IGNORE_AMBIENT_PLUGINS=true, instead of the PATH lookup")
    args = ap.parse_args()

    bin_dir = Path(args.bin).resolve() if args.bin else bootstrap_bin()
    offline_env = load_offline_env()
    tmp = Path(tempfile.mkdtemp(prefix="kft-smoke-"))
    print(f"bin dir: {bin_dir}\ntemp dir: {tmp}", flush=True)
    version = subprocess.run([str(bin_dir / "pulumi"), "version"], stdout=subprocess.PIPE, text=True).stdout
    print(f"pulumi version: {version.strip()}", flush=True)
    try:
        for mode in (["inline", "directory"] if args.mode == "both" else [args.mode]):
            root = tmp / mode
            root.mkdir()
            env = offline_env.load(bin_dir, python=sys.executable, overrides={
                "PULUMI_HOME": str(root / "pulumi-home"),
                "PULUMI_BACKEND_URL": f"file://{root / 'state'}",
                "PULUMI_CONFIG_PASSPHRASE": "smoke-test-passphrase",
            })
            # The SDK turns $KUBECONFIG into the provider's `kubeconfig` input, which render mode
            # rejects ("kubeconfig" arg is not compatible with "renderYamlToDirectory").
            env.pop("KUBECONFIG", None)
            os.environ.pop("KUBECONFIG", None)
            (root / "state").mkdir()
            if args.plugin_cache and not step(f"[{mode}] plugin install --file (cache route)",
                                              lambda env=env: install_provider_in_cache(bin_dir, env)):
                continue
            Scenario(mode, root, env, bin_dir).run()
    finally:
        if args.keep or any(not ok for _, ok, _ in RESULTS):
            print(f"kept {tmp} (pulumi.log per mode)")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(ok for _, ok, _ in RESULTS)
    failed = len(RESULTS) - passed
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
