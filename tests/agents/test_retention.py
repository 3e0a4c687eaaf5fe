"""Episode retention on SQLite and PostgreSQL: the decay job deletes expired episodes and their points."""

from __future__ import annotations

from datetime import timedelta

from projection import projector_of

from agents.decay_job import run_decay
from sinks.base import VectorFilter
from sinks.recall import Currency, RecallScope
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from tests.sinks.episode_builders import T0, VECTOR, kept, said


async def test_the_decay_job_deletes_episodes_past_their_retention(store: SqlMemoryStore, tenant: str, tmp_path) -> None:
    vectors = EdgeVectorIndex(tmp_path / "vectors", dim=len(VECTOR))
    await vectors.setup()
    try:
        old = said(tenant, "We celebrated at the harbour restaurant.", minute=0)
        kept_forever = said(tenant, "We celebrated at the harbour again.", minute=1)
        elsewhere = said(tenant + "-b", "Harbour dinner in another tenant.", minute=0)
        result = await store.write(
            [kept(old, retention_days=1), kept(kept_forever), kept(elsewhere, retention_days=1)]
        )
        projector = projector_of(store, vectors)
        await projector.drain()
        assert await vectors.count(tenant) == 2
        now = T0 + timedelta(days=2)

        report = await run_decay(MaintenanceStore.of(store), projector, now, tenant_id=tenant)
        again = await run_decay(MaintenanceStore.of(store), projector, now, tenant_id=tenant)
        await projector.drain()  # the deletion left a tombstone for the point

        assert (report.episodes_purged, again.episodes_purged) == (1, 0)
        ids = {e.turn_id: e.id for e in result.episodes}
        assert await store.get_episode(tenant, ids[old.turn_id]) is None
        assert await store.get_episode(tenant, ids[kept_forever.turn_id]) is not None
        assert await store.get_episode(tenant + "-b", ids[elsewhere.turn_id]) is not None  # another tenant's run
        hits = await vectors.search(VECTOR, VectorFilter(tenant, "u1", kinds=("episode",)), 10)
        assert [hit.id for hit in hits] == [ids[kept_forever.turn_id]]
        found = await store.episode_keyword_candidates(RecallScope(tenant, "u1"), Currency(T0, 0.4), ["harbour"], 10)
        assert [hit.id for hit in found] == [ids[kept_forever.turn_id]]
    finally:
        await vectors.close()
