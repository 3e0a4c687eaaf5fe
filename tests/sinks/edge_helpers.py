"""A small scope, its payload and unit vectors for the Edge shard tests."""

from __future__ import annotations

import numpy as np

from sinks.base import VectorFilter

DIM = 8
SCOPE = VectorFilter(tenant_id="acme", user_id="u-1")
PAYLOAD = {"tenant_id": "acme", "user_id": "u-1", "agent_id": "", "visibility": "user", "state": "active"}


def unit(seed: int) -> list[float]:
    vector = np.random.default_rng(seed).standard_normal(DIM)
    return (vector / np.linalg.norm(vector)).tolist()
