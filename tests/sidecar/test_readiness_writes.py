"""Issue 25, item 9: `/readyz` says not ready while SQL writes fail (a full disk, a read-only database),
though reads still answer, and ready again once a write goes through; no write is tried while they work."""

from __future__ import annotations

import contextlib

from sqlalchemy import event

from tests.sidecar.four_keys import USER, Deployment, deployment_fixture  # noqa: F401 (the fixture)


@contextlib.asynccontextmanager
async def writes_refused(deployment: Deployment):
    """Every SQL connection of the store refuses writes, as a full disk or a read-only mount would,
    while reads answer: SQLite `query_only`, PostgreSQL read-only transactions."""
    engine = deployment.store._engine
    sqlite = engine.dialect.name == "sqlite"
    statement = "PRAGMA query_only = ON" if sqlite else "SET default_transaction_read_only = on"

    def refuse(dbapi_connection, _record) -> None:
        if not sqlite:  # outside the transaction the driver adapter opens (its rollback would undo it)
            dbapi_connection.run_async(lambda connection: connection.execute(statement))
            return
        cursor = dbapi_connection.cursor()
        cursor.execute(statement)
        cursor.close()

    event.listen(engine.sync_engine, "connect", refuse)
    await engine.dispose()  # the pooled connections reopen with the statement
    try:
        yield
    finally:
        event.remove(engine.sync_engine, "connect", refuse)
        await engine.dispose()


async def readiness(deployment: Deployment) -> tuple[int, dict]:
    response = await deployment.http.get("/readyz")
    return response.status_code, response.json()


async def test_readyz_is_not_ready_while_writes_fail_and_ready_once_they_go_through(deployment: Deployment) -> None:
    await deployment.retain("keyA", "I live in Porto.")
    assert (await readiness(deployment))[0] == 200

    async with writes_refused(deployment):
        refused = await deployment.http.post(
            "/v1/retain", json={"user_id": USER, "role": "user", "text": "I moved to Braga."},
            headers=deployment.auth("keyA"),
        )
        code, body = await readiness(deployment)
        listed = await deployment.http.get(f"/v1/users/{USER}/memories", headers=deployment.auth("keyA"))

        assert refused.status_code == 503  # the turn was not kept: the client retries it
        assert code == 503 and body["checks"]["sql"] == "ok" and body["checks"]["sql_writes"] == "failed"
        assert "sql_writes" in body["error"]["message"]
        assert listed.status_code == 200 and listed.json()["memories"]  # reads still answer
        assert (await readiness(deployment))[0] == 503  # the probe write fails too: still not ready

    code, body = await readiness(deployment)  # the probe write commits: ready again, no write needed first
    assert code == 200 and body["checks"]["sql_writes"] == "ok"
    await deployment.retain("keyA", "I moved to Braga.")
