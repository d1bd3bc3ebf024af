"""A container's volume mounts as directories under the work dir: `<workdir>/<pod>/<mountPath>`.

ConfigMaps and Secrets become files (items, modes); emptyDir is a directory per Pod; a JobSet
volumeClaimPolicies template or a PersistentVolumeClaim is one directory shared by every Pod of the run,
`<workdir>/claims/<name>`, so what an initializer writes the trainer reads. Each mount is a symlink to
its volume's directory, so containers of one Pod share their emptyDirs.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .plan import LocalRunError, ObjectStore, PodPlan
from .rewrite import Rewriter, merge_hostfile

DEFAULT_MODE = 0o644


def mount_paths(pod: PodPlan, container: Mapping[str, Any], workdir: Path) -> dict[str, str]:
    """mountPath → the local path that stands for it."""
    return {m["mountPath"]: str(workdir / pod.name / m["mountPath"].lstrip("/")) for m in container.get("volumeMounts") or []}


def materialise_volumes(
    pod: PodPlan, container: Mapping[str, Any], store: ObjectStore, workdir: Path, rewriter: Rewriter, claims: tuple[str, ...] = ()
) -> None:
    """Creates every volume `container` mounts, and the symlinks at the mount paths."""
    volumes = {volume["name"]: volume for volume in pod.spec.get("volumes") or []}
    for mount in container.get("volumeMounts") or []:
        name = mount["name"]
        if name in volumes:
            source = _volume_dir(pod, volumes[name], store, workdir, rewriter)
        elif name in claims:
            source = _claim_dir(workdir, name)
        else:
            raise LocalRunError(f"{pod.name}: volumeMount {name!r} names no volume of the Pod")
        _link(workdir / pod.name / mount["mountPath"].lstrip("/"), source / mount.get("subPath", ""))


def _volume_dir(pod: PodPlan, volume: Mapping[str, Any], store: ObjectStore, workdir: Path, rewriter: Rewriter) -> Path:
    name = str(volume["name"])
    target = workdir / pod.name / ".volumes" / name
    if "persistentVolumeClaim" in volume:
        return _claim_dir(workdir, str(volume["persistentVolumeClaim"]["claimName"]))
    if target.exists():
        return target  # already made for another container of this Pod
    target.mkdir(parents=True)
    if "emptyDir" in volume:
        return target
    if "configMap" in volume or "secret" in volume:
        _write_source(pod, volume, target, store, rewriter, volume.get("configMap", volume.get("secret", {})).get("defaultMode"))
        return target
    if "projected" in volume:
        for source in volume["projected"].get("sources") or []:
            _write_source(pod, source, target, store, rewriter, volume["projected"].get("defaultMode"))
        return target
    kind = next((key for key in volume if key != "name"), "unknown")
    raise LocalRunError(f"{pod.name}: volume {name!r} ({kind}) is not emulated locally; only configMap, secret, "
                        "projected configMap/secret, emptyDir and claims are")


def _write_source(pod: PodPlan, source: Mapping[str, Any], target: Path, store: ObjectStore, rewriter: Rewriter, default_mode: int | None) -> None:
    if "configMap" in source:
        kind, ref = "ConfigMap", source["configMap"]
        object_name = ref.get("name", "")
    elif "secret" in source:
        kind, ref = "Secret", source["secret"]
        object_name = ref.get("secretName") or ref.get("name", "")
    else:
        raise LocalRunError(f"{pod.name}: projected source {sorted(source)} is not emulated locally")
    data = store.get(kind, object_name)
    if data is None:
        if ref.get("optional"):
            return
        raise LocalRunError(f"{pod.name}: {kind} {object_name!r} is not among the given objects; pass its file with -f")
    mode = ref.get("defaultMode", default_mode if default_mode is not None else DEFAULT_MODE)
    items = ref.get("items") or [{"key": key, "path": key} for key in sorted(data)]
    for item in items:
        if item["key"] not in data:
            raise LocalRunError(f"{pod.name}: {kind} {object_name!r} has no key {item['key']!r}")
        content = data[item["key"]]
        if kind == "ConfigMap":
            content = _rewritten(content, rewriter)
        _write_file(target / item["path"], content, item.get("mode", mode))


def _rewritten(content: bytes, rewriter: Rewriter) -> bytes:
    """ConfigMap text (a hostfile, a script) speaks of Pod DNS names and mount paths too."""
    try:
        return merge_hostfile(rewriter.text(content.decode("utf-8"))).encode("utf-8")
    except UnicodeDecodeError:
        return content


def _write_file(path: Path, content: bytes, mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(mode)


def _claim_dir(workdir: Path, name: str) -> Path:
    path = workdir / "claims" / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def _link(path: Path, target: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)  # left by an earlier run in the same work dir
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)


def reset_pod_dir(workdir: Path, pod: PodPlan) -> None:
    """A fresh Pod directory per run: volumes are made anew, as for a new Pod."""
    shutil.rmtree(workdir / pod.name, ignore_errors=True)
