"""Why a TrainJob failed or waits, named from its Pods, their events, its Workload and its PodGroup.

The causes, each a `Hint` (`cause: subject: message`, then the last log lines where they help):

- `OOMKilled`: a container killed for memory (its state or last state), with its memory limit;
- `ImagePullFailed`: ErrImagePull / ImagePullBackOff / InvalidImageName, with the image and the
  kubelet's message;
- `CrashLoopBackOff`: a container restarting, with its restart count and its previous run's last lines;
- `Error`: a container that exited non-zero in a failed Pod, with its exit code and last lines;
- `Unschedulable` / `GangUnschedulable`: the scheduler's message (the Pod's PodScheduled condition,
  else its latest FailedScheduling event); `GangUnschedulable` when the Pod belongs to a PodGroup
  (gang), with the PodGroup's minMember and phase and every distinct message of its Pods' conditions
  and events, the cause first;
- `Queued`: Kueue holds the TrainJob (its Workload pending, inactive, evicted, preempted), with
  Kueue's reason and the ClusterQueue.

Pods that fail the same way are one hint naming them all.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .kubeclient import KubeAPI, KubeAPIError
from .kueue_state import QUEUED_STATES, owner_admission
from .pods import PodStep

LOG_TAIL_LINES = 10
# How the coscheduling scheduler words a Pod rejected only with its group, not for a cause of its own.
GROUP_REJECTIONS = ("optimistic rejection", "rejected due to timeout", "rejection in Unreserve")
IMAGE_PULL_REASONS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull")
# How a gang's Pods name their PodGroup: scheduler-plugins' label, Volcano's annotation (plugins/coscheduling.py, volcano.py).
POD_GROUP_KEYS = {"scheduling.x-k8s.io/pod-group": "scheduling.x-k8s.io/v1alpha1", "scheduling.k8s.io/group-name": "scheduling.volcano.sh/v1beta1"}


@dataclass(frozen=True)
class Hint:
    cause: str
    subject: str
    message: str
    log_tail: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        lines = [f"{self.cause}: {self.subject}: {self.message}"]
        if self.log_tail:
            lines += ["  last log lines:", *(f"    {line}" for line in self.log_tail)]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"cause": self.cause, "subject": self.subject, "message": self.message, "logTail": list(self.log_tail)}


def hints_for(api: KubeAPI, owner: dict[str, Any] | None, steps: list[PodStep], *, with_logs: bool = True) -> list[Hint]:
    """Every cause found for the TrainJob whose JobSet (or TrainJob object) is `owner` and whose Pods are `steps`."""
    found: list[Hint] = []
    if owner is not None:
        found += _queued(api, owner)
    events = _scheduling_events(api, steps) if any(_unscheduled(step.pod) for step in steps) else {}
    for step in steps:
        found += _container_hints(api, step, with_logs)
        found += _scheduling_hints(api, step, events)
    return _grouped(found)


def _queued(api: KubeAPI, owner: dict[str, Any]) -> list[Hint]:
    state = owner_admission(api, owner)
    if state["state"] not in QUEUED_STATES:
        return []
    where = f" in ClusterQueue {state['clusterQueue']}" if state.get("clusterQueue") else ""
    why = ": ".join(part for part in (state.get("reason"), state.get("message")) if part) or "no reason given"
    return [Hint("Queued", f"Workload {(owner.get('metadata') or {}).get('namespace')}/{state.get('workload')}",
                 f"{state['state']}{where}: {why}")]


def _statuses(pod: dict[str, Any]) -> Iterable[dict[str, Any]]:
    status = pod.get("status") or {}
    return [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]


def _container_hints(api: KubeAPI, step: PodStep, with_logs: bool) -> list[Hint]:
    subject, found = f"Pod {step.name} ({step.step})", []
    for status in _statuses(step.pod):
        name = status.get("name")
        state, last = status.get("state") or {}, status.get("lastState") or {}
        waiting, terminated = state.get("waiting") or {}, state.get("terminated") or last.get("terminated") or {}
        if terminated.get("reason") == "OOMKilled":
            limit = _memory_limit(step.pod, name)
            found.append(Hint("OOMKilled", subject, f"container {name} was killed for using more memory than its limit"
                                                    f"{f' ({limit})' if limit else ''}: exit code {terminated.get('exitCode', 137)}"))
        elif waiting.get("reason") in IMAGE_PULL_REASONS:
            image = next((c.get("image") for c in _containers(step.pod) if c.get("name") == name), status.get("image"))
            found.append(Hint("ImagePullFailed", subject, f"container {name}: {waiting['reason']} for image {image}: "
                                                          f"{waiting.get('message') or 'no message'}"))
        elif waiting.get("reason") == "CrashLoopBackOff":
            tail = _tail(api, step, name, previous=True) if with_logs else ()
            found.append(Hint("CrashLoopBackOff", subject, f"container {name} restarted {status.get('restartCount', 0)} "
                                                           f"times: {waiting.get('message') or 'back-off'}", tail))
        elif step.phase == "Failed" and terminated and terminated.get("exitCode", 0) != 0:
            tail = _tail(api, step, name, previous=False) if with_logs else ()
            detail = ": ".join(str(part) for part in (terminated.get("reason"), terminated.get("message")) if part)
            found.append(Hint("Error", subject, f"container {name} exited with code {terminated.get('exitCode')}"
                                                f"{f' ({detail})' if detail else ''}", tail))
    return found


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    spec = pod.get("spec") or {}
    return [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]


def _memory_limit(pod: dict[str, Any], container: str | None) -> str | None:
    found = next((c for c in _containers(pod) if c.get("name") == container), {})
    return ((found.get("resources") or {}).get("limits") or {}).get("memory")


def _tail(api: KubeAPI, step: PodStep, container: str | None, *, previous: bool) -> tuple[str, ...]:
    namespace = (step.pod.get("metadata") or {}).get("namespace") or api.namespace
    try:
        return tuple(api.pod_log(namespace, step.name, container, previous=previous, tail_lines=LOG_TAIL_LINES))
    except KubeAPIError:
        return ()  # no log to show (kubelet gone, log rotated): the hint stands without it


def _unscheduled(pod: dict[str, Any]) -> dict[str, Any] | None:
    conditions = (pod.get("status") or {}).get("conditions") or []
    return next((cond for cond in conditions if cond.get("type") == "PodScheduled" and cond.get("status") == "False"), None)


def _scheduling_events(api: KubeAPI, steps: list[PodStep]) -> dict[str, list[str]]:
    """Each Pod's distinct FailedScheduling messages, the latest last."""
    namespace = ((steps[0].pod.get("metadata") or {}).get("namespace")) if steps else None
    try:
        events = api.list("v1", "Event", namespace, field_selector="reason=FailedScheduling")
    except KubeAPIError:
        return {}
    events.sort(key=lambda event: event.get("lastTimestamp") or event.get("eventTime") or "")
    messages: dict[str, dict[str, None]] = {}
    for event in events:
        said = messages.setdefault(str((event.get("involvedObject") or {}).get("name")), {})
        message = event.get("message") or ""
        said.pop(message, None)  # said again: it moves to the end, the latest last
        said[message] = None
    return {name: list(said) for name, said in messages.items()}


