"""An inline program on a private file backend, for the engine tests: up, preview with what each
resource's step was, the rendered manifests and the state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import yaml

from tests.toolchain import inline_stack


def changes(summary: dict[str, int]) -> dict[str, int]:
    return {op: count for op, count in summary.items() if op != "same" and count}


class InlineStack:
    """An inline program on a private file backend; `settings` are read by the program on every run. It
    renders to a directory, or deploys to the cluster of `kubeconfig`."""

    def __init__(self, name: str, build: Callable[[pulumi.ResourceOptions, dict[str, Any]], object], env: dict[str, str],
                 engine_bin: Path, root: Path, kubeconfig: Path | None = None) -> None:
        self.settings: dict[str, Any] = {}
        self.render_dir = root / "out"
        self.state_dir = Path(env["PULUMI_BACKEND_URL"].removeprefix("file://"))
        root.mkdir(parents=True, exist_ok=True)
        self.log = (root / "pulumi.log").open("w")

        def program() -> None:
            if kubeconfig is None:  # render mode: the manifests land in `render_dir`
                provider = k8s.Provider("render", render_yaml_to_directory=str(self.render_dir))
            else:
                provider = k8s.Provider("cluster", kubeconfig=str(kubeconfig))
            build(pulumi.ResourceOptions(provider=provider), self.settings)

        self.stack = inline_stack(name, "engine-it", program, env, engine_bin)

    def out(self, line: str) -> None:
        self.log.write(line + "\n")
        self.log.flush()

    def destroy(self) -> auto.DestroyResult:
        return self.stack.destroy(on_output=self.out, color="never")

    def up(self) -> auto.UpResult:
        return self.stack.up(on_output=self.out, color="never")

    def preview(self) -> auto.PreviewResult:
        return self.stack.preview(on_output=self.out, color="never")

    def steps(self, operation: str = "preview") -> tuple[dict[str, str], str]:
        """`preview` or `up`: each resource's step (`same`, `create`, `replace`, ...) by its name, and what
        the CLI printed."""
        steps: dict[str, str] = {}
        printed: list[str] = []

        def on_event(event: auto.EngineEvent) -> None:
            pre = event.resource_pre_event
            if pre is not None and pre.metadata.op is not None:
                name = pre.metadata.urn.rsplit("::", 1)[-1]
                op = pre.metadata.op.value
                # a replacement is seen as several steps (delete-replaced, replace, create-replacement)
                steps[name] = "replace" if "replace" in op or steps.get(name) == "replace" else op

        def on_output(line: str) -> None:
            printed.append(line)
            self.out(line)

        run = self.stack.preview if operation == "preview" else self.stack.up
        run(on_output=on_output, on_event=on_event, color="never")
        return steps, "\n".join(printed)

    def rendered(self, kind: str, name: str) -> dict[str, Any]:
        for path in (self.render_dir / "1-manifest").glob("*.yaml"):
            for document in yaml.safe_load_all(path.read_text()):
                if document and document.get("kind") == kind and document["metadata"]["name"] == name:
                    return document
        raise AssertionError(f"no rendered {kind} {name}")

    def state_text(self) -> str:
        return "".join(path.read_text() for path in self.state_dir.rglob("*.json"))
