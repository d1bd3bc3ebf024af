"""Runtime snapshot: the ConfigMap in which the controller freezes the runtime a TrainJob started with."""

from __future__ import annotations

from typing import ClassVar

from ..api.trainjob import TrainJob
from ..framework.compiled import Derived
from ..framework.context import RenderContext
from ..framework.info import RuntimeInfo
from ..framework.kube import Manifest
from ..framework.objects import child_metadata
from ..yamlio import dump

NAME = "RuntimeSnapshot"
DATA_KEY = "runtime"


# One YAML dump per runtime, however many TrainJobs use it. `kind` has a default, so a runtime built in
# Python may not carry it in its manifest.
RUNTIME_YAML: Derived[str] = Derived("runtime snapshot", lambda compiled: dump({"kind": compiled.runtime.kind, **compiled.runtime.to_manifest()}))


def snapshot_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-runtime-snapshot"


class RuntimeSnapshotPlugin:
    name: ClassVar[str] = NAME

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        if not context.runtime_snapshot:
            return []
        return [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": child_metadata(trainjob, snapshot_name(trainjob)),
                "data": {DATA_KEY: info.compiled.derive(RUNTIME_YAML)},
            }
        ]
