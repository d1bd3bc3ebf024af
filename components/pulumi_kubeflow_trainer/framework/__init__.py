"""RuntimeInfo, extension points, the plugin registry, strategic merge and the Framework that runs the
plugins' phases. Importing it changes nothing elsewhere: what a registry knows stays with it."""
