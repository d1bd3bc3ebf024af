"""RuntimeInfo, extension points, the plugin registry, strategic merge and render()."""
