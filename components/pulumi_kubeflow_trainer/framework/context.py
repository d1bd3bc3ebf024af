"""What a render needs besides the TrainJob and its runtime: the other objects and the options."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..ssh import CurveKeyGenerator, KeyGenerator, curve_generator_of, generate_key_pair
from .kube import Manifest


@dataclass
class ObjectIndex:
    """The other Kubernetes objects a rule may look up (PriorityClasses, JobSets, Secrets, ...).

    With `closed_world` (the CLI, `render()`), an object missing from the index does not exist. Otherwise
    (a Pulumi program, which cannot see the cluster) rules about kinds the index holds nothing of are
    skipped rather than guessed.
    """

    objects: dict[tuple[str, str, str], Manifest] = field(default_factory=dict)
    closed_world: bool = True

    @classmethod
    def of(cls, manifests: Iterable[Manifest], *, closed_world: bool = True) -> ObjectIndex:
        index = cls(closed_world=closed_world)
        for manifest in manifests:
            index.add(manifest)
        return index

    def add(self, manifest: Manifest) -> None:
        metadata = manifest.get("metadata") or {}
        key = (str(manifest.get("kind", "")), str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        self.objects[key] = manifest

    def get(self, kind: str, name: str, namespace: str = "") -> Manifest | None:
        return self.objects.get((kind, namespace, name))

    def knows(self, kind: str) -> bool:
        """Whether a missing object of this kind can be taken as absent."""
        return self.closed_world or any(key[0] == kind for key in self.objects)


@dataclass
class RenderContext:
    key_generator: KeyGenerator = generate_key_pair
    cluster: ObjectIndex = field(default_factory=ObjectIndex)
    runtime_snapshot: bool = False  # the ConfigMap only the controller reads: see docs/parity.md
    # True: a TrainJob managed by MultiKueue becomes a JobSet managed by MultiKueue (what a client-side
    # renderer needs). False: like the controller, which leaves such TrainJobs alone, render nothing.
    multikueue_jobset: bool = False
    # The Flux broker's CURVE secret. None: the one that goes with `key_generator` (a seeded generator
    # seeds both, so `--seed` reproduces every key), else a random one.
    curve_key_generator: CurveKeyGenerator | None = None

    def curve_secret(self, trainjob_key: str) -> bytes:
        generate = self.curve_key_generator or curve_generator_of(self.key_generator)
        return generate(trainjob_key)
