"""What a validation admits beyond the CRD's own rules, passed as pydantic's validation context.

The models know the CRD and nothing else: without a context (`TrainJob.model_validate(doc)`), an
mlPolicy key the CRD lacks is refused and counts the CRD admits are admitted, whatever was imported
or registered before. A load passes an `Admission` (`loading.load(..., registry=...)`): the keys its
registry's plugins add, with their models, and whether values the API server would refuse in the
objects rendered from the TrainJob are refused at once (where this library creates those objects).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import KubeModel


@dataclass(frozen=True)
class Admission:
    # mlPolicy keys plugins add, with the model of each key's value (a PluginRegistry's `policy_sources()`)
    policy_sources: Mapping[str, type[KubeModel]] = field(default_factory=lambda: MappingProxyType({}))
    # Refuse values the CRD admits but the API server refuses in the Jobs and Pods of the JobSet rendered
    # from them (spec.trainer.numNodes below 0, numProcPerNode below 1); False: v2.3.0's admission.
    refuse_undeployable: bool = False


CRD_ADMISSION = Admission()


def admission_of(context: Any) -> Admission:
    """The Admission of a validation (pydantic's `info.context`); the CRD's own without one."""
    return context if isinstance(context, Admission) else CRD_ADMISSION
