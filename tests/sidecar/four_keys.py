"""A deployment with four keys, as issue 12 was tried: `keyA` (tenant A), `keyB` (tenant B),
`keyAX` and `keyAY` (tenant A, bound to agents X and Y), plus `keyAYm` (agent Y granted `manage`)
and `keyAdmin` (tenant A with `admin`); and, as issue 25 was tried, tenant A keys with one or a few
capabilities: `keyAret` (`retain`), `keyArec` (`recall`) and `keyAshared` (everything but `agents`:
shared state only, as `keyA` with its default rights since issue 29, item 13), and `keyAagents`
(a tenant key whose entry lists `agents`: it may act for any agent of its tenant).

The sidecar is the real app over the real SQL store (both backends), a Qdrant Edge shard, the real
model and recall; retained turns are captured by a recording publisher and `drain` runs them
through the real write pipeline (rules extractor), so the path is the one a broker would feed.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from projection import projector_of
from recording_producer import RecordingProducer

from agents.consolidate import Consolidator
from agents.pipeline import WritePipeline
from reading.decode import RawTurn
from reading.extract.rules import RulesExtractor
from sidecar.app import create_app
from sidecar.recall.audit import AuditLog
from sidecar.recall.service import RecallService
from sinks.sql.admin import AdminStore
from sinks.sql.manage_store import MaintenanceStore
from sinks.sql.store import SqlMemoryStore
from sinks.vectors.edge import EdgeVectorIndex
from streams.settings import Settings
from tests.sidecar.conftest import RecordingPublisher

USER = "u1"
KEYS = ("keyA", "keyB", "keyAX", "keyAY", "keyAYm", "keyAdmin", "keyAret", "keyArec", "keyAshared", "keyAagents")
START = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@dataclass
class Deployment:
    http: httpx.AsyncClient
    store: SqlMemoryStore
    vectors: EdgeVectorIndex
    publisher: RecordingPublisher
    pipeline: WritePipeline
    audit: AuditLog
    tenant_a: str
    tenant_b: str
    keys: dict[str, str]  # short name -> the configured key (unique per test)
    clock: int = 0

    async def retain(self, key: str, text: str, *, private: bool = False, user: str = USER) -> str:
        """Retain one user turn through `key` (said a day after the previous one); its job id."""
        self.clock += 1
        body = {
            "user_id": user,
            "role": "user",
            "text": text,
            "ts": (START + timedelta(days=self.clock)).isoformat(),
            "metadata": {"visibility": "agent"} if private else {},
        }
        response = await self.http.post("/v1/retain", json=body, headers=self.auth(key))
        assert response.status_code == 202, response.text
        await self.drain()
        return response.json()["job_ids"][0]

    async def drain(self) -> None:
        """Run what was published through the write pipeline, as the worker would."""
        turns = self.publisher.turns
        self.publisher.batches.clear()
        raws = [
            RawTurn(t.model_dump_json().encode(), t.key.encode(), "beliefstream.turns", 0, i)
            for i, t in enumerate(turns)
        ]
        if raws:
            await self.pipeline.persist(await self.pipeline.prepare(raws))
            await self.pipeline.projector.drain()  # the worker's projector follows the outbox

    async def recall(self, key: str, query: str, user: str = USER, **body) -> list[str]:
        response = await self.http.post(
            "/v1/recall", json={"user_id": user, "query": query, **body}, headers=self.auth(key)
        )
        assert response.status_code == 200, response.text
        return [m["text"] for m in response.json()["memories"]]

    def auth(self, key: str) -> dict[str, str]:
        return bearer(self.keys[key])


@pytest.fixture(name="deployment")
async def deployment_fixture(sql_url: str, tmp_path, minilm) -> AsyncIterator[Deployment]:
    run = uuid.uuid4().hex[:8]
    tenant_a, tenant_b = f"tenantA-{run}", f"tenantB-{run}"
    keys = {name: f"{name}-{run}" for name in KEYS}
    api_keys = ",".join(
        [
            f"{keys['keyA']}={tenant_a}",
            f"{keys['keyB']}={tenant_b}",
            f"{keys['keyAX']}={tenant_a}:agentX",
            f"{keys['keyAY']}={tenant_a}:agentY",
            f"{keys['keyAYm']}={tenant_a}:agentY/retain+recall+manage",
            f"{keys['keyAdmin']}={tenant_a}/admin",
            f"{keys['keyAret']}={tenant_a}/retain",
            f"{keys['keyArec']}={tenant_a}/recall",
            f"{keys['keyAshared']}={tenant_a}/retain+recall+manage+erase",
            f"{keys['keyAagents']}={tenant_a}/retain+recall+manage+erase+agents",
        ]
    )
    settings = Settings(api_keys=api_keys, data_dir=tmp_path)
    store = SqlMemoryStore(sql_url)
    vectors = EdgeVectorIndex(tmp_path / "vectors", dim=384)
    await store.setup()
    await vectors.setup()
    audit = AuditLog(store)
    recall = RecallService(store, vectors, minilm, audit=audit)
    publisher = RecordingPublisher()
    projector = projector_of(store, vectors)
    pipeline = WritePipeline(settings, store, projector, minilm, RulesExtractor(), RecordingProducer())
    consolidator = Consolidator(MaintenanceStore.of(store), projector, minilm)
    app = create_app(
        settings,
        store,
        publisher,
        vectors,
        embedder=minilm,
        recall=recall,
        consolidator=consolidator,
        contested=store,
        projector=projector,
        admin=AdminStore.of(store),
    )
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
            yield Deployment(http, store, vectors, publisher, pipeline, audit, tenant_a, tenant_b, keys)
    finally:
        await recall.close()
        await vectors.close()
        await store.close()
