"""Which cluster and credentials a KubeAPI uses (kubeclient.py): a kubeconfig given as a path or
contents, as pulumi-kubernetes takes it, or the ambient one ($KUBECONFIG's files merged as kubectl
merges them, else ~/.kube/config), else the in-cluster service account; loaded by the official
client (exec plugins, auth providers, tokens, certificates), with what it does otherwise than
kubectl put right here: a failed exec plugin is an error (the client only logs it), a token file's
newline is trimmed, the first file's current-context wins, and `proxy-url` is honoured before 37.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..framework.errors import TrainerError

if TYPE_CHECKING:
    from kubernetes.client import Configuration

_IN_CLUSTER_NAMESPACE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")


class KubeAPIError(TrainerError):
    """The API server could not be asked (no kubeconfig, credentials that failed, connection refused, ...)."""


def configure(source: str | None, context: str | None, cluster: str | None) -> tuple[Configuration, str, str | None]:
    """The client's Configuration, the context's namespace and the context used (`source`: the
    provider's `kubeconfig`, a path or contents; None: the ambient kubeconfig)."""
    from kubernetes.client import Configuration

    configuration = Configuration()
    if source:
        root, base = _given(source)
    else:
        found = _ambient_paths()
        if not found:
            return _in_cluster(configuration, context, os.environ.get("KUBECONFIG") or "~/.kube/config")
        root, base = _merged(found), None
    name = _context_name(root, context, cluster)
    _load(root, name, base, configuration)
    namespace = root["contexts"].get_with_name(name)["context"].safe_get("namespace") or "default"
    return configuration, namespace, name


def _given(path_or_contents: str) -> tuple[Any, str | None]:
    """As pulumi-kubernetes reads its `kubeconfig` (parseKubeconfigString): `~` expanded, a path to an
    existing file is read, anything else is the contents (relative paths then relative to the cwd)."""
    from kubernetes.config.kube_config import ConfigNode

    candidate = Path(path_or_contents).expanduser() if "\n" not in path_or_contents else None
    if candidate is not None and candidate.is_file():
        return _merged([str(candidate)]), None
    try:
        config = yaml.safe_load(path_or_contents) or {}
    except yaml.YAMLError as error:
        raise KubeAPIError(f"cannot parse the kubeconfig given: {error}") from None
    if not isinstance(config, dict):
        raise KubeAPIError("the kubeconfig given is neither a kubeconfig file nor kubeconfig contents")
    return ConfigNode("the kubeconfig given", config), str(Path.cwd())


def _ambient_paths() -> list[str]:
    listed = [p for p in (os.environ.get("KUBECONFIG") or "").split(os.pathsep) if p]
    paths = listed or [str(Path.home() / ".kube" / "config")]
    return [str(Path(p).expanduser()) for p in paths if Path(p).expanduser().is_file()]


def _merged(paths: list[str]) -> Any:
    """The files merged as kubectl does (the first file naming an item wins); paths in each stay
    relative to its own directory."""
    from kubernetes.config.kube_config import KubeConfigMerger

    try:
        merger = KubeConfigMerger(os.pathsep.join(paths))
    except Exception as error:  # noqa: BLE001 - YAML, I/O and the client's own plain Exceptions
        raise KubeAPIError(f"cannot read kubeconfig {os.pathsep.join(paths)}: {error}") from None
    root = merger.config
    if root is None or not isinstance(root.value, dict):
        raise KubeAPIError(f"kubeconfig {os.pathsep.join(paths)} holds no configuration")
    # kubectl takes the first file's current-context; the client's merger keeps the last one's.
    current = [config["current-context"] for config in merger.config_files.values() if isinstance(config, dict) and config.get("current-context")]
    if current:
        root.value["current-context"] = current[0]
    return root


def _named(root: Any, section: str, name: str | None) -> Any:
    entries = root.value.get(section) if isinstance(root.value, dict) else None
    for entry in entries or []:
        value = entry.value if hasattr(entry, "value") else entry
        if isinstance(value, dict) and value.get("name") == name:
            return entry
    raise KubeAPIError(f"kubeconfig: no {section[:-1]} {name!r}")


def _context_name(root: Any, context: str | None, cluster: str | None) -> str:
    """The context to load; with `cluster`, a copy of it naming that cluster (added to the loaded copy)."""
    from kubernetes.config.kube_config import ConfigNode

    name = context or root.value.get("current-context")
    if not name:
        raise KubeAPIError("kubeconfig: no current-context, and no context given")
    entry = _named(root, "contexts", name)
    if not cluster:
        return str(name)
    _named(root, "clusters", cluster)
    value = entry.value if hasattr(entry, "value") else entry
    override = f"{name}@{cluster}"
    node = {"name": override, "context": {**(value.get("context") or {}), "cluster": cluster}}
    root.value["contexts"].append(ConfigNode(override, node, getattr(entry, "path", None)))
    return override


def _load(root: Any, context: str, base: str | None, configuration: Configuration) -> None:
    """Credentials and server into `configuration`; an exec plugin that failed is an error here (the
    client only logs it, and the API server would then answer 401)."""
    from kubernetes.config.kube_config import KubeConfigLoader

    cluster_name = root["contexts"].get_with_name(context)["context"].safe_get("cluster")
    cluster = _named(root, "clusters", cluster_name)
    cluster = cluster.value if hasattr(cluster, "value") else cluster
    if not (cluster.get("cluster") or {}).get("server"):
        raise KubeAPIError(f"kubeconfig: cluster {cluster_name!r} has no server")
    with _logged_errors() as errors:
        try:
            loader = KubeConfigLoader(config_dict=root, active_context=context, config_base_path=base)
            loader.load_and_set(configuration)
        except Exception as error:  # noqa: BLE001 - ConfigException and whatever an auth plugin raises
            raise KubeAPIError(f"kubeconfig context {context!r}: {error}") from None
    user = loader._user  # noqa: SLF001 - the loader's user entry: which credentials it was to use
    if user is not None and "exec" in user and not _has_credentials(configuration):
        command = user["exec"].safe_get("command")
        raise KubeAPIError(f"kubeconfig context {context!r}: the exec credential plugin {command!r} gave no "
                           f"credentials: {'; '.join(errors) or 'no output'}")
    _trim_tokens(configuration)
    proxy = (cluster.get("cluster") or {}).get("proxy-url")
    if proxy:  # as kubectl: the cluster's proxy-url before $HTTPS_PROXY (the client reads it from 37 on)
        configuration.proxy = proxy


def token_key(configuration: Configuration) -> str:
    """Where the client keeps the bearer token: `BearerToken` from 36 on, `authorization` before."""
    return "authorization" if "authorization" in configuration.api_key else "BearerToken"


def _trim_tokens(configuration: Configuration) -> None:
    """A token file's trailing newline out of the header, as kubectl trims it (the client sends the
    file as it is, and sets it again before every request from its refresh hook)."""
    refresh = configuration.refresh_api_key_hook

    def trimmed(config: Configuration) -> None:
        if refresh is not None:
            refresh(config)
        key = token_key(config)
        if config.api_key.get(key):
            config.api_key[key] = config.api_key[key].strip()

    trimmed(configuration)
    configuration.refresh_api_key_hook = trimmed


def _has_credentials(configuration: Configuration) -> bool:
    return bool(configuration.api_key.get(token_key(configuration)) or configuration.cert_file)


@contextlib.contextmanager
def _logged_errors() -> Iterator[list[str]]:
    """What the client logs while loading (it logs a failed exec plugin instead of raising)."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler, root = Collect(logging.ERROR), logging.getLogger()
    root.addHandler(handler)
    try:
        yield messages
    finally:
        root.removeHandler(handler)


def _in_cluster(configuration: Configuration, context: str | None, looked_at: str) -> tuple[Configuration, str, str | None]:
    """The Pod's service account (the API server from the Pod's environment, the token re-read as
    the kubelet rotates it)."""
    from kubernetes.config import incluster_config

    if context:
        raise KubeAPIError(f"no kubeconfig file ({looked_at}) to find context {context!r} in")
    try:
        loader = incluster_config.InClusterConfigLoader(incluster_config.SERVICE_TOKEN_FILENAME,
                                                        incluster_config.SERVICE_CERT_FILENAME)
        loader.load_and_set(configuration)
    except Exception as error:  # noqa: BLE001 - ConfigException: not in a Pod either
        raise KubeAPIError(f"no kubeconfig file ({looked_at}) and no in-cluster service account ({error})") from None
    namespace = _IN_CLUSTER_NAMESPACE.read_text().strip() if _IN_CLUSTER_NAMESPACE.is_file() else "default"
    return configuration, namespace, None
