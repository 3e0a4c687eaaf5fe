"""Concurrent reads that all run to the end before a failure is raised.

The recall service starts its store and index reads together, and the SQL reader its statements on
the async engine; no read is left running behind a failed one.
"""

from __future__ import annotations

import asyncio


async def gather_all(*steps):
    """Run `steps` concurrently; every one finishes before the first failure is raised."""
    results = await asyncio.gather(*steps, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results
