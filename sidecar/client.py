"""The Python client, as the server's own code imports it: `beliefstream_client` (clients/python/),
the package applications install on its own (`pip install beliefstream-client`)."""

from beliefstream_client import JobWaitTimeout, MemoryClient, MemoryClientError, SyncMemoryClient

__all__ = ["JobWaitTimeout", "MemoryClient", "MemoryClientError", "SyncMemoryClient"]
