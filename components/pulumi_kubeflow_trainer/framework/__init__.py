"""RuntimeInfo, extension points, the plugin registry, strategic merge and render()."""

# Installs the API's lookup of plugin mlPolicy keys, entry points included, before any runtime is read.
from . import registry as _registry  # noqa: F401, E402
