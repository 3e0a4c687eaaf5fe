"""API keys to principals: the key alone decides the tenant (and, when bound, the agent).

A tenant or agent named in a request body never widens scope (contract §3). Keys are compared in
constant time against every configured key, so neither timing nor the error says how close a guess was.
With a `RateLimiter`, every authenticated request also takes a token of its key's bucket (429 when empty),
so each route that authenticates is limited, and the unauthenticated probes never are.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sidecar.errors import Unauthorized
from sidecar.ratelimit import RateLimiter

#: `{key: (tenant_id, agent_id | None)}`, as `Settings.parsed_api_keys()` returns it.
ApiKeys = Mapping[str, tuple[str, str | None]]

_bearer = HTTPBearer(auto_error=False, description="An API key from BELIEFSTREAM_API_KEYS")


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant, and the one agent the key is bound to, if any."""

    tenant_id: str
    agent_id: str | None = None
    key_id: str | None = field(default=None, compare=False)  # `key_fingerprint`: for audit, never the key


def key_fingerprint(key: str) -> str:
    """A short, stable id of an API key (sha256 prefix), safe to store and log."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class ApiKeyAuthenticator:
    """A FastAPI dependency: `Authorization: Bearer <key>` → `Principal`, else 401 (or 429 when limited)."""

    def __init__(self, keys: ApiKeys, limiter: RateLimiter | None = None) -> None:
        self._keys = [
            (key.encode(), Principal(tenant, agent, key_fingerprint(key))) for key, (tenant, agent) in keys.items()
        ]
        self._limiter = limiter

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
        principal = self.authenticate(credentials.credentials)
        if self._limiter is not None:
            self._limiter.check(credentials.credentials)
        return principal
