"""TrainJob status from its JobSet, as the controller computes it on each reconcile."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from .api import constants as c
from .api.rules import show
from .framework.errors import FieldError, TrainerError, TrainJobInvalidError
from .framework.kube import Manifest

SUSPENDED, COMPLETE, FAILED = "Suspended", "Complete", "Failed"
DEADLINE_EXCEEDED = "DeadlineExceeded"


def timestamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse_time(text: str | None) -> datetime | None:
    """An RFC 3339 time; None when absent or unreadable (the deadline then has no start)."""
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00")) if text else None
    except ValueError:
        return None
    return moment.replace(tzinfo=timezone.utc) if moment and moment.tzinfo is None else moment


def find_condition(conditions: list[Manifest], kind: str) -> Manifest | None:
    return next((condition for condition in conditions if condition.get("type") == kind), None)


def set_condition(conditions: list[Manifest], new: Manifest, now: datetime) -> None:
    """`meta.SetStatusCondition`: update in place, the transition time moving only when status flips."""
    existing = find_condition(conditions, new["type"])
    if existing is None:
        conditions.append({**new, "lastTransitionTime": new.get("lastTransitionTime") or timestamp(now)})
        return
    if existing.get("status") != new["status"]:
        existing["status"] = new["status"]
        existing["lastTransitionTime"] = new.get("lastTransitionTime") or timestamp(now)
    for field in ("reason", "message", "observedGeneration"):
        if field in new:
            existing[field] = new[field]


def is_finished(conditions: list[Manifest]) -> bool:
    return any(cond.get("type") in (COMPLETE, FAILED) and cond.get("status") == "True" for cond in conditions)


def compute_status(trainjob: Manifest, jobset: Manifest | None, *, runtime_supported: bool, now: datetime) -> Manifest:
    """The TrainJob's new `.status` (a dict); the input is not modified.

    Raises TrainJobInvalidError when a field it reads has the wrong shape (`status.conditions` not a
    list of objects, ...), TrainerError when `now` is not a datetime; a naive `now` is UTC.
    """
    _check_shapes(trainjob, _TRAINJOB_SHAPES, "TrainJob")
    if jobset is not None:
        _check_shapes(jobset, _JOBSET_SHAPES, "JobSet")
    now = _utc(now)
    spec = trainjob.get("spec") or {}
    status: dict[str, Any] = _copy_status(trainjob.get("status"))
    if spec.get("managedBy", c.MANAGED_BY_TRAINER) != c.MANAGED_BY_TRAINER:
        return _tidy(status)  # another controller owns the status: returned as it came
    conditions: list[Manifest] = status.setdefault("conditions", [])
    if not runtime_supported:
        ref = spec.get("runtimeRef") or {}
        kind = f"{ref.get('kind', c.CLUSTER_TRAINING_RUNTIME_KIND)}.{ref.get('apiGroup', c.GROUP)}"
        set_condition(conditions, _condition(FAILED, "True", "TrainingRuntimeNotSupported", f"unsupported runtime: {kind}"), now)
        return _tidy(status)
    _set_suspended(conditions, bool(spec.get("suspend")), now)
    if jobset is not None:
        _copy_jobset_status(status, conditions, jobset.get("status") or {}, now)
    _enforce_deadline(trainjob, conditions, now)
    return _tidy(status)


def _copy_status(status: Manifest | None) -> dict[str, Any]:
    status = status or {}
    copied = dict(status)
    copied["conditions"] = [dict(condition) for condition in status.get("conditions") or []]
    return copied


def _condition(kind: str, status: str, reason: str, message: str, when: str | None = None) -> Manifest:
    condition = {"type": kind, "status": status, "reason": reason, "message": message}
    if when:
        condition["lastTransitionTime"] = when
    return condition


def _set_suspended(conditions: list[Manifest], suspended: bool, now: datetime) -> None:
    if suspended:
        set_condition(conditions, _condition(SUSPENDED, "True", "Suspended", "TrainJob is suspended"), now)
    elif (find_condition(conditions, SUSPENDED) or {}).get("status") == "True":
        set_condition(conditions, _condition(SUSPENDED, "False", "Resumed", "TrainJob is resumed"), now)


def _copy_jobset_status(status: Manifest, conditions: list[Manifest], jobset_status: Manifest, now: datetime) -> None:
    jobset_conditions = jobset_status.get("conditions") or []
    for source, target in (("Completed", COMPLETE), ("Failed", FAILED)):
        found = find_condition(jobset_conditions, source)
        if found is not None and found.get("status") == "True":
            set_condition(conditions, {**found, "type": target}, now)
    jobs = [
        {field: job.get(field, 0) if field != "name" else job.get("name") for field in ("name", "ready", "succeeded", "failed", "active", "suspended")}
        for job in jobset_status.get("replicatedJobsStatus") or []
    ]
    if jobs:
        status["jobsStatus"] = jobs
    else:
        status.pop("jobsStatus", None)


def _enforce_deadline(trainjob: Manifest, conditions: list[Manifest], now: datetime) -> None:
    spec = trainjob.get("spec") or {}
    seconds = spec.get("activeDeadlineSeconds") or 0
    # A deadline past what datetimes span (year 9999) can never have passed; timedelta would overflow.
    if not 0 < seconds < _LONGEST_DEADLINE or is_finished(conditions) or spec.get("suspend"):
        return
    resumed = find_condition(conditions, SUSPENDED)
    start = _parse_time(resumed.get("lastTransitionTime")) if resumed and resumed.get("status") == "False" else None
    start = start or _parse_time((trainjob.get("metadata") or {}).get("creationTimestamp"))
    if start is not None and now - start > timedelta(seconds=seconds):
        set_condition(conditions, _condition(FAILED, "True", DEADLINE_EXCEEDED, "TrainJob exceeded its active deadline"), now)


def _tidy(status: Manifest) -> Manifest:
    if not status.get("conditions"):
        status.pop("conditions", None)
    return status


_LONGEST_DEADLINE = 10**12  # seconds: 31,000 years
_MAPPING: tuple[type, ...] = (Mapping,)
_LIST: tuple[type, ...] = (list,)
_STRING: tuple[type, ...] = (str,)
_INTEGER: tuple[type, ...] = (int,)
_TRAINJOB_SHAPES: dict[str, tuple[type, ...]] = {
    "": _MAPPING,
    "metadata": _MAPPING,
    "spec": _MAPPING,
    "spec.managedBy": _STRING,
    "spec.runtimeRef": _MAPPING,
    "spec.activeDeadlineSeconds": _INTEGER,
    "status": _MAPPING,
    "status.conditions": _LIST,
    "status.conditions[]": _MAPPING,
}
_JOBSET_SHAPES: dict[str, tuple[type, ...]] = {
    "": _MAPPING,
    "status": _MAPPING,
    "status.conditions": _LIST,
    "status.conditions[]": _MAPPING,
    "status.replicatedJobsStatus": _LIST,
    "status.replicatedJobsStatus[]": _MAPPING,
}


def _check_shapes(document: Any, shapes: dict[str, tuple[type, ...]], kind: str) -> None:
    """The fields compute_status reads, each absent, null or of its JSON type; all errors at once."""
    errors = []
    for path, types in shapes.items():
        for where, value in _values_at(document, path):
            if value is not None and (not isinstance(value, types) or (types is _INTEGER and isinstance(value, bool))):
                errors.append(FieldError(where, f"Invalid value: {show(value)}: must be {_TYPE_NAMES[types]}"))
    if errors:
        name = document.get("metadata", {}).get("name") if isinstance(document, Mapping) and isinstance(document.get("metadata"), Mapping) else None
        raise TrainJobInvalidError(errors, source=f"{kind}/{name or '?'}")


_TYPE_NAMES: dict[tuple[type, ...], str] = {_MAPPING: "an object", _LIST: "a list", _STRING: "a string", _INTEGER: "an integer"}


def _values_at(document: Any, path: str) -> list[tuple[str, Any]]:
    """(path, value) of `path` in `document`; `[]` at the end means each item of the list there."""
    each = path.endswith("[]")
    value: Any = document
    for part in (path[:-2] if each else path).split(".") if path else ():
        value = value.get(part) if isinstance(value, Mapping) else None
    if not each:
        return [(path, value)]
    items = value if isinstance(value, list) else []
    return [(f"{path[:-2]}[{index}]", item) for index, item in enumerate(items)]


def _utc(now: Any) -> datetime:
    if not isinstance(now, datetime):
        raise TrainerError(f"now: expected a datetime, got {type(now).__name__}")
    try:
        return now.astimezone(timezone.utc) if now.tzinfo else now.replace(tzinfo=timezone.utc)
    except OverflowError:
        raise TrainerError(f"now: {now.isoformat()} is out of the range of UTC datetimes") from None
