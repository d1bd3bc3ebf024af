"""Which cluster a resource of the program is deployed to, for the reads the program makes itself
(watch/kubeclient.py): the settings of the resource's kubernetes provider.

The provider is the one the SDK resolved for the resource (`provider=`, `providers=`, or inherited
from its parent); its `kubeconfig`, `context` and `cluster` are Output properties the SDK set on the
provider resource, resolved to what the provider was given (`kubeconfig` defaults to $KUBECONFIG
when not given, as pulumi-kubernetes' SDK does). Without an explicit provider the default provider
is used, configured by the stack's `kubernetes:kubeconfig`, `kubernetes:context` and
`kubernetes:cluster`. The settings may be secret (a kubeconfig's contents): they stay in this
process's memory, never in an input or the state.
"""

from __future__ import annotations

from typing import Any

import pulumi

from ..watch.kubeclient import KubeconfigSettings

SETTINGS = ("kubeconfig", "context", "cluster")


def provider_of(resource: pulumi.Resource) -> pulumi.ProviderResource | None:
    """The kubernetes provider the SDK resolved for `resource` (given, or inherited from its parent); None
    for the default provider."""
    provider = resource.get_provider(resource.pulumi_resource_type)
    return provider if isinstance(provider, pulumi.ProviderResource) else None


def provider_settings(resource: pulumi.Resource) -> pulumi.Output[KubeconfigSettings]:
    """The kubeconfig settings of the provider that deploys `resource` (the module docstring)."""
    provider = provider_of(resource)
    if provider is not None:
        values: list[Any] = [provider.__dict__.get(key) for key in SETTINGS]
    else:
        config = pulumi.Config("kubernetes")
        values = [config.get_secret(key) for key in SETTINGS]  # get() would warn about a secret kubeconfig
    return pulumi.Output.all(*[pulumi.Output.from_input(value) for value in values]).apply(_settings)


def _settings(values: list[Any]) -> KubeconfigSettings:
    kubeconfig, context, cluster = (value if isinstance(value, str) and value else None for value in values)
    return KubeconfigSettings(kubeconfig=kubeconfig, context=context, cluster=cluster)
