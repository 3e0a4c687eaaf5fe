"""Redact credentials and card numbers before a turn can become a claim.

A memory store is read back into prompts, logs and vector payloads; a secret that reaches it
leaks everywhere at once. Everything here runs in one pass of one precompiled regex; card
numbers and IBANs are checksum-validated so phone numbers and dates stay readable.
"""

from __future__ import annotations

import re

from agents.gates import contains_any

#: The marker a redacted secret leaves behind: `[REDACTED:<kind>]`.
REDACTION_PREFIX = "[REDACTED:"

_VALUE = r"[A-Za-z0-9_\-+/=.]"

# kind -> pattern; a group named `keep` is left in place (the words that introduce the secret)
_KINDS: dict[str, str] = {
    "private_key": r"-----BEGIN[A-Z ]*PRIVATE KEY-----(?:.*?-----END[A-Z ]*PRIVATE KEY-----|.*\Z)",
    "jwt": r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    "anthropic_key": r"\bsk-ant-[A-Za-z0-9_-]{16,}",
    "openai_key": r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}",
    "aws_key": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    "github_token": r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    "slack_token": r"\bxox[bpars]-[A-Za-z0-9-]{10,}",
    "bearer_token": r"(?P<keep_bearer_token>\b[Bb]earer\s+)[A-Za-z0-9._~+/-]{12,}=*",
    "password": (
        r"(?P<keep_password>(?i:\b(?:password|passwd|passphrase|passcode|pwd|pin)\b"
        r"(?:\s+(?:is|was|=)\b)?\s*[:=]?\s*))"
        r"(?:\"[^\"\n]{1,80}\"|'[^'\n]{1,80}'|[^\s\"']{1,80})"
    ),
    "api_key": (
        r"(?P<keep_api_key>(?i:\b(?:api[_ -]?key|access[_ -]?key|secret(?:[_ -]?key)?|"
        r"(?:access|auth|api|refresh)?[_ -]?token|client[_ -]?secret)\b"
        r"(?:\s+(?:is|was|=)\b)?\s*[:=]?\s*))"
        rf"(?:(?=[A-Za-z_\-+/=.]*\d){_VALUE}{{16,}}|(?=[^\s\"',;]*[\d&$#@!%^*])[^\s\"',;]{{6,80}})"
    ),
    "card_number": r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])",
    "iban": r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b",
}

_SECRET = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS.items()), re.DOTALL)
_DIGIT = re.compile(r"\d")
# every secret kind contains one of these; most text has none and skips the full scan
_GATE_WORDS = ("pass", "pwd", "pin", "token", "secret", "key", "bearer", "-----begin", "sk-", "akia", "asia",
               "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "eyj")  # fmt: skip
_GATE_NUMERIC = re.compile(r"\d[\d -]{11,}\d|\b[A-Z]{2}\d{2}")


def _may_hold_secret(text: str) -> bool:
    return contains_any(text, _GATE_WORDS) or _GATE_NUMERIC.search(text) is not None


def _luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _iban_ok(candidate: str) -> bool:
    """The ISO 13616 mod-97 check."""
    compact = candidate.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def _is_valid(kind: str, matched: str) -> bool:
    if kind == "card_number":
        digits = "".join(_DIGIT.findall(matched))
        return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn_ok(digits)
    if kind == "iban":
        return _iban_ok(matched)
    return True


def _scan(text: str) -> tuple[str, list[str]]:
    kinds: list[str] = []
    if not _may_hold_secret(text):
        return text, kinds

    def replace(match: re.Match[str]) -> str:
        kind = match.lastgroup or ""
        if not _is_valid(kind, match.group(kind)):
            return match.group(0)
        if kind not in kinds:
            kinds.append(kind)
        keep = match.groupdict().get(f"keep_{kind}") or ""
        return f"{keep}{REDACTION_PREFIX}{kind}]"

    return _SECRET.sub(replace, text), kinds


def redact_secrets(text: str) -> tuple[str, list[str]]:
    """The text with each secret replaced by `[REDACTED:<kind>]`, and the kinds found, in order."""
    return _scan(text)


def contains_secret(text: str) -> bool:
    """Whether the text holds any secret redact_secrets would remove."""
    return bool(_scan(text)[1])
