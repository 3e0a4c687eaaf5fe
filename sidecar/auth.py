"""API keys to principals: the key alone decides the tenant (and, when bound, the agent).

A tenant or agent named in a request body never widens scope (contract §3). Keys are compared in
constant time against every configured key, so neither timing nor the error says how close a guess was.
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sidecar.errors import Unauthorized

#: `{key: (tenant_id, agent_id | None)}`, as `Settings.parsed_api_keys()` returns it.
ApiKeys = Mapping[str, tuple[str, str | None]]

_bearer = HTTPBearer(auto_error=False, description="An API key from BELIEFSTREAM_API_KEYS")


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant, and the one agent the key is bound to, if any."""

    tenant_id: str
    agent_id: str | None = None


class ApiKeyAuthenticator:
    """A FastAPI dependency: `Authorization: Bearer <key>` → `Principal`, else 401."""

    def __init__(self, keys: ApiKeys) -> None:
        self._keys = [(key.encode(), Principal(tenant, agent)) for key, (tenant, agent) in keys.items()]

    def authenticate(self, key: str) -> Principal:
        """The principal of `key`; every configured key is compared, matched or not."""
        offered = key.encode()
        found: Principal | None = None
        for candidate, principal in self._keys:
            if hmac.compare_digest(offered, candidate):
                found = principal
        if found is None:
            raise Unauthorized()
        return found

    async def __call__(
        self, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
    ) -> Principal:
        if credentials is None:  # missing header, or not of the form "Bearer <key>"
            raise Unauthorized()
        return self.authenticate(credentials.credentials)
