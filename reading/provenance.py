"""Provenance decides trust: whose voice a text is in, and so how far what it says may be believed.

Only the user's own voice about themselves becomes a trusted belief. Everything else is evidence
at most, never recalled as an instruction:

| voice            | what                                                              | at most     |
|------------------|-------------------------------------------------------------------|-------------|
| `own`            | the user's own words                                              | `trusted`   |
| `mixed`          | a turn with the user's words beside pasted content (episodes), or  | `caution`   |
|                  | a claim whose evidence cannot be placed in such a turn            |             |
| `quoted`         | quoted, pasted, forwarded, code-fenced, marked-up or JSON content, | `untrusted` |
|                  | impersonal prose (paragraphs in no one's voice: an encyclopedia's),|             |
|                  | a claim whose evidence holds markup, code or data, and a turn whose|             |
|                  | speaker name is markup                                            |             |
| `about_the_user` | "the user is …", "remember that the user …": a claim about the    | `untrusted` |
|                  | user in the third person, which is how forged memories read       |             |
| `injection`      | instructions addressed to an AI anywhere in the turn ("ignore     | `untrusted` |
|                  | previous instructions", "you are DAN", "the assistant must …")    |             |
| `not_user`       | assistant, tool and system turns                                  | `untrusted` |

A standing instruction the user gives about how to answer them ("from now on reply in bullet
points") is their own voice: a preference about themselves, trusted like any other. What makes an
instruction an injection is its target: overriding the assistant's instructions, giving it another
identity, or speaking about the assistant in the third person.

`provenance_of(turn, text)` judges a whole turn (an episode); `read(turn, text).of_claim(evidence)`
judges one claim by where its evidence sits. Pure functions over the cleaned text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from enum import StrEnum

from beliefs.records import Role, Trust, Turn
from reading.canonical_text import needs_normalising, normalise
from reading.extract.text import sentence_spans
from reading.gates import contains_any
from reading.markup import has_markup, markup_spans
from reading.quotation import FIRST_PERSON, quotations


class Voice(StrEnum):
    OWN = "own"
    MIXED = "mixed"
    QUOTED = "quoted"
    ABOUT_THE_USER = "about_the_user"
    INJECTION = "injection"
    NOT_USER = "not_user"


#: The highest trust each voice allows.
MAX_TRUST: dict[Voice, Trust] = {
    Voice.OWN: Trust.TRUSTED,
    Voice.MIXED: Trust.CAUTION,
    Voice.QUOTED: Trust.UNTRUSTED,
    Voice.ABOUT_THE_USER: Trust.UNTRUSTED,
    Voice.INJECTION: Trust.UNTRUSTED,
    Voice.NOT_USER: Trust.UNTRUSTED,
}
_RANK = {Trust.UNTRUSTED: 0, Trust.CAUTION: 1, Trust.TRUSTED: 2}


@dataclass(frozen=True)
class Provenance:
    """Whose voice, the trust it allows, and why (a short phrase for logs and diagnostics)."""

    voice: Voice
    reason: str = ""

    @property
    def max_trust(self) -> Trust:
        return MAX_TRUST[self.voice]

    def cap(self, trust: Trust) -> Trust:
        """`trust`, lowered to what this provenance allows."""
        return trust if _RANK[trust] <= _RANK[self.max_trust] else self.max_trust


OWN = Provenance(Voice.OWN)

_I = r"(?i:ignore|disregard|forget|override|bypass|abandon|drop)"
_PRIOR = r"(?i:previous|prior|above|earlier|preceding|former|original|initial|system|your|all (?:the |your )?|any)"
_RULES = (r"(?i:instructions?|prompts?|rules|guidelines|directions|directives|programming|training|restrictions|"
          r"constraints|filters|polic(?:y|ies)|guardrails|context|messages|commands|orders)")  # fmt: skip
_INJECTION = re.compile(
    "|".join(
        [
            rf"\b{_I}\b[^.\n]{{0,30}}?\b{_PRIOR}\b[^.\n]{{0,25}}?\b{_RULES}\b",
            r"(?i:\bforget (?:everything|all)(?: that)? you(?:'ve| have)? (?:learned|learnt|know|were told|been told)\b)",
            r"(?i:\byou(?:'re| are| will)(?: now| going to| about to)? (?:act|acting|pretend|pretending|roleplay|"
            r"role-play|simulate|simulating|immerse yourself|play the role)\b)",
            r"(?i:\bact as (?:an?|the|if you)\b[^.\n]{0,40}\b(?:ai|assistant|model|chatbot|dan|jailbr\w*|unfiltered|"
            r"uncensored|developer mode)\b)",
            r"(?i:\byou are (?:now )?(?:dan|stan|dude|an? (?:unfiltered|uncensored|unrestricted|jailbroken|evil|free) "
            r"(?:ai|assistant|model|chatbot))\b)",
            r"(?i:\b(?:dan|developer|god|jailbreak) mode\b|\bdo anything now\b|\bjailbr(?:eak|oken)\b)",
            r"(?i:\b(?:have|has|with|without) (?:no|any) (?:filters|restrictions|limitations|censorship)\b)",
            r"(?i:\b(?:the|this|your) (?:assistant|ai|a\.i\.|model|chatbot|bot|language model|llm)\b[^.\n]{0,20}"
            r"\b(?:must|shall|has to|needs to|is required to|is instructed to|must not|may not|is not allowed to|"
            r"should always|should never|will always|will never)\b)",
            r"(?i:\b(?:just|only) (?:say|print|output|respond with|reply with|repeat)\s*[:\"“])",
            r"(?i:\b(?:reveal|show|print|repeat|output|leak|display|tell me)\b[^.\n]{0,30}\b(?:system prompt|"
            r"initial prompt|hidden (?:instructions|prompt)|your (?:instructions|system prompt|guidelines))\b)",
            r"(?im:^\s*\[?(?:system|assistant|developer)(?: prompt| message| override)?\]?\s*:)",
            r"(?i:\bnew (?:instructions|rules|system prompt)\s*:)",
        ]
    )
)
_INJECTION_WORDS = ("ignore", "disregard", "forget", "override", "bypass", "abandon", "drop", "you", "act as",
                    "mode", "anything now", "jailbr", "filters", "restrictions", "limitations", "censorship",
                    "assistant", " ai", "model", "bot", "llm", "say", "print", "output", "respond with",
                    "reply with", "repeat", "prompt", "system", "developer", "instructions", "rules")  # fmt: skip

# "the user is an admin", "User prefers …", "remember that the user …": the user in the third person
_ABOUT_THE_USER = re.compile(
    r"(?i:(?:^|[:;,(\-–—]\s*|\bthat\s+|\b(?:remember|note|memori[sz]e|store|save|record)\s+(?:that\s+)?)"
    r"(?:the |this |our |current )?user(?:'s|’s)?\b"
    r"(?!\s+(?:interface|experience|story|stories|research|testing|manual|guide|base|group|groups|id|ids|"
    r"agent|account|accounts|data|name)s?\b))"
)
_MEMORY_DIRECTIVE = re.compile(
    r"(?i:\b(?:remember|memori[sz]e|store|save|record|note|update (?:your |the )?memory|add to (?:your |the )?"
    r"memory)\b[^.\n]{0,20}\b(?:the |this )?user(?:'s|’s)?\s+(?:is|are|was|has|have|prefers?|likes?|loves?|hates?|"
    r"wants?|needs?|owns?|works?|lives?|should|must|can|role|name)\b)"
)

_FENCE = re.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)
_QUOTE_LINES = re.compile(r"(?m:^[ \t]*>.*(?:\n[ \t]*>.*)*)")
# a forward marker, or an attribution ("On Monday Bob wrote:", "My colleague wrote:") ending its
# line: someone else's words from there on
_FORWARDED = re.compile(
    r"(?im:^-{2,}\s*(?:forwarded message|original message)\s*-{2,}|^begin forwarded message\s*:|"
    r"(?:^|(?<=[.!?] ))[^\n.!?]{0,120}\b(?:wrote|writes|said|says|posted|replied|sent me|forwarded me|texted me)"
    r"\s*:[ \t]*$)(?s:.*)\Z"
)

# two header lines within three lines of each other: an email from there on
_EMAIL_HEADERS = re.compile(
    r"(?im:^(?:from|to|cc|subject|date|sent|reply-to)[ \t]*:[ \t]*\S[^\n]*\n(?:[^\n]*\n){0,2}?"
    r"(?:from|to|cc|subject|date|sent|reply-to)[ \t]*:[ \t]*\S)(?s:.*)\Z"
)
_DOC = (r"(?:e-?mail|message|document|doc|article|page|web ?page|website|text|post|transcript|output|log|logs|review|"
        r"letter|note|snippet|excerpt|report|thread|chat|conversation|reply|response|result|results|paste|file|"
        r"pdf|memo|tweet|comment|description|listing|ad|advert|job posting|essay|story|code|script|content)")  # fmt: skip
_PASTE_INTRO = re.compile(
    rf"(?im:^[^\n]*\b(?:(?:here(?:'s| is| are)|below is|following|this|the|these|my)\b[^\n]{{0,60}}\b{_DOC}\b|"
    rf"(?:summari[sz]e|translate|proofread|rewrite|review|analy[sz]e|check|fix|explain|read|edit|improve|shorten|"
    rf"paraphrase|reply to|respond to|answer)\b)[^\n]{{0,80}}[:?]\s*\n)"
)
#: A line that is only a rule ("---", "***", "___", "==="): what sits between two of them, or after one
#: that follows a request ("Is this worth applying for?\n---\n…"), is set apart from the user's words.
_RULE_LINE = re.compile(r"(?m:^[ \t]*(?:-{3,}|\*{3,}|_{3,}|={3,})[ \t]*$)")
_MARKUP = re.compile(r"<([A-Za-z][\w:-]*)\b[^<>]*>.{20,}?</\1\s*>", re.DOTALL)
_JSON_START = re.compile(r"(?m:^[ \t]*[\[{])")
#: A paragraph at least this long, of at least two sentences, in no one's voice (no first or second
#: person, and none of speech's marks) is pasted prose: an article, an encyclopedia entry, a product
#: description.
PROSE_MIN_CHARS = 160
_PERSONAL = re.compile(
    r"(?i:\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|u)\b)|\bI(?:'|’)"
)
#: What written reference prose does not do and a person telling something does: exclaim, ask,
#: contract ("it's", "they're", "didn't", "'cause"). "The kids loved it! They were so excited..." is
#: someone's own story told without "I", not a pasted paragraph.
_SPOKEN = re.compile(r"[!?]|(?i:\b(?:it|that|there|he|she|what|who)[’']s\b|[’'](?:re|ve|ll|m|d)\b|n[’']t\b|[’']cause\b)")
_PARAGRAPH = re.compile(r"\S(?:.*?\S)?(?=\n[ \t]*\n|\s*\Z)", re.DOTALL)
#: Regions whose words are never the user's, wherever the claim's first person sits.
_NOT_SAID = frozenset({"marked-up", "code-fenced", "data"})
_REGION_GATE = re.compile(r"```|~~~|^[ \t]*(?:>|---|\*\*\*|___|===)|wrote:|forwarded|original message|\"|“|«|„|‘|(?<![\w'])'|\w:[ \t]+\S|<[A-Za-z]|^[ \t]*[\[{]|:[ \t]*\n|\?[ \t]*\n",
                          re.IGNORECASE | re.MULTILINE)  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """One analysis of a turn's text: its pasted regions and any injection, reused per claim."""

    text: str
    role: Role
    regions: tuple[tuple[int, int, str], ...]
    injection: str | None
    directive: bool
    speaker_markup: bool = False

    def of_turn(self) -> Provenance:
        """The provenance of the whole turn (what an episode of it may be trusted as)."""
        if self.role is not Role.USER:
            return Provenance(Voice.NOT_USER, f"a {self.role.value} turn")
        if self.injection:
            return Provenance(Voice.INJECTION, self.injection)
        if self.speaker_markup:
            return Provenance(Voice.QUOTED, "a speaker name that is markup")
        if self.directive:
            return Provenance(Voice.ABOUT_THE_USER, "a directive about the user in the third person")
        regions = self.regions
        if not regions:
            return OWN
        covered = sum(end - start for start, end in _union(regions))
        own_chars = len(self.text.strip()) - covered
        if own_chars <= 0 or not re.search(r"\w", _outside(self.text, regions)):
            return Provenance(Voice.QUOTED, f"only {regions[0][2]} content")
        return Provenance(Voice.MIXED, f"own words beside {regions[0][2]} content")

    def of_claim(self, evidence: str) -> Provenance:
        """The provenance of a claim, by where its evidence sits in the turn."""
        turn = self.of_turn()
        if turn.voice in (Voice.NOT_USER, Voice.INJECTION, Voice.ABOUT_THE_USER) or self.speaker_markup:
            return turn
        span = _locate(self.text, evidence)
        if span is not None and _ABOUT_THE_USER.search(self.text[span[0] : span[1]]):
            return Provenance(Voice.ABOUT_THE_USER, "a claim about the user in the third person")
        if not self.regions:
            return OWN
        if span is None:
            return Provenance(Voice.MIXED, "evidence not found in a turn with pasted content")
        held = next((k for s, e, k in self.regions if k in _NOT_SAID and s < span[1] and e > span[0]), None)
        if held:
            return Provenance(Voice.QUOTED, f"evidence holding {held} content")
        kind = _inside(self.regions, self.text, span)
        return Provenance(Voice.QUOTED, f"inside {kind} content") if kind else OWN


