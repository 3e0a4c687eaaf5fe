"""The sidecar's routes, one module per resource; each exports a router factory taking its dependencies."""
