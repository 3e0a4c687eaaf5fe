"""Preferences said in free form: "I strictly avoid flights with layovers", "I tend to go for window seats".

The slot rules catch short objects ("I love sushi"); most stated preferences are longer and carry
the detail that makes them useful ("... because the noise keeps me up"). A first-person clause whose
verb is one of preference (liking, wanting, choosing, avoiding) is a `preference`, kept whole in the
third person, whatever its object: the type decides how it is recalled and contradicted.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person

_ADVERBS = (
    r"(?:(?:[a-z]+ly|always|much|very much|just|also|still|tend to|try to|like to|prefer to|make sure to|"
    r"am careful to|'m careful to|’m careful to|will|can|must|have to|need to|'ll|’ll)\s+)*"
)
#: What one consumes, uses or does: the objects of "only ...", "never ...", "can't ...".
_CONSUMING = (
    r"use|eat|wear|buy|purchase|read|listen to|watch|drink|consume|shop|stay|fly|travel|drive|play|cook|order|"
    r"book|choose|pick|go|follow|dine|consider|support|visit|attend|rent|tolerate|touch|accept|take|"
    r"participate in|work with|be around|deal with|handle|bear"
)
#: Feelings about a kind of thing, said with "I am ...": "I'm uncomfortable with crowds", "I'm wary of apps".
_ATTITUDES = (
    r"(?:a (?:huge |big )?fan of|into|drawn to|passionate about|particular about|picky about|keen on|partial to|"
    r"(?:not |only )?interested in|uninterested in|(?:not |un)?comfortable with|afraid of|scared of|terrified of|"
    r"frightened of|wary of|averse to|fascinated by|obsessed with|devoted to|committed to|"
    r"an? (?:strong |big |firm |huge )?(?:advocate|believer|supporter) (?:of|for|in))"
)
_LIKING = (
    r"prefer|like|love|enjoy|adore|favou?r|appreciate|value|want|need|require|choose|pick|seek out|look for|go for|"
    r"opt for|gravitate towards?|lean towards?|stick (?:to|with)|insist on|care (?:a lot )?about|cherish|relish|"
    r"priori[tz]i[sz]e|"
    r"(?:have|'ve|’ve) (?:a|an) (?:[\w-]+\s+){0,2}?(?:preference|aversion|distaste|dislike|love|passion|soft spot|"
    r"weakness|fondness|affinity|taste|appreciation|penchant|liking|thing|phobia|fear|objection|intolerance|"
    r"disdain|bias|stance|distrust|mistrust|hatred|contempt|fascination|interest|enthusiasm|tolerance) "
    r"(?:for|to|towards?|of|about|against|on|in)|"
    r"find(?!\s+out\b)|thrive (?:in|on|with|when|under)|"
    # a conviction about how things ought to be: "I firmly believe that lessons should be free"
    r"believe (?:that )?(?=[^.]*\b(?:should|must|ought to|better|best|most effective|worth)\b)|"
    r"believe in|am (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|"
    r"'m (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|’m (?:strongly |firmly )?(?:against|opposed to|in favou?r of)|"
    r"(?:have|'ve|’ve) no (?:interest|patience|tolerance|time|desire|appetite|love) (?:in|for|to)|"
    r"(?:work|learn|study|sleep|focus|think|concentrate|relax|unwind|function) best|"
    rf"am\s+(?:[a-z]+ly\s+|so\s+|very\s+|not\s+|only\s+)*{_ATTITUDES}|"
    rf"'m\s+(?:[a-z]+ly\s+|so\s+|very\s+|not\s+|only\s+)*{_ATTITUDES}|"
    rf"’m\s+(?:[a-z]+ly\s+|so\s+|very\s+|not\s+|only\s+)*{_ATTITUDES}"
)
_AVOIDING = (
    r"avoid|dislike|hate|detest|loathe|despise|abhor|can'?t stand|cannot stand|can'?t tolerate|cannot tolerate|steer clear of|"
    r"stay away from|shy away from|steer away from|refuse to|distrust|mistrust|limit|cut (?:down|back) on|"
    rf"(?:not|never|cannot|can'?t|won'?t|wouldn'?t|don'?t|do not) (?:{_CONSUMING})|(?:cannot|can'?t) have|"
    r"(?:don'?t|do not) (?:like|enjoy|want|care for|do|listen to|trust)|"
    r"get\s+(?:[a-z]+ly\s+|very\s+|so\s+|really\s+)*(?:uncomfortable|anxious|nervous|claustrophobic|queasy|"
    r"overwhelmed|stressed|seasick|carsick|motion-sick)|"
    r"am not (?:a fan of|into|keen on)|"
    r"'m not (?:a fan of|into|keen on)|’m not (?:a fan of|into|keen on)"
)
#: What one consumes, uses or does, said with "only", "never", "exclusively": a preference by its adverb.
_HABITUAL = (
    rf"(?:only|exclusively|strictly|solely|never|always)\s+(?:{_CONSUMING})|(?:{_CONSUMING})\s+(?:only|exclusively)\b|"
    r"(?<=can )only have|(?<=could )only have"
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
    r"(?:(?:important|essential|a must|non-negotiable|a priority|a dealbreaker|a deal-breaker)\s+(?:to|for)\s+me|"
    r"(?P<mine>(?:always\s+)?my\s+(?:[\w#-]+\s+){0,2}?(?:priority|priorities|requirement|must-have|dealbreaker|deal-breaker)))\b)"
)
#: "Loud bars don't interest me", "Slow travel appeals to me": the thing is the subject.
_APPEALS = re.compile(
    r"(?i:^(?P<what>[\w'’ ,-]{3,50}?)\s+(?P<neg>(?:do not|does not|don'?t|doesn'?t|never)\s+)?(?:really\s+)?"
    r"(?:interests?|appeals? to|excites?|suits?)\s+me\b)"
)
_EMPHASIS = re.compile(
    r"(?i:\b(?:always|never|strictly|only|must|absolutely|really|strongly|can'?t stand|hate|severe)\b)"
)
#: Objects that make the clause a reaction to the conversation, not a standing preference.
_REACTION = re.compile(
    r"(?i:^\s*(?:it|that|this|those|these|them|you|your|yours|what you|how you|the idea(?!\s+of\b)|seeing|hearing|to hear|"
    r"to see|to know|to go|to try|to chat|to talk|so much|a lot|too)\b)"
)
_MIN_REST_WORDS = 1
#: A state of this moment, not a standing preference ("I'm tired today and I need a coffee").
_NOW = re.compile(
    r"(?i:\b(?:today|tonight|right now|at the moment|this (?:morning|afternoon|evening)|just now)\b)"
)
#: An object that points at the conversation ("this recipe", "it"); "them" may point back in the sentence.
_POINTING = re.compile(r"(?i:^\s*(?:it|this|that|these|those|you|your)\b)")
_LISTENER = re.compile(r"(?i:\b(?:you|your|yours|u)\b)")


def stance_importance(clause: str) -> float:
    """How much a stated preference matters: more when it is said with emphasis ("never", "strictly")."""
    return 0.85 if _EMPHASIS.search(clause) else 0.75


def of_the_moment(text: str) -> bool:
    """Whether the text is about this moment ("today", "right now"), not a standing state."""
    return bool(_NOW.search(text))


def states_preference(clause: str) -> bool:
    """Whether a first-person clause is led by a verb of liking, wanting, choosing or avoiding.

    Looser than `free_preference_findings`: its object may point back into the sentence
    ("I'm allergic to cats and can't be around them"), so it is not judged on its own."""
    body = clause.strip().rstrip(".!")
    match = _PREFERENCE.match(body)
    if match is None:
        return bool(_MATTERS.match(body))
    rest = match.group("rest")
    verb = match.group("verb").lower()
    if re.match(r"(?i:\s*to\b)", rest) and (match.group("would") or verb in {"need", "want", "require"}):
        return False  # a wish or a task ("I need to leave"); "I need to avoid X" reads its own verb
    if _NOW.search(body) or _POINTING.match(rest):
        return False  # about this moment or about something in the conversation ("I love this recipe")
    return len(rest.split()) >= _MIN_REST_WORDS and not _LISTENER.search(rest)


def free_preference_findings(clause: str, subject: Subject) -> list[Finding]:
    """A preference stated as a whole clause, when its verb is one of liking or avoiding."""
    body = clause.strip().rstrip(".!")
    thing = _MY_THING.match(body) or _APPEALS.match(body)
    if thing and not _LISTENER.search(thing.group("what")):
        what = thing.group("what").strip()
        verb = "does not like" if thing.group("neg") else "likes"
        return [Finding(text=f"{subject.name} {verb} {what[:1].lower() + what[1:]}.", type=MemoryType.PREFERENCE,
                        importance=0.7)]  # fmt: skip
    matters = _MATTERS.match(body)
    if matters:
        text = f"{matters.group('what').strip()[:1].upper()}{matters.group('what').strip()[1:]} matters to {subject.name}."
        if matters.group("mine"):  # "X is my top priority when ...": the whole clause keeps when it applies
            text = re.sub(r"(?i:\bmy\b)", subject.possessive, body, count=1) + "."
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
    return [Finding(text=text, type=MemoryType.PREFERENCE, importance=stance_importance(body))]
