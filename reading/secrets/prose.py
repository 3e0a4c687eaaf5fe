"""Secrets that only the words before them reveal: "my pw is CorrectHorse99!", "login admin /
S3cretSauce!", "my AWS secret access key is …", a random-looking token next to "token".

A strong word (password, pw, passcode, PIN, CVV, …) marks whatever follows its connector as a
secret, unless that is an ordinary word ("my password is expired"). A weak word (key, token,
secret, …) marks only a value that looks generated: digits or symbols among letters, or a long
run of high Shannon entropy (detect-secrets' measure).
"""

from __future__ import annotations

import re
from functools import cache

from reading.gates import contains_any
from reading.secrets.spans import REDACTION_PREFIX, Span

_STRONG = (
    r"pass(?:word|wd|wort|phrase|code)s?|pwd|pw|"
    # a bare "pass" is a password, not a travel or entry pass ("my rail pass is 90 a month")
    r"(?<!rail )(?<!bus )(?<!train )(?<!metro )(?<!subway )(?<!tube )(?<!transit )(?<!travel )(?<!season )"
    r"(?<!ski )(?<!boarding )(?<!museum )(?<!gym )(?<!day )(?<!week )(?<!park )(?<!press )(?<!backstage )pass|"
    r"pin(?: code| number)?|cvv2?|cvc2?|security code|"
    r"one[- ]time (?:password|code)|otp|2fa code|verification code|recovery codes?|backup codes?|seed phrase|"
    r"mnemonic|secret (?:answer|question answer)"
)
_WEAK = (
    r"(?:api|access|secret|private|auth|signing|encryption|master|license|licence|session|client)?[ _-]?"
    r"(?:key|token|secret)s?|secret access key|client secret|credentials?|cookie|signature|webhook secret|"
    r"app password|auth code"
)
# "for my bank", "to the wifi", "on github": what the secret is for, kept
_FOR = r"(?:\s+(?:for|to|of|on|at)\s+(?:my|the|our|your)?\s*[\w.'’-]+(?:\s+[\w.'’-]+)?)?"
_CONNECTOR = (
    r"(?:\s*[:=]\s*|\s+(?:(?:is|was|has been) (?:changed|set|updated|reset) to|is now|set to|changed to|will be|"
    r"is|was|are|=|:|-|reads)\s*[:=]?\s+)"
)
_VALUE = r"(?:\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|“[^”\n]{1,100}”|[^\s\"'“]{1,120})"

_INTRODUCED = re.compile(
    rf"(?i:\b(?P<word>{_STRONG}|{_WEAK}){_FOR}{_CONNECTOR})(?P<value>{_VALUE})"
)
# "pw CorrectHorse99!" with no connector: any value but an ordinary word ("password manager")
_BARE = re.compile(r"(?i:\b(?:pass(?:word|wd|wort|phrase|code)s?|pwd|pw)\s+)(?P<value>[^\s\"']{3,120})")
# "login admin / S3cretSauce!", "credentials: root:toor", "user bob pass hunter22"
_LOGIN = re.compile(
    r"(?i:\b(?:login|log-in|logon|sign-in|credentials?|creds|user(?:name)?|account|username and password)\b"
    r"(?:\s+(?:is|are|was|=|:))?\s*[:=]?\s*)"
    r"(?P<value>[^\s/:,;]{1,64}\s*[/:]\s*[^\s]{2,120})"
)
_TOKEN = re.compile(r"[A-Za-z0-9+/=_.~-]{16,}")
_SECRET_NEAR = re.compile(
    r"(?i:\b(?:token|key|secret|password|passwd|pw|credential|credentials|api|auth|bearer|cookie|session|"
    r"signature|hmac|salt|webhook)\b)"
)
_ORDINARY = frozenset(
    "the a an my your our their his her its same different not too very so weak strong wrong incorrect correct "
    "expired changed reset saved stored written required needed case secure insecure long short easy hard simple "
    "complicated still also just really on in at for to of and or but something what that this it there here "
    "being set protected managed hidden encrypted forgotten lost new old fine ok okay good bad great important "
    "missing invalid valid broken locked unlocked working safe unsafe under over somewhere yesterday today "
    "tomorrow again recently last every once twice manager managers hint hints policy policies requirement "
    "requirements rules field box prompt resets change changes strength length rotation with because is was "
    "are be been when if before after then than as by from into about like please so-called itself".split()
)
_GATE_WORDS = ("pass", "pw", "pin", "cvv", "cvc", "code", "otp", "key", "token", "secret", "cred", "cookie",
               "signature", "login", "log-in", "logon", "sign-in", "user", "account", "mnemonic", "seed")  # fmt: skip
_WORD = re.compile(r"[\w'’-]+")
_LOOKS_GENERATED = re.compile(r"(?=.*[A-Za-z])(?=.*[\d!@#$%^&*+=?~_])")
_TRAILING = ".,;:)!?"


@cache
def _entropy_of():
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return Base64HighEntropyString().calculate_shannon_entropy


def high_entropy(token: str) -> bool:
    """A generated-looking token: letters and digits, and entropy above what words reach."""
    if not (re.search(r"\d", token) and re.search(r"[A-Za-z]", token)):
        return False
    return _entropy_of()(token) >= (3.0 if re.fullmatch(r"[0-9a-fA-F]+", token) else 3.5)


def _value_span(match: re.Match[str], strong: bool) -> Span | None:
    value = match.group("value")
    start, end = match.span("value")
    if value.startswith(REDACTION_PREFIX):
        return None
    quoted = value[:1] in "\"'“"
    if not quoted:
        trimmed = value.rstrip(_TRAILING)
        if not trimmed or (trimmed != value and _LOOKS_GENERATED.match(value) and not _LOOKS_GENERATED.match(trimmed)):
            trimmed = value  # "Horse99!": the mark was part of it
        end = start + len(trimmed)
        value = trimmed
        first = _WORD.match(value)
        if first and first.group().lower() in _ORDINARY:
            return None
        if not strong and not (_LOOKS_GENERATED.match(value) and len(value) >= 6 or high_entropy(value)):
            return None
    kind = "password" if strong else "api_key"
    return Span(start, end, kind)


def _is_strong(word: str) -> bool:
    return re.fullmatch(rf"(?i:{_STRONG})", word) is not None


def prose_spans(text: str) -> list[Span]:
    """Every secret the words before it introduce."""
    if not contains_any(text, _GATE_WORDS):
        return []
    spans = []
    for match in _INTRODUCED.finditer(text):
        if span := _value_span(match, _is_strong(match.group("word"))):
            spans.append(span)
    for match in _BARE.finditer(text):
        value = match.group("value").rstrip(".,;")
        first = _WORD.match(value)
        ordinary = first is None or first.group().lower() in _ORDINARY
        if value and not ordinary and not value.startswith(REDACTION_PREFIX):
            start = match.start("value")
            spans.append(Span(start, start + len(value), "password"))
    for match in _LOGIN.finditer(text):
        if not match.group("value").startswith(REDACTION_PREFIX):
            spans.append(Span(*match.span("value"), "login"))
    for token in _TOKEN.finditer(text):
        before = text[max(0, token.start() - 40) : token.start()]
        if _SECRET_NEAR.search(before) and high_entropy(token.group()):
            spans.append(Span(*token.span(), "api_key"))
    return spans