def _scheduling_hints(api: KubeAPI, step: PodStep, events: dict[str, list[str]]) -> list[Hint]:
    condition = _unscheduled(step.pod)
    if condition is None:
        return []
    said = events.get(step.name) or []
    message = condition.get("message") or (said[-1] if said else "") or condition.get("reason") or "not scheduled"
    metadata = step.pod.get("metadata") or {}
    marks = {**(metadata.get("annotations") or {}), **(metadata.get("labels") or {})}
    key = next((key for key in POD_GROUP_KEYS if marks.get(key)), None)
    if key is None:
        return [Hint("Unschedulable", f"Pod {step.name} ({step.step})", message)]
    # A gang's cause (the Pod that fits no node) can be in an earlier event only: once the group is
    # rejected, every Pod's condition says so ("rejection in Unreserve"), that Pod's too.
    state = _pod_group_state(api, step, key, marks[key])
    return [Hint("GangUnschedulable", f"PodGroup {marks[key]}", f"{state}; {said_message}")
            for said_message in dict.fromkeys([message, *said])]


def _pod_group_state(api: KubeAPI, step: PodStep, label: str, name: str) -> str:
    namespace = (step.pod.get("metadata") or {}).get("namespace") or api.namespace
    try:
        group = api.get(POD_GROUP_KEYS[label], "PodGroup", namespace, name)
    except KubeAPIError:
        group = None
    if group is None:
        return "the gang's PodGroup was not found"
    spec, status = group.get("spec") or {}, group.get("status") or {}
    phase = status.get("phase") or "no phase (no PodGroup controller wrote its status)"
    return f"needs all {spec.get('minMember')} Pods at once (minResources {spec.get('minResources') or {}}), phase {phase}"


def _grouped(hints: list[Hint]) -> list[Hint]:
    """One hint per cause and message: the Pods that share it named together."""
    merged: dict[tuple[str, str], list[Hint]] = {}
    for hint in hints:
        key = hint.subject if hint.cause == "GangUnschedulable" else _generic(hint.message)  # a gang: one hint
        merged.setdefault((hint.cause, key), []).append(hint)
    result = []
    for same in merged.values():
        first = same[0]
        if first.cause == "GangUnschedulable":
            result.append(_gang(same))
            continue
        subjects = list(dict.fromkeys(hint.subject for hint in same))
        subject = first.subject if len(subjects) == 1 else f"{len(subjects)} Pods: {', '.join(subjects)}"
        result.append(Hint(first.cause, subject, first.message, first.log_tail))
    return result


def _gang(hints: list[Hint]) -> Hint:
    """One hint for a PodGroup: the scheduler's distinct messages for its Pods, the cause first (the
    Pod that fits no node), the Pods only rejected with their group (PostFilter, Permit, Unreserve) after."""
    state = hints[0].message.split("; ", 1)[0]
    messages = list(dict.fromkeys(hint.message.split("; ", 1)[-1] for hint in hints))
    messages.sort(key=lambda message: any(rejected in message for rejected in GROUP_REJECTIONS))
    return Hint(hints[0].cause, hints[0].subject, "; ".join([state, *messages]))


def _generic(message: str) -> str:
    return message.split(": ", 1)[-1] if message.startswith("container ") else message
