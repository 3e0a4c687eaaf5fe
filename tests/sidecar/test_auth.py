"""The key alone decides the tenant: missing, malformed and unknown keys are the same JSON 401."""

from __future__ import annotations

import pytest

from sidecar.auth import ApiKeyAuthenticator, Principal
from sidecar.errors import Unauthorized

TURN = {"user_id": "u-1", "role": "user", "text": "I use vim."}


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Basic a2V5LWFjbWU6",
        "key-acme",
        "Bearer key-unknown",
        "Bearer key-acme2",
    ],
    ids=["missing", "empty", "no-key", "blank-key", "basic", "no-scheme", "unknown", "prefix-of-a-key"],
)
async def test_missing_malformed_or_unknown_key_is_401_json(client, publisher, authorization):
    headers = {} if authorization is None else {"Authorization": authorization}

    response = await client.post("/v1/retain", json=TURN, headers=headers)

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["error"]["code"] == "unauthorized"
    assert "Bearer" in response.json()["error"]["message"]
    assert publisher.batches == []


@pytest.mark.parametrize("path", ["/v1/jobs/some-job", "/v1/users/u-1/memories", "/v1/memories/some-memory"])
async def test_every_v1_read_needs_a_key(client, path):
    response = await client.get(path)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthorized"


async def test_scheme_is_case_insensitive(client):
    response = await client.post("/v1/retain", json=TURN, headers={"Authorization": "bearer key-acme"})

    assert response.status_code == 202


def test_authenticator_maps_keys_to_principals():
    authenticator = ApiKeyAuthenticator({"k1": ("acme", None), "k2": ("acme", "bot")})

    assert authenticator.authenticate("k1") == Principal("acme")
    assert authenticator.authenticate("k2") == Principal("acme", "bot")
    with pytest.raises(Unauthorized):
        authenticator.authenticate("k3")


def test_authenticator_without_keys_refuses_everyone():
    with pytest.raises(Unauthorized):
        ApiKeyAuthenticator({}).authenticate("")
