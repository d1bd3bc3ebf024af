"""The MPI key resource of earlier versions (`<name>-ssh-key`, `MPISSHKey`), replaced by `keys.GeneratedKey`.

The engine loads a dynamic resource's provider from the state by reference to delete it, so the
provider class stays importable under its old name; deleting does nothing.
"""

from __future__ import annotations

from pulumi.dynamic import ResourceProvider


class MPISSHKeyProvider(ResourceProvider):
    pass
