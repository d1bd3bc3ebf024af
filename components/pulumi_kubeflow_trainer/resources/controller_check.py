"""Controller mode's drift check: the objects the controller created, compared with the prediction.

A dynamic resource, `ControllerPrediction`, created after the TrainJob object: it waits (up to
`wait_seconds`) until the controller has created every predicted object, then compares each live
object with its prediction and keeps the differences in its output `drift`. `pulumi refresh` reads
them again. A change of the prediction is an update (checked again); nothing else changes it, so a
second preview of an unchanged program shows no change.

The comparison asks of the live object what the prediction says, field by field, and nothing more:
what the API server and the controller add (defaults, owner references with the TrainJob's uid,
status) is not drift, and empty values, zeros and false equal absent ones (Go's omitempty; docs/parity.md
`api-defaults`, `go-encoding`, `owner-uid`). Scalars compare as text (a quantity `4` is "4" in
Go; the engine hands every number over as a float). Lists of named items (containers, env,
volumes, ports) are matched by name, and their order must agree. Not compared: Secret data (generated keys: `generated-keys`), the TrainJob's kueue labels, which the render
copies to the JobSet (`kueue-labels`) and the controller leaves on the TrainJob, and the text of Flux's
init.sh and entrypoint.sh, which are our own scripts (`flux-scripts`).
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, Resource, ResourceProvider, UpdateResult

from ..watch.kubeclient import KubeAPIError, KubeconfigSettings

KUEUE_PREFIX = "kueue.x-k8s.io/"
FLUX_SCRIPTS_SUFFIX, FLUX_SCRIPTS = "-flux-entrypoint", ("init.sh", "entrypoint.sh")
CLUSTER = "cluster"  # the input holding the TrainJob provider's kubeconfig settings
POLL_SECONDS = 0.5


def differences(expected: Any, live: Any, path: str = "") -> list[str]:
    """`path: expected X, live Y` for every field of `expected` that `live` lacks or has otherwise."""
    if _empty(expected):
        return []  # what the prediction leaves empty, the API server and the controller may fill
    if isinstance(expected, dict):
        if not isinstance(live, dict):
            return [f"{path or '.'}: expected an object, live {_show(live)}"]
        found: list[str] = []
        for key, value in expected.items():
            found += differences(value, live.get(key), f"{path}.{key}" if path else key)
        return found
    if isinstance(expected, list):
        return _list_differences(expected, live, path)
    if live is None and expected is not True and expected == 0:
        return []  # a zero or false the controller's Go struct dropped (omitempty), as an empty value
    if live is None or str(_scalar(expected)) != str(_scalar(live)):
        return [f"{path}: expected {_show(expected)}, live {_show(live)}"]
    return []


def _list_differences(expected: list[Any], live: Any, path: str) -> list[str]:
    if not isinstance(live, list):
        return [f"{path}: expected {_show(expected)}, live {_show(live)}"]
    if all(isinstance(item, dict) and "name" in item for item in expected):
        by_name = {item.get("name"): item for item in live if isinstance(item, dict)}
        found = [f"{path}: live has no item named {item['name']!r}" for item in expected if item["name"] not in by_name]
        for item in expected:
            if item["name"] in by_name:
                found += differences(item, by_name[item["name"]], f"{path}[{item['name']}]")
        order = [item["name"] for item in live if isinstance(item, dict) and item.get("name") in {i["name"] for i in expected}]
        if not found and order != [item["name"] for item in expected]:
            found.append(f"{path}: expected the order {[i['name'] for i in expected]}, live {order}")
        return found
    if len(live) != len(expected):
        return [f"{path}: expected {_show(expected)}, live {_show(live)}"]
    return [line for index, item in enumerate(expected) for line in differences(item, live[index], f"{path}[{index}]")]


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _scalar(value: Any) -> Any:
    """Booleans as JSON spells them; integral floats as ints (Pulumi passes every number as a float)."""
    if isinstance(value, bool):
        return str(value).lower()
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def comparable(manifest: dict[str, Any]) -> dict[str, Any]:
    """The prediction as compared: no Secret data, no kueue labels on the JobSet, no status, and not
    the text of Flux's two scripts (ours, not upstream's: docs/parity.md `flux-scripts`)."""
    metadata = dict(manifest.get("metadata") or {})
    if manifest.get("kind") == "JobSet" and metadata.get("labels"):
        metadata["labels"] = {k: v for k, v in metadata["labels"].items() if not k.startswith(KUEUE_PREFIX)}
    trimmed = {key: value for key, value in manifest.items() if key not in ("status", "data", "stringData")}
    if manifest.get("kind") != "Secret" and "data" in manifest:
        trimmed["data"] = manifest["data"]
        if str(metadata.get("name", "")).endswith(FLUX_SCRIPTS_SUFFIX) and isinstance(manifest["data"], dict):
            trimmed["data"] = {k: v for k, v in manifest["data"].items() if k not in FLUX_SCRIPTS}
    return {**trimmed, "metadata": metadata}


def check(expected: list[dict[str, Any]], namespace: str | None, wait_seconds: float,
          cluster: KubeconfigSettings | None = None) -> dict[str, Any]:
    """The outputs: `drift` (lines: differences, objects not created, or why nothing was checked),
    `missing` (objects the controller has not created), `checked`, `reason`. `cluster`: the settings
    of the TrainJob's kubernetes provider (None: $KUBECONFIG)."""
    try:
        api = (cluster or KubeconfigSettings()).api()
    except KubeAPIError as error:
        return unchecked(str(error))
    namespace = namespace or api.namespace
    deadline = time.monotonic() + wait_seconds
    live: dict[str, dict[str, Any] | None] = {}
    try:
        while True:
            live = {_key(m): api.get(m["apiVersion"], m["kind"], namespace, m["metadata"]["name"]) for m in expected}
            if all(live.values()) or time.monotonic() >= deadline:
                break
            time.sleep(POLL_SECONDS)
    except KubeAPIError as error:
        return unchecked(str(error))
    drift = [f"{_key(m)}: {line}" for m in expected if live[_key(m)] for line in differences(comparable(m), live[_key(m)])]
    missing = [key for key, value in live.items() if value is None]
    drift += [f"{key}: not created by the controller (waited {wait_seconds:.0f} s)" for key in missing]
    return {"drift": drift, "missing": missing, "checked": True, "reason": ""}


