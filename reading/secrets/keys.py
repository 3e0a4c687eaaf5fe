"""Secrets recognisable by their own shape: API keys by their vendor prefix, private key blocks,
JSON web tokens, bearer and basic credentials, and connection strings that carry a password.

The vendor catalogue is detect-secrets' (its plugins' denylists), widened by our own patterns where
it is too narrow (Stripe keys of any length, test keys) or silent (Google, Hugging Face, Anthropic).
"""

from __future__ import annotations

import re
from functools import cache

from reading.secrets.spans import Span

# our own shapes: kind -> pattern; a group named `secret` narrows the span to the secret part
_OWN: dict[str, str] = {
    "private_key": r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "anthropic_key": r"\bsk-ant-[A-Za-z0-9_-]{16,}",
    "openai_key": r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "stripe_key": r"\b(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
    "aws_key": r"\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b",
    "github_token": r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,})",
    "slack_token": r"\bxox[abposr]-[A-Za-z0-9-]{10,}|\bxapp-\d-[A-Za-z0-9-]{10,}",
    "google_api_key": r"\bAIza[0-9A-Za-z_-]{35}",
    "huggingface_token": r"\bhf_[A-Za-z0-9]{30,}",
    "npm_token": r"\bnpm_[A-Za-z0-9]{36}\b",
    "shopify_token": r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
    "digitalocean_token": r"\bdo[por]_v1_[a-f0-9]{64}\b",
    "bearer_token": r"\b[Bb]earer\s+(?P<secret>[A-Za-z0-9._~+/-]{12,}=*)",
    "basic_auth": r"\b[Bb]asic\s+(?P<secret>[A-Za-z0-9+/]{12,}={0,2})",
    "connection_string": r"\b[A-Za-z][A-Za-z0-9+.-]{1,30}://(?P<secret>[^\s:/@'\"]*:[^\s@/'\"]+)@[\w.-]",
}

# detect-secrets plugins whose denylist is specific enough for prose (not the keyword or IP ones)
_CATALOGUE: dict[str, str] = {
    "aws": "AWSKeyDetector:aws_key",
    "azure_storage_key": "AzureStorageKeyDetector:azure_storage_key",
    "discord": "DiscordBotTokenDetector:discord_token",
    "github_token": "GitHubTokenDetector:github_token",
    "gitlab_token": "GitLabTokenDetector:gitlab_token",
    "mailchimp": "MailchimpDetector:mailchimp_key",
    "npm": "NpmDetector:npm_token",
    "openai": "OpenAIDetector:openai_key",
    "pypi_token": "PypiTokenDetector:pypi_token",
    "sendgrid": "SendGridDetector:sendgrid_key",
    "slack": "SlackDetector:slack_token",
    "square_oauth": "SquareOAuthDetector:square_token",
    "stripe": "StripeDetector:stripe_key",
    "telegram_token": "TelegramBotTokenDetector:telegram_token",
    "twilio": "TwilioKeyDetector:twilio_key",
}

# every shape above has a run of 12+ token characters, "://", or a key block
_GATE = re.compile(r"[A-Za-z0-9_\-+/=.:]{12,}|-----BEGIN")


@cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(kind, pattern) pairs, detect-secrets' loaded on first use (its import is not free)."""
    import importlib

    found = [(kind, re.compile(pattern, re.DOTALL)) for kind, pattern in _OWN.items()]
    for module, spec in _CATALOGUE.items():
        class_name, kind = spec.split(":")
        plugin = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), class_name)
        found.extend((kind, re.compile(p.pattern, p.flags)) for p in plugin.denylist)
    return tuple(found)


def key_spans(text: str) -> list[Span]:
    """Every secret of a recognisable shape in `text`."""
    if not _GATE.search(text):
        return []
    spans = []
    for kind, pattern in _patterns():
        for match in pattern.finditer(text):
            start, end = match.span("secret") if "secret" in pattern.groupindex else match.span()
            if end > start:
                spans.append(Span(start, end, kind))
    return spans
