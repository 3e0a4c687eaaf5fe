"""Preferences said in free form: "I strictly avoid flights with layovers", "I tend to go for window seats".

The slot rules catch short objects ("I love sushi"); most stated preferences are longer and carry
the detail that makes them useful ("... because the noise keeps me up"). A first-person clause whose
verb is one of preference (liking, wanting, choosing, avoiding) is a `preference`, kept whole in the
third person, whatever its object: the type decides how it is recalled and contradicted.
"""

from __future__ import annotations

import re

from agents.extract.finding import Finding, Subject
from agents.extract.text import third_person
from beliefs.records import MemoryType

_ADVERBS = (
    r"(?:(?:[a-z]+ly|always|much|very much|just|also|still|tend to|try to|like to|prefer to|make sure to|"
    r"am careful to|'m careful to|’m careful to)\s+)*"
)
_LIKING = (
    r"prefer|like|love|enjoy|adore|favou?r|appreciate|value|want|need|choose|pick|seek out|look for|go for|"
    r"opt for|gravitate towards?|lean towards?|stick (?:to|with)|insist on|care (?:a lot )?about|cherish|relish|"
    r"(?:have|'ve|’ve) (?:a|an) (?:[\w-]+\s+){0,2}?(?:preference|aversion|distaste|dislike|love|passion|soft spot|"
    r"weakness|fondness|affinity|taste|appreciation|penchant|liking|thing|phobia|fear|objection|intolerance) "
    r"(?:for|to|towards?|of|about|against)|"
    r"find(?!\s+out\b)|thrive (?:in|on|with|when|under)|"
    r"believe in|am (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|"
    r"'m (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|’m (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|"
    r"(?:have|'ve|’ve) no (?:interest|patience|tolerance|time|desire|appetite|love) (?:in|for|to)|"
    r"(?:work|learn|study|sleep|focus|think|concentrate|relax|unwind|function) best|"
    r"am (?:not )?interested in|'m (?:not )?interested in|’m (?:not )?interested in|"
    r"am\s+(?:[a-z]+ly\s+|so\s+|very\s+)*(?:a (?:huge |big )?fan of|into|drawn to|passionate about|particular about|picky about|keen on|partial to)|"
    r"'m (?:a (?:huge |big )?fan of|into|drawn to|passionate about|particular about|picky about|keen on|partial to)|"
    r"’m (?:a (?:huge |big )?fan of|into|drawn to|passionate about|particular about|picky about|keen on|partial to)"
)
_AVOIDING = (
    r"avoid|dislike|hate|detest|loathe|despise|abhor|can'?t stand|cannot stand|can'?t tolerate|cannot tolerate|steer clear of|"
    r"stay away from|refuse to|never (?:buy|use|eat|drink|wear|watch|read|book|order|choose|fly|stay)|"
    r"(?:don'?t|do not) (?:like|enjoy|want|eat|drink|care for|do|wear|use|watch|read|listen to|buy|consume|play)|"
    r"am not (?:a fan of|into|keen on)|"
    r"'m not (?:a fan of|into|keen on)|’m not (?:a fan of|into|keen on)"
)
#: What one consumes, uses or does, said with "only", "never", "exclusively": a preference by its adverb.
_HABITUAL = (
    r"(?:only|exclusively|strictly|solely|never|always)\s+(?:use|eat|wear|buy|read|listen to|watch|drink|consume|"
    r"shop|stay|fly|travel|drive|play|cook|order|book|choose|pick|go)"
)
_LEAD = (
    r"(?:(?:honestly|personally|generally|basically|also|and|but|so|well|actually|usually|typically|today|tonight|"
    r"right now|for now|these days|lately|at the moment|this (?:week|weekend|month|morning|evening))[,\s]+|"
    r"(?:due to|because of|given|owing to)\s+[^,]{3,80},\s*|as an?\s+[\w -]{2,30},\s*|"
    r"I(?:'m|’m| am) an?\s+[\w -]{2,30},\s*(?:so\s+|and\s+)?)*"
)
_PREFERENCE = re.compile(
    rf"(?i:^{_LEAD}I(?P<would>'d|’d|\s+would)?\s+{_ADVERBS}(?P<verb>{_LIKING}|{_AVOIDING}|{_HABITUAL})\b(?P<rest>.*))"
)
_MY_THING = re.compile(
    r"(?i:^(?P<what>[\w'’ ,-]{3,50}?)\s+(?:is|are)\s+(?P<neg>not\s+|n't\s+)?(?:really\s+|totally\s+)?"
    r"my\s+(?:thing|cup of tea|jam|style|scene|vibe)\b)"
)
_MATTERS = re.compile(
    r"(?i:^(?P<what>[\w'’ ,-]{3,60}?)\s+(?:is|are)\s+(?:really\s+|very\s+|super\s+|extremely\s+)?"
    r"(?:important|essential|a must|non-negotiable|a priority|a dealbreaker|a deal-breaker)\s+(?:to|for)\s+me\b)"
)
_EMPHASIS = re.compile(
    r"(?i:\b(?:always|never|strictly|only|must|absolutely|really|strongly|can'?t stand|hate|severe)\b)"
)
#: Objects that make the clause a reaction to the conversation, not a standing preference.
_REACTION = re.compile(
    r"(?i:^\s*(?:it|that|this|those|these|them|you|your|yours|what you|how you|the idea|seeing|hearing|to hear|"
    r"to see|to know|to go|to try|to chat|to talk|so much|a lot|too)\b)"
)
_MIN_REST_WORDS = 1
_LISTENER = re.compile(r"(?i:\b(?:you|your|yours|u)\b)")


def free_preference_findings(clause: str, subject: Subject) -> list[Finding]:
    """A preference stated as a whole clause, when its verb is one of liking or avoiding."""
    body = clause.strip().rstrip(".!")
    thing = _MY_THING.match(body)
    if thing:
        what = thing.group("what").strip()
        verb = "does not like" if thing.group("neg") else "likes"
        return [Finding(text=f"{subject.name} {verb} {what[:1].lower() + what[1:]}.", type=MemoryType.PREFERENCE,
                        importance=0.7)]  # fmt: skip
    matters = _MATTERS.match(body)
    if matters:
        text = f"{matters.group('what').strip()[:1].upper()}{matters.group('what').strip()[1:]} matters to {subject.name}."
        return [
            Finding(
                text=third_person(text, subject.name, subject.possessive),
                type=MemoryType.PREFERENCE,
                importance=0.75,
            )
        ]
    match = _PREFERENCE.match(body)
    if match is None:
        return []
    rest = match.group("rest")
    if match.group("would") and re.match(r"(?i:\s*to\b)", rest):
        return []  # "I'd like to visit Japan": a wish to do, read as a goal elsewhere
    if _LISTENER.search(rest):
        return []  # about the listener, not a standing preference
    dummy_it = match.group("verb").lower().startswith("find") and rest.lower().startswith(" it ")
    if len(rest.split()) < _MIN_REST_WORDS or (_REACTION.match(rest) and not dummy_it):
        return []
    text = third_person(body[match.start() :], subject.name, subject.possessive).rstrip(" ,") + "."
    importance = 0.85 if _EMPHASIS.search(body) else 0.75
    return [Finding(text=text, type=MemoryType.PREFERENCE, importance=importance)]
