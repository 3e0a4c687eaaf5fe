"""beliefstream's Python client: `MemoryClient` (async) and `SyncMemoryClient` for the sidecar's HTTP API.

Depends on httpx and the standard library only, so applications install it without the server.
"""

from beliefstream_client.calls import JobWaitTimeout, MemoryClientError
from beliefstream_client.client import MemoryClient, SyncMemoryClient

__all__ = ["JobWaitTimeout", "MemoryClient", "MemoryClientError", "SyncMemoryClient"]
