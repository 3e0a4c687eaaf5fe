"""Numbers that are secrets: payment cards, IBANs and US social security numbers.

Each is checksum- or rule-validated by python-stdnum, so order numbers, phone numbers, dates and
versions stay readable: a card must pass Luhn and start like a card (its issuer prefix and
length), an IBAN its mod-97 check and country format, an SSN the SSA's area/group/serial rules.
"""

from __future__ import annotations

import re

from stdnum import iban, luhn
from stdnum.us import ssn

from reading.secrets.spans import Span

_CARD = re.compile(r"(?<![\w.-])\d(?:[ .-]?\d){11,18}(?![\w-]|\.\d)")
_IBAN = re.compile(r"\b[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]){11,30}\b")
_SSN = re.compile(r"(?<![\w-])\d{3}([- ])\d{2}\1\d{4}(?![\w-])")
_SSN_BARE = re.compile(r"(?i:\b(?:ssn|social security(?: number| no\.?)?|social)\b\D{0,20}?)(?P<n>\d{9})\b")
_DIGIT_RUN = re.compile(r"\d[\d .-]{7,}\d")
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]")

# (prefixes, lengths) of card issuers: Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro
_ISSUERS: tuple[tuple[tuple[str, ...], range], ...] = (
    (("4",), range(13, 20)),
    (("51", "52", "53", "54", "55", *(str(n) for n in range(2221, 2721))), range(16, 17)),
    (("34", "37"), range(15, 16)),
    (("6011", "65", *(str(n) for n in range(644, 650))), range(16, 20)),
    (("35",), range(16, 20)),
    (("300", "301", "302", "303", "304", "305", "36", "38", "39"), range(14, 20)),
    (("62",), range(16, 20)),
    (("50", "56", "57", "58", "6"), range(12, 20)),
)


def is_card_number(digits: str) -> bool:
    """Luhn-valid, of an issuer's prefix and length, and not one digit repeated."""
    if len(set(digits)) == 1 or not luhn.is_valid(digits):
        return False
    return any(digits.startswith(prefixes) and len(digits) in lengths for prefixes, lengths in _ISSUERS)


def _iban_span(match: re.Match[str]) -> Span | None:
    """The longest prefix of the match that is a valid IBAN (the match may run into the next word)."""
    text = match.group()
    ends = [i + 1 for i, char in enumerate(text) if char.isalnum()]
    for count in range(min(len(ends), 34), 14, -1):
        candidate = text[: ends[count - 1]]
        if iban.is_valid(_NOT_ALNUM.sub("", candidate)):
            return Span(match.start(), match.start() + len(candidate), "iban")
    return None


def number_spans(text: str) -> list[Span]:
    """Every card number, IBAN and SSN in `text`."""
    if not _DIGIT_RUN.search(text):
        return []
    spans = []
    for match in _CARD.finditer(text):
        if is_card_number(_NOT_ALNUM.sub("", match.group())):
            spans.append(Span(*match.span(), "card_number"))
    for match in _IBAN.finditer(text):
        if span := _iban_span(match):
            spans.append(span)
    for match in _SSN.finditer(text):
        if ssn.is_valid(_NOT_ALNUM.sub("", match.group())):
            spans.append(Span(*match.span(), "ssn"))
    for match in _SSN_BARE.finditer(text):
        if ssn.is_valid(match.group("n")):
            spans.append(Span(*match.span("n"), "ssn"))
    return spans
