"""The top floor: the CLI and the process wiring that start brokers, workers and the sidecar."""
