"""The Messages API client, built from settings: the SDK's retries and timeout are the transport policy.

Every caller of Claude (extraction, the consolidation merge, reflect) builds its client here, so
the key is required, and said how to set, in one place.
"""

from __future__ import annotations

import anthropic

from beliefs.errors import ConfigurationError
from streams.settings import Settings


def require_api_key(settings: Settings) -> str:
    """The API key, or a `ConfigurationError` that says how to provide one."""
    if settings.anthropic_api_key is None or not settings.anthropic_api_key.get_secret_value():
        raise ConfigurationError(
            "the anthropic extractor needs an API key: set ANTHROPIC_API_KEY "
            "(or BELIEFSTREAM_ANTHROPIC_API_KEY), or use BELIEFSTREAM_EXTRACTOR=rules"
        )
    return settings.anthropic_api_key.get_secret_value()


def make_client(settings: Settings) -> anthropic.AsyncAnthropic:
    """The SDK client from settings: its retries and timeout are the transport policy."""
    return anthropic.AsyncAnthropic(
        api_key=require_api_key(settings),
        base_url=settings.anthropic_base_url,
        timeout=settings.anthropic_timeout_s,
        max_retries=settings.anthropic_max_retries,
    )
