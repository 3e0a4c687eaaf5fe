"""Negative memory: what the assistant must not do ("Never recommend Alto again").

A "do not" is a constraint, not a default: it fires on its trigger (recommending a restaurant,
phoning the user) even when the task does not resemble the sentence, so each one carries an
explicit trigger instead of relying on similarity at recall.
"""

from __future__ import annotations

import re

from beliefs.confidence import STATED_CONFIDENCE
from beliefs.records import MemoryType, RecallSemantics
from reading.domains import domains_of
from reading.extract.finding import Finding, Subject

_NEGATION = (
    r"(?:never|don'?t|don’t|do not|dont|please don'?t|please do not|please never|stop|quit|no more|"
    r"i (?:don'?t|do not) want (?:you )?to|i'?d rather you didn'?t|avoid)"
)
_CONSTRAINT = re.compile(
    rf"(?i:^(?:(?:and|also|oh|and also|ok|okay|please|but|seriously|(?:can|could|would|will) you)[,\s]+)*"
    rf"(?:{_NEGATION}|not)\s+(?:ever\s+)?(?:again\s+)?)"
    r"(?P<verb>(?i:recommend(?:ing)?|suggest(?:ing)?|book(?:ing)?|call(?:ing)?|phon(?:e|ing)|ring(?:ing)?|email(?:ing)?|"
    r"e-mail(?:ing)?|text(?:ing)?|messag(?:e|ing)|contact(?:ing)?|dm(?:ing)?|ping(?:ing)?|schedul(?:e|ing)|"
    r"send(?:ing)?|us(?:e|ing)|mention(?:ing)?|remind(?:ing)?|show(?:ing)?|auto-?merg(?:e|ing)|merg(?:e|ing)|"
    r"push(?:ing)?|deploy(?:ing)?|add(?:ing)?|includ(?:e|ing)|order(?:ing)?|play(?:ing)?|bring(?:ing)? up|"
    r"ask(?:ing)?|share|sharing|post(?:ing)?|sign(?:ing)? me up|invit(?:e|ing)|put|putting))\b"
    r"(?P<rest>[^.!?]*)"
)
_CONTACT_VERBS = {
    "call": "phone", "phon": "phone", "ring": "phone", "email": "email", "e-mail": "email", "text": "sms",
    "messag": "message", "dm": "message", "ping": "message", "contact": None,
}  # fmt: skip
_CHANNEL = re.compile(
    r"(?i:\b(?P<phone>phone|cell|mobile|landline)\b|\b(?P<email>e-?mail)\b|\b(?P<sms>sms|text)\b|\b(?P<message>slack|dm|whatsapp|teams)\b)"
)
_DOMAINS = (
    (
        "restaurant",
        re.compile(
            r"(?i:\b(?:restaurants?|dinner|lunch|brunch|breakfast|eat(?:ing)?|food|cafe|café|bistro|diner|bar|pub|sushi|pizza|takeout|place to eat)\b)"
        ),
    ),
    ("hotel", re.compile(r"(?i:\b(?:hotels?|motels?|hostels?|airbnb|accommodation|stay)\b)")),
    ("flight", re.compile(r"(?i:\b(?:flights?|airlines?|fly|flying|airport)\b)")),
    ("movie", re.compile(r"(?i:\b(?:movies?|films?|cinema|shows?|series)\b)")),
    ("book", re.compile(r"(?i:\b(?:books?|novels?|authors?)\b)")),
    ("music", re.compile(r"(?i:\b(?:songs?|music|bands?|albums?|artists?|playlists?)\b)")),
    ("recipe", re.compile(r"(?i:\b(?:recipes?|dishes?|cook(?:ing)?)\b)")),
    ("meeting", re.compile(r"(?i:\b(?:meetings?|calls? before|calls? after|standups?)\b)")),
)
_REST_NOISE = re.compile(r"(?i:\b(?:me|again|ever|anymore|any more|please|to me|for me|either)\b)|\s{2,}")
_BAD_EXPERIENCE = re.compile(
    r"(?i:\b(?:disaster|terrible|awful|horrible|bad|hated|worst|gross|rude|nightmare|sick)\b)"
)


