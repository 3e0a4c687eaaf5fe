"""API keys to principals: the key alone decides the tenant, the agent (when bound) and what it may do.

A tenant or agent named in a request body never widens scope (contract §3). Keys are compared in
constant time against every configured key, so neither timing nor the error says how close a guess was.
With a `RateLimiter`, every authenticated request also takes a token of its key's bucket (429 when empty),
so each route that authenticates is limited, and the unauthenticated probes never are.

Capabilities (`BELIEFSTREAM_API_KEYS="key=tenant[:agent][/cap+cap...]"`; a 403 JSON error without;
which route and MCP tool needs which is one table, `sidecar.access`, enforced by its guard):

    retain   POST /v1/retain, MCP store_memory; an agent revoking or editing its own private rows
    recall   POST /v1/recall and /v1/reflect; reads of memories, episodes, attribute histories,
             exports, users, jobs and contested pairs
    manage   revoke (memories and episodes), consolidate, resolve a contested pair, edit, direct
             insert (stored as `caution`)
    erase    DELETE /v1/users/{id} (keys not bound to an agent only)
    agents   a tenant key acting for any agent of its tenant: `agent_id` in a body, that agent's
             private memories, episodes, jobs and contested pairs
    admin    every capability above, and a direct insert's confidence, trust and source role taken
             as given (authority); `all` is a synonym

Defaults when a key lists none: a tenant key gets retain+recall+manage+erase, not `agents`, so it
acts for no agent: a body's `agent_id` is a 403 and no agent's private state is in its reach (an
operator's key that must act for agents lists `agents`, or is bound to one agent); a key bound to an
agent gets retain+recall. So neither kind may write an authoritative memory directly without
`admin`, and an agent-bound key may neither insert directly nor resolve a contested pair unless
granted `manage`.

Scope: an agent-bound key sees shared state and its own agent's private state, and may name no
other agent. A tenant key's scope is the whole tenant: naming an agent (with `agents`) selects that
agent's view inside it, it never reaches past the key; without `agents` the key sees shared state
only and naming an agent is a 403. An agent may revoke its own private memories and episodes with
`retain`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated

from fastapi import Depends
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from beliefs.errors import ConfigurationError
from sidecar.errors import Forbidden, Unauthorized
from sidecar.ratelimit import RateLimiter
from sinks.reach import EVERY_AGENT, Reach


class Capability(StrEnum):
    RETAIN = "retain"
    RECALL = "recall"
    MANAGE = "manage"
    ERASE = "erase"
    AGENTS = "agents"
    ADMIN = "admin"


#: A tenant key's rights when its entry names none: everything but `admin` and `agents` (identity
#: comes from the key: a tenant key acts for no agent unless granted `agents`).
TENANT_DEFAULT = frozenset(Capability) - {Capability.ADMIN, Capability.AGENTS}
#: An agent-bound key's rights when its entry names none.
AGENT_DEFAULT = frozenset({Capability.RETAIN, Capability.RECALL})

#: `{key: (tenant_id, agent_id | None)}` or `{key: (tenant_id, agent_id | None, capability names | None)}`.
ApiKeys = Mapping[str, tuple[str, str | None] | tuple[str, str | None, Iterable[str] | None]]

#: The `Authorization: Bearer <key>` reader (auto_error off: a missing key is our 401, not FastAPI's 403).
BEARER = HTTPBearer(auto_error=False, description="An API key from BELIEFSTREAM_API_KEYS")


def capabilities_of(names: Iterable[str] | None, agent_id: str | None) -> frozenset[Capability]:
    """The capabilities a key entry grants: its names (`all` = `admin`), else the default of its kind."""
    if names is None:
        return AGENT_DEFAULT if agent_id is not None else TENANT_DEFAULT
    granted: set[Capability] = set()
    for name in names:
        name = name.strip().lower()
        if name == "all":
            name = Capability.ADMIN.value
        try:
            granted.add(Capability(name))
        except ValueError:
            known = ", ".join([*(c.value for c in Capability), "all"])
            raise ConfigurationError(
                f"BELIEFSTREAM_API_KEYS: unknown capability {name!r}; known: {known}"
            ) from None
    if Capability.ADMIN in granted:
        return frozenset(Capability)
    return frozenset(granted)


@dataclass(frozen=True)
class Principal:
    """Who is calling: a tenant, the one agent the key is bound to (if any), and what it may do."""

    tenant_id: str
    agent_id: str | None = None
    key_id: str | None = field(default=None, compare=False)  # `key_fingerprint`: for audit, never the key
    capabilities: frozenset[Capability] | None = None  # None: the default of the key's kind

    def __post_init__(self) -> None:
        if self.capabilities is None:
            object.__setattr__(self, "capabilities", capabilities_of(None, self.agent_id))

    def can(self, capability: Capability) -> bool:
        return capability in (self.capabilities or ())

    def require(self, capability: Capability, action: str) -> None:
        """`Forbidden` unless the key holds `capability`; `action` says what was refused."""
        if not self.can(capability):
            raise Forbidden(f"{action} needs the {capability.value!r} capability, which this API key lacks")

    def require_to_change(self, private_to: str | None, action: str) -> None:
        """Changing a memory (revoke, edit): an agent's own private memory needs only `retain`, any
        other one `manage`; `private_to` is the agent whose private memory it is, if any."""
        own = self.agent_id is not None and private_to == self.agent_id
        self.require(Capability.RETAIN if own else Capability.MANAGE, action)

    @property
    def reach(self) -> Reach:
        """Whose private state this key sees: its own agent's, every agent's (`agents`), or none."""
        if self.agent_id is not None:
            return Reach(agent_id=self.agent_id)
        return EVERY_AGENT if self.can(Capability.AGENTS) else Reach()

    def acting_agent(self, named: str | None, field_name: str = "agent_id") -> str | None:
        """The agent a call acts as: the bound agent (a body may only repeat it), or the one a tenant
        key names with the `agents` capability; `Forbidden` otherwise."""
        if self.agent_id is not None:
            if named not in (None, self.agent_id):
                raise Forbidden(f"{field_name} is not the agent this API key is bound to")
            return self.agent_id
        if named is not None and not self.can(Capability.AGENTS):
            raise Forbidden(f"{field_name}: acting as an agent needs the 'agents' capability, which this API key lacks")
        return named


def key_fingerprint(key: str) -> str:
    """A short, stable id of an API key (sha256 prefix), safe to store and log."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


class ApiKeyAuthenticator:
    """A FastAPI dependency: `Authorization: Bearer <key>` → `Principal`, else 401 (or 429 when limited).

    Unknown capability names raise `ConfigurationError` here, so a bad configuration fails at start-up.
    """

    def __init__(self, keys: ApiKeys, limiter: RateLimiter | None = None) -> None:
        self._keys: list[tuple[bytes, Principal]] = []
        for key, grant in keys.items():
            tenant, agent = grant[0], grant[1]
            names = grant[2] if len(grant) > 2 else None
            principal = Principal(tenant, agent, key_fingerprint(key), capabilities_of(names, agent))
            self._keys.append((key.encode(), principal))
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
        self, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)]
    ) -> Principal:
        if credentials is None:  # missing header, or not of the form "Bearer <key>"
            raise Unauthorized()
        principal = self.authenticate(credentials.credentials)
        if self._limiter is not None:
            self._limiter.check(credentials.credentials)
        return principal