def unchecked(reason: str) -> dict[str, Any]:
    """No answer from the API server: said in `drift` too, so that no drift means checked."""
    return {"drift": [f"not checked: {reason}"], "missing": [], "checked": False, "reason": reason}


def _key(manifest: dict[str, Any]) -> str:
    return f"{manifest['kind']}/{manifest['metadata']['name']}"


class ControllerPredictionProvider(ResourceProvider):
    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=uuid.uuid4().hex, outs={**props, **self._check(props)})

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(outs={**news, **self._check(news)})

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        return ReadResult(id_=id_, outs={**props, **self._check({**props, "wait_seconds": 0})})

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed = [key for key in ("expected", "namespace", "trainjob") if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changed), replaces=[], delete_before_replace=False)

    def _check(self, props: dict[str, Any]) -> dict[str, Any]:
        settings = props.get(CLUSTER) or {}
        cluster = KubeconfigSettings(**{key: settings.get(key) for key in ("kubeconfig", "context", "cluster")})
        return check(props["expected"], props.get("namespace"), float(props.get("wait_seconds") or 0), cluster)


class ControllerPrediction(Resource, module="kubeflow", name="ControllerPrediction"):
    """The objects the Kubeflow Trainer controller is expected to create for one TrainJob (`expected`),
    checked against the live ones: outputs `drift`, `missing`, `checked` and `reason`."""

    if TYPE_CHECKING:
        drift: pulumi.Output[list[str]]
        missing: pulumi.Output[list[str]]

    def __init__(self, name: str, trainjob: pulumi.Input[str], expected: pulumi.Input[list[dict[str, Any]]],
                 namespace: pulumi.Input[str | None], wait_seconds: int,
                 cluster: pulumi.Output[KubeconfigSettings] | None = None, opts: pulumi.ResourceOptions | None = None) -> None:
        # The provider's settings (perhaps a kubeconfig's contents): a secret input, so encrypted in
        # the state as the provider's own; not in the diff, so a new token changes nothing.
        settings: pulumi.Output[dict[str, Any]] | None = None
        if cluster is not None:
            as_dict: pulumi.Output[dict[str, Any]] = cluster.apply(dataclasses.asdict)
            settings = pulumi.Output.secret(as_dict)
        props = {"trainjob": trainjob, "expected": expected, "namespace": namespace, "wait_seconds": wait_seconds,
                 CLUSTER: settings, "drift": None, "missing": None, "checked": None, "reason": None}
        super().__init__(ControllerPredictionProvider(), name, props, opts)