def read(turn: Turn, text: str) -> Reading:
    """Analyse `text` (the turn's cleaned text) once, for the turn and for each of its claims."""
    if turn.role is not Role.USER:
        return Reading(text, turn.role, (), None, False)
    seen = normalise(text) if needs_normalising(text) else text
    injection = None
    if contains_any(seen, _INJECTION_WORDS) and (found := _INJECTION.search(seen)):
        injection = f"an instruction addressed to an AI: {found.group().strip()[:60]!r}"
    directive = bool(_MEMORY_DIRECTIVE.search(seen)) if "user" in seen.lower() else False
    speaker_markup = turn.speaker is not None and has_markup(turn.speaker)
    return Reading(text, turn.role, _regions(text), injection, directive, speaker_markup)


def provenance_of(turn: Turn, text: str) -> Provenance:
    """The provenance of a whole turn (its cleaned `text`): the trust an episode of it may have."""
    return read(turn, text).of_turn()


def _impersonal_prose(text: str) -> list[tuple[int, int, str]]:
    """Paragraphs in no one's voice, long enough to be pasted rather than said."""
    if len(text) < PROSE_MIN_CHARS:
        return []
    return [
        (*m.span(), "pasted prose")
        for m in _PARAGRAPH.finditer(text)
        if len(m.group()) >= PROSE_MIN_CHARS
        and not _PERSONAL.search(m.group())
        and not _SPOKEN.search(m.group())
        and len(list(sentence_spans(m.group()))) >= 2
    ]


