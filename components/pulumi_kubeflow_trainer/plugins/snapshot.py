"""Runtime snapshot: the ConfigMap in which the controller freezes the runtime a TrainJob started with."""

from __future__ import annotations

from typing import ClassVar

from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.info import RuntimeInfo
from ..framework.kube import Manifest
from ..yamlio import dump
from .objects import child_metadata

NAME = "RuntimeSnapshot"
DATA_KEY = "runtime"


def snapshot_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-runtime-snapshot"


class RuntimeSnapshotPlugin:
    name: ClassVar[str] = NAME

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        if not context.runtime_snapshot:
            return []
        cache = info.compiled.cache
        if DATA_KEY not in cache:  # one YAML dump per runtime, however many TrainJobs use it
            # kind has a default, so a runtime built in Python may not carry it in its manifest
            cache[DATA_KEY] = dump({"kind": info.runtime.kind, **info.runtime.to_manifest()})
        return [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": child_metadata(trainjob, snapshot_name(trainjob)),
                "data": {DATA_KEY: cache[DATA_KEY]},
            }
        ]
