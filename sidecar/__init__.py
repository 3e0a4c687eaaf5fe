"""The recall sidecar: HTTP (and MCP) service over the belief state."""
