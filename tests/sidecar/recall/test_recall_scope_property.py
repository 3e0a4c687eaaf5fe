"""Property: whatever the population and the request, recall returns nothing outside the caller's
scope and nothing that is not current, even when the vector payload says otherwise."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beliefs.records import Memory, Trust, Visibility
from sidecar.auth import TENANT_DEFAULT, Capability, Principal
from sidecar.errors import Forbidden
from sidecar.recall.models import RecallRequest
from sinks.sql.tables import memories
from tests.sidecar.recall.seeding import NOW, mem

TENANTS = ("A", "B")
USERS = ("u1", "u2")
AGENTS = (None, "a1", "a2")
WORDS = ("sushi", "cello", "budget", "python", "garden")
#: Changes made in SQL after indexing, so the index still holds the point as active.
SQL_CHANGES = {
    "revoked": {"state": "revoked", "revoked_at": NOW},
    "superseded": {"state": "superseded", "valid_until": NOW},
    "contested": {"state": "contested"},
    "consolidated": {"state": "consolidated"},
}
#: Changes made at write time: stored as they are, never current.
WRITE_CHANGES = {
    "expired": {"expires_at": NOW - timedelta(hours=1)},
    "weak": {"confidence": 0.2},
    "untrusted": {"trust": Trust.UNTRUSTED},
}

#: Skewed towards tenant A / user u1, which the requests favour too, so most recalls return something.
tenants = st.sampled_from(("A", "A", "B"))
users = st.sampled_from(("u1", "u1", "u2"))

memory_specs = st.lists(
    st.tuples(
        tenants,
        users,
        st.sampled_from(AGENTS),
        st.sampled_from(list(Visibility)),
        st.sampled_from([None, None, None, *SQL_CHANGES, *WRITE_CHANGES]),
        st.sampled_from(WORDS),
        st.booleans(),  # profile
    ),
    min_size=4,
    max_size=16,
)
requests = st.tuples(
    tenants,
    users,
    st.sampled_from(AGENTS),  # the agent the key is bound to
    st.sampled_from(AGENTS),  # the agent named in the body
    st.sampled_from(WORDS),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(specs=memory_specs, request=requests)
async def test_recall_never_leaves_the_scope_or_the_present(world, specs, request) -> None:
    run = uuid.uuid4().hex[:8]
    tenant_of = {t: f"prop-{run}-{t}" for t in TENANTS}
    seeded: dict[str, tuple[Memory, str | None]] = {}
    for i, (tenant, user, agent, visibility, change, word, profile) in enumerate(specs):
        fields = WRITE_CHANGES.get(change, {}) if change else {}
        text = f"The user mentioned {word} in note {run}-{i}."
        memory = mem(
            tenant_of[tenant], user, text, agent_id=agent, visibility=visibility, profile=profile, **fields
        )
        seeded[memory.id] = (memory, change)
    await world.seed(*(m for m, _ in seeded.values()))
    async with world.store._engine.begin() as conn:
        for memory, change in seeded.values():
            if change in SQL_CHANGES:
                stmt = sa.update(memories).where(memories.c.id == memory.id).values(SQL_CHANGES[change])
                await conn.execute(stmt)

    tenant, user, bound, named, word = request
    principal = Principal(tenant_of[tenant], bound)
    body = RecallRequest(user_id=user, query=f"{word} note", agent_id=named, diagnostics=True)
    if bound is not None and named not in (None, bound):
        with pytest.raises(Forbidden):
            await world.service.recall(principal, body)
        return
    if bound is None and named is not None:  # a tenant key acts for an agent only with `agents`
        with pytest.raises(Forbidden):
            await world.service.recall(principal, body)
        principal = Principal(tenant_of[tenant], None, capabilities=TENANT_DEFAULT | {Capability.AGENTS})
    result = await world.service.recall(principal, body)

    agent = bound or named
    named_ids = [m.id for m in result.memories] + [s.id for s in result.suppressed]
    named_ids += [i for c in result.conflicts for i in (c.kept_id, c.dropped_id)]
    for memory_id in named_ids:
        memory, change = seeded[memory_id]  # KeyError: a memory of an earlier example, another scope
        assert memory.tenant_id == tenant_of[tenant] and memory.user_id == user
        assert memory.visibility is not Visibility.AGENT or (agent is not None and memory.agent_id == agent)
        assert change is None, f"{change} memory recalled"


# -- writes: an agent's private writes never change another agent's recall ---------------------------

#: Slots and values X's private writes and the shared beliefs fight over (single- and multi-valued).
SLOTS = (
    ("preferred_theme", ("dark", "light", "solarized")),
    ("preferred_meeting_time", ("morning", "afternoon")),
    ("allergy", ("shellfish", "peanuts")),
)
private_writes = st.lists(
    st.tuples(
        st.integers(0, len(SLOTS) - 1),
        st.integers(0, 2),  # the value (modulo the slot's values)
        st.sampled_from(("x", "x", "y", None)),  # whose private belief it is: mostly X's
        st.booleans(),  # the same text as a shared memory (a duplicate) rather than a slot claim
    ),
    min_size=1,
    max_size=8,
)


def claim(tenant: str, slot: int, value: int, days_ago: float, **fields) -> Memory:
    attribute, values = SLOTS[slot]
    chosen = values[value % len(values)]
    text = f"The user's {attribute.replace('_', ' ')} is {chosen}."
    return mem(
        tenant, "u1", text, days_ago=days_ago, entity="user", attribute=attribute, value=chosen, **fields
    )


def private(memory: Memory, agent: str) -> Memory:
    return memory.model_copy(update={"agent_id": agent, "visibility": Visibility.AGENT})


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(writes=private_writes, base_y=st.tuples(st.integers(0, len(SLOTS) - 1), st.integers(0, 2)))
async def test_private_writes_of_one_agent_never_change_another_agents_recall(world, writes, base_y) -> None:
    tenant = f"prop-w-{uuid.uuid4().hex[:8]}"
    shared = [claim(tenant, slot, 0, days_ago=30) for slot in range(len(SLOTS))]
    own_y = private(claim(tenant, *base_y, days_ago=29), "y")
    await world.seed(*shared, own_y)
    query = RecallRequest(user_id="u1", query="theme, meeting time and allergies")
    as_y = Principal(tenant, "y")
    as_tenant = Principal(tenant)  # sees shared beliefs only when it names no agent

    def seen(result) -> list[tuple[str, str]]:
        return sorted((m.id, m.text) for m in result.memories) + sorted((c.kept_id, c.dropped_id) for c in result.conflicts)

    before_y = seen(await world.service.recall(as_y, query))
    before_tenant = seen(await world.service.recall(as_tenant, query))
    assert before_y, "the base population is recalled: the property can fail"

    for i, (slot, value, owner, duplicate) in enumerate(writes):
        days_ago = 20 - i
        if owner is None:  # X repeats Y's own private claim: still X's private memory
            written = private(claim(tenant, *base_y, days_ago=days_ago), "x")
        elif duplicate:
            source = shared[slot] if owner == "x" else own_y
            written = private(mem(tenant, "u1", source.text, days_ago=days_ago), "x")
        else:
            written = private(claim(tenant, slot, value, days_ago=days_ago), "x")
        await world.seed(written.model_copy(update={"source_turn_ids": [f"w-{tenant}-{i}"]}))

    assert seen(await world.service.recall(as_y, query)) == before_y
    assert seen(await world.service.recall(as_tenant, query)) == before_tenant
