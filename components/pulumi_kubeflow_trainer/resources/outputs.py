"""The Outputs of the TrainJob component (trainjob.py), made on first use.

Every Output is a task the SDK waits on at the end of the program (in a loop that is quadratic in
their number), so a program that does not read them does not pay for them. They are not copied
into the component's state with register_outputs either: that would cost a state write per
TrainJob at the end of every `pulumi up`.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import pulumi

from . import controller_mode
from .admission import NOT_QUEUED, admission_output
from .completion import trainjob_status
from .placeholders import Placeholders

if TYPE_CHECKING:
    from ..api.trainjob import TrainJob as TrainJobModel
    from .trainjob_children import Children


class TrainJobOutputs:
    """The TrainJob component's Outputs, from what it set. Its children are registered once the engine
    said which runtime revision the TrainJob keeps (`_registered`, resolving to that revision): what
    reads them waits for that."""

    if TYPE_CHECKING:
        trainjob: TrainJobModel
        _placeholders: Placeholders
        _children: Children
        _registered: pulumi.Output[str]
        _controller: controller_mode.ControllerMode | None

    @functools.cached_property
    def jobset_name(self) -> pulumi.Output[str]:
        return pulumi.Output.from_input(self.trainjob.name)

    @functools.cached_property
    def namespace(self) -> pulumi.Output[str | None]:
        return pulumi.Output.from_input(self._placeholders.reveal(self.trainjob.metadata.namespace))

    @functools.cached_property
    def runtime_revision(self) -> pulumi.Output[str]:
        """The revision of its runtime the TrainJob renders against: a digest of the runtime's text when the
        TrainJob was created (or last moved by `runtime_pin`)."""
        return self._registered

    @functools.cached_property
    def ssh_public_key(self) -> pulumi.Output[str | None]:
        """The MPI SSH public key (the private key stays a secret in the state); None for other runtimes."""
        return self._registered.apply(lambda _: self._children.ssh_key.public_key if self._children.ssh_key else None)

    @functools.cached_property
    def conditions(self) -> pulumi.Output[list[dict[str, Any]]]:
        """The TrainJob's conditions (Complete, Failed, Suspended, ...) from the live JobSet's status."""
        return self._status.apply(lambda status: status.get("conditions") or [])

    @functools.cached_property
    def jobs_status(self) -> pulumi.Output[list[dict[str, Any]]]:
        return self._status.apply(lambda status: status.get("jobsStatus") or [])

    @functools.cached_property
    def admission(self) -> pulumi.Output[dict[str, Any]]:
        """Kueue's admission of the JobSet's Workload (admission.py): `state` (pending, admitted,
        preempted, finished, ..., or not-queued), `reason`, `message`, `clusterQueue`, `flavors`."""
        def of_jobset(_: str) -> pulumi.Output[dict[str, Any]]:
            jobset = self._children.jobset
            if jobset is None:  # controller mode (Kueue queues the TrainJob there), or no JobSet
                return pulumi.Output.from_input(NOT_QUEUED)
            return admission_output(jobset, self._children.queue)

        return self._registered.apply(of_jobset)

    @functools.cached_property
    def expected_children(self) -> pulumi.Output[list[dict[str, Any]]]:
        """controller="kubeflow": the objects the controller is expected to create (else: none)."""
        return self._registered.apply(lambda _: controller_mode.expected_of(self._controller))

    @functools.cached_property
    def drift(self) -> pulumi.Output[list[str]]:
        """controller="kubeflow": how the controller's live objects differ from `expected_children`."""
        controller = self._controller
        return self._registered.apply(lambda _: controller.drift() if controller is not None else [])

    @functools.cached_property
    def _status(self) -> pulumi.Output[dict[str, Any]]:
        return self._registered.apply(lambda _: self._live_status())

    def _live_status(self) -> pulumi.Output[dict[str, Any]]:
        if self._controller is not None:  # the live TrainJob's own status
            return self._controller.status()
        jobset = self._children.jobset
        if jobset is None:  # no JobSet rendered
            return pulumi.Output.from_input({})
        manifest = self.trainjob.to_manifest()
        live_status: pulumi.Output[Any] = jobset.status  # type: ignore[attr-defined]  # an output property the SDK sets
        return live_status.apply(lambda live: trainjob_status(manifest, live))