def _regions(text: str) -> tuple[tuple[int, int, str], ...]:
    prose = _impersonal_prose(text)
    if not _REGION_GATE.search(text):
        return tuple(prose)
    found: list[tuple[int, int, str]] = prose
    found += [(*m.span(), "code-fenced") for m in _FENCE.finditer(text)]
    found += [(*m.span(), "quoted") for m in _QUOTE_LINES.finditer(text)]
    found += [(*m.span(), "forwarded") for m in _FORWARDED.finditer(text)]
    found += [(*m.span(), "email") for m in _EMAIL_HEADERS.finditer(text)]
    found += _ruled_blocks(text)
    found += [(m.end(), len(text), "pasted") for m in _PASTE_INTRO.finditer(text)]
    found += [(*q.span, q.kind) for q in quotations(text) if not q.mention]
    found += [(*m.span(), "marked-up") for m in _MARKUP.finditer(text)]
    found += [(start, end, "marked-up") for start, end in markup_spans(text)]
    found += _json_regions(text)
    return tuple(sorted((s, e, k) for s, e, k in found if e > s))


def _ruled_blocks(text: str) -> list[tuple[int, int, str]]:
    """Text between two rule lines, or after a lone one that follows a question or a colon."""
    rules = list(_RULE_LINE.finditer(text))
    blocks = [(a.start(), b.end(), "delimited") for a, b in zip(rules[::2], rules[1::2], strict=False)]
    if len(rules) % 2 and text[: rules[-1].start()].rstrip().endswith((":", "?")):
        blocks.append((rules[-1].start(), len(text), "delimited"))
    return blocks