def _verb_stem(verb: str) -> str:
    verb = verb.lower()
    for stem in ("recommend", "suggest", "book", "call", "phon", "ring", "email", "e-mail", "text", "messag", "contact",
                 "dm", "ping", "schedul", "send", "us", "mention", "remind", "show", "auto-merg", "automerg", "merg",
                 "push", "deploy", "add", "includ", "order", "play", "bring", "ask", "shar", "post", "sign", "invit", "put"):  # fmt: skip
        if verb.startswith(stem):
            return stem
    return verb


_ACTION_NAMES = {
    "recommend": "recommend", "suggest": "recommend", "schedul": "schedule", "us": "use", "merg": "merge",
    "auto-merg": "auto-merge", "automerg": "auto-merge", "includ": "include", "shar": "share", "invit": "invite",
    "bring": "bring up", "sign": "sign up", "phon": "contact", "ring": "contact",
}  # fmt: skip


def _object_of(rest: str) -> str | None:
    head = re.split(r"[,;:]|\s+(?:because|since|as|that was|it was|after|when)\b", rest, maxsplit=1)[0]
    words = _REST_NOISE.sub(" ", head).strip(" .,'\"").split()
    return " ".join(words) if 0 < len(words) <= 8 else None


#: Broad domains a sentence may name when no specific one matches, most specific first.
_BROAD = ("food", "medication", "travel", "activities", "finances", "health")


def _broad_domain(sentence: str) -> str | None:
    """A broad domain from the sentence's words ("never suggest anything with peanuts for dinner" → food)."""
    found = domains_of(sentence)
    return next((name for name in _BROAD if name in found), None)


def constraint_findings(sentence: str, subject: Subject) -> list[Finding]:
    """The constraint a "never / don't / stop" sentence addressed to the assistant states."""
    match = _CONSTRAINT.search(sentence.strip())
    if not match:
        return []
    stem = _verb_stem(match.group("verb"))
    rest = match.group("rest") or ""
    obj = _object_of(rest)
    if stem in _CONTACT_VERBS:
        channel = _CONTACT_VERBS[stem]
        found = _CHANNEL.search(rest)
        if found:
            channel = found.lastgroup
        trigger = {"action": "contact"}
        if channel:
            trigger["channel"] = channel
        how = f" by {channel}" if channel and channel != "message" else (" by message" if channel else "")
        text = f"Do not contact {subject.name}{how}."
        value = f"contact{how}"
        topic = "personal"
    else:
        action = _ACTION_NAMES.get(stem, stem)
        trigger = {"action": action}
        # the domain comes from what the sentence forbids, not from its verb ("book me on Ryanair" is no book)
        said = sentence.strip()
        unverbed = said[: match.start("verb")] + " " + said[match.end("verb") :]
        domain = next((name for name, pattern in _DOMAINS if pattern.search(unverbed)), None) or _broad_domain(unverbed)
        if domain:
            trigger["domain"] = domain
        elif obj:
            trigger["object"] = obj
        target = re.sub(r"(?i:\byour\b)", "its", re.sub(r"(?i:\bmy\b)", "their", obj)) if obj else "it"
        if action == "recommend":
            text = f"Never recommend {target} to {subject.name}."
        else:
            text = f"{subject.name} asked the assistant never to {action} {target}."
        if _BAD_EXPERIENCE.search(sentence):
            text = text[:-1] + f"; {subject.name} had a bad experience."
        value = f"{action} {obj}" if obj else action
        topic = "food" if domain == "restaurant" else None
    return [
        Finding(
            text=text,
            type=MemoryType.PREFERENCE,
            importance=0.9,
            attribute="avoid",
            value=value,
            confidence=STATED_CONFIDENCE,
            recall_semantics=RecallSemantics.CONSTRAINT,
            trigger=trigger,
            topic=topic,
        )
    ]
