"""Load tools/pulumi-offline.env into an environment dict, without a shell.

The env file is the single source of truth for the offline Pulumi settings; tools/pulumi-env.sh
is the shell reader of the same file. Typical use from tests:

    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("offline_env", repo / "tools" / "offline_env.py")
    offline_env = importlib.util.module_from_spec(spec); spec.loader.exec_module(offline_env)

    env = offline_env.load(bin_dir, overrides={
        "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
        "PULUMI_CONFIG_PASSPHRASE": "test",
    })
    # a full environment: pass it to subprocess (env=env) or to
    # pulumi.automation.LocalWorkspaceOptions(env_vars=env, pulumi_home=env["PULUMI_HOME"],
    #     pulumi_command=auto.PulumiCommand(root=str(pathlib.Path(bin_dir).parent)))

`overrides` are applied as if they were already in the environment, so `KEY?=` defaults yield to
them. Run as a script (`python tools/offline_env.py BIN_DIR`) it prints the resulting settings.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path

ENV_FILE = Path(__file__).with_name("pulumi-offline.env")
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(\??=)(.*)$")
_DEFAULT_CACHE = "pulumi-kubeflow-trainer"


def parse(path: Path = ENV_FILE) -> list[tuple[str, str, str]]:
    """Return the (key, op, raw_value) entries of the env file; op is '=' or '?='."""
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"{path}:{n}: not KEY=VALUE or KEY?=VALUE: {line!r}")
        entries.append((m.group(1), m.group(2), m.group(3)))
    return entries


def tools_dir_for(bin_dir: Path) -> Path:
    """The tools cache dir: parent of a bootstrap-built bin dir, else a cache dir (ambient pulumi)."""
    if (bin_dir.parent / ".pulumi-kft-tools").exists():
        return bin_dir.parent
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / _DEFAULT_CACHE / "ambient"


def load(
    bin_dir: str | os.PathLike[str],
    base: Mapping[str, str] | None = None,
    overrides: Mapping[str, str] | None = None,
    python: str | None = None,
) -> dict[str, str]:
    """Return `base` (default: os.environ) with the offline settings applied."""
    bin_path = Path(bin_dir).resolve()
    if not (bin_path / "pulumi").exists():
        raise FileNotFoundError(f"{bin_path}/pulumi not found; run tools/bootstrap")
    env: MutableMapping[str, str] = dict(os.environ if base is None else base)
    env.update(overrides or {})
    env["PULUMI_KFT_BIN"] = str(bin_path)
    env.setdefault("PULUMI_KFT_TOOLS", str(tools_dir_for(bin_path)))
    env.setdefault("PULUMI_KFT_PYTHON", python or sys.executable)
    for key, op, raw in parse():
        if op == "?=" and env.get(key):
            continue
        env[key] = _PLACEHOLDER.sub(lambda m: env.get(m.group(1), ""), raw)
    link_plugins(Path(env["PULUMI_KFT_TOOLS"]) / "pulumi-home", Path(env["PULUMI_HOME"]))
    return dict(env)


def link_plugins(source_home: Path, pulumi_home: Path) -> None:
    """The plugins tools/bootstrap installed (the kubernetes provider, in its version's directory) also in
    `pulumi_home`, as directories of symlinks: the engine finds a plugin in PULUMI_HOME only in a real
    directory named for its kind, name and version."""
    source, target = source_home / "plugins", pulumi_home / "plugins"
    if not source.is_dir() or source.resolve() == target.resolve():
        return
    for plugin in source.iterdir():
        if not plugin.is_dir():
            continue
        (target / plugin.name).mkdir(parents=True, exist_ok=True)
        for binary in plugin.iterdir():
            link = target / plugin.name / binary.name
            if not link.exists():
                link.symlink_to(binary.resolve())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: offline_env.py BIN_DIR")
    result = load(sys.argv[1])
    for key, _, _ in parse():
        print(f"{key}={result[key]}")