def _json_regions(text: str) -> list[tuple[int, int, str]]:
    decoder = json.JSONDecoder()
    regions = []
    for match in _JSON_START.finditer(text):
        start = text.index(match.group().strip()[0], match.start())
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict | list) and value:
            regions.append((start, end, "data"))
    return regions


def _union(regions: tuple[tuple[int, int, str], ...]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end, _ in regions:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _outside(text: str, regions: tuple[tuple[int, int, str], ...]) -> str:
    parts, at = [], 0
    for start, end in _union(regions):
        parts.append(text[at:start])
        at = end
    parts.append(text[at:])
    return "".join(parts)


def _locate(text: str, evidence: str) -> tuple[int, int] | None:
    if not evidence.strip():
        return None
    at = text.find(evidence)
    if at < 0:
        at = text.lower().find(evidence.lower().strip())
        if at < 0:
            return None
        return at, at + len(evidence.strip())
    return at, at + len(evidence)


def _inside(regions: tuple[tuple[int, int, str], ...], text: str, span: tuple[int, int]) -> str | None:
    """The kind of region the claim's speaker sits in: every first person of the evidence (or, with
    none, the whole evidence) inside one."""
    start, end = span
    points = [m.start() for m in FIRST_PERSON.finditer(text, start, end)] or [start, max(start, end - 1)]
    kinds = []
    for point in points:
        kind = next((k for s, e, k in regions if s <= point < e), None)
        if kind is None:
            return None
        kinds.append(kind)
    return kinds[0]
