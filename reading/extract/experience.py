"""First-person experiences with lasting signal: "I've been painting for 10 years", "My kids love dinosaurs".

Natural chat states most of what matters about a person without a fixed phrase ("I just adopted
a puppy named Max", "I went to a support group yesterday"). These become facts in the speaker's
name, in third person; reactions, feelings of the moment and remarks about the listener do not.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person
from reading.extract.values import clip

_LEAD = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|oh|ah|wow|well|so|haha|lol|honestly|actually|anyway|btw|by the way|also|plus|and|but|"
    r"hey|hi|ok|okay|right|totally|definitely|absolutely|sure|true|for sure|guess what|you know what|"
    r"thanks|thank you|fun fact|funny enough|oh man|oh yeah|yeah,? definitely|ha|aw+|omg|ugh|hmm+|"
    r"yesterday|today|tonight|recently|lately|earlier|last (?:night|week|weekend|month|year|\w+day)|"
    r"this (?:morning|week|weekend|month|year|past \w+)|the other day|a (?:few|couple of) (?:days|weeks) ago|"
    r"(?:two|three|\d+) (?:days|weeks|months|years) ago)\b[\s,!.:-]*)+",
    re.IGNORECASE,
)
_SUBJECT = re.compile(
    r"^(?:I(?:'m|’m|'ve|’ve|'d|’d|'ll|’ll)?\b|My\b|my\b|(?:Me|I)\s+and\s+(?:my\s|[A-Z])|[A-Z][\w'’-]+\s+and\s+I\b)"
)  # the speaker alone, their people, or a plural subject they are part of ("Tom and I", "me and my brother")
_LISTENER = re.compile(r"(?i:\byou\b|\byour\b|\byou'|\byou’|\bu\b|\bya\b)")
_SKIP_AFTER_I = re.compile(
    r"(?i:^I(?:'m|’m| am)?\s+(?:so\s+|really\s+|very\s+|super\s+|just\s+|totally\s+|also\s+|too\s+|pretty\s+|sure\s+)*"
    r"(?:think|thought|hope|guess|know|knew|bet|agree|mean|wish|feel|felt|believe|understand|appreciate|"
    r"wonder|wondered|wondering|remember|see|saw that|hoping|guessing|craving|dying for|in the mood|can'?t wait|cannot wait|can'?t believe|love that|love it|"
    r"like that|like it|agree|get it|got it|hear you|hope so|totally agree|couldn'?t agree|would love|'d love|"
    r"glad|happy|sorry|sure|excited|proud|thrilled|grateful|thankful|stoked|pumped|amazed|impressed|touched|"
    r"honored|honoured|blessed|lucky|curious|jealous|speechless|relieved|okay|ok|fine|good|great|doing|"
    r"tired|exhausted|hungry|sick|bored|busy|swamped|stressed|here|down|in|totally|all|not|with|always up|"
    r"imagine|imagined|never imagined|can|could|would|should|must|may|might|did|do|don't|didn't)\b)"
)
_HIGH_SIGNAL = re.compile(
    r"(?i:\b(?:adopted|married|engaged|divorced|graduated|moved|relocated|started|joined|quit|retired|won|"
    r"lost|passed away|diagnosed|bought a (?:house|home|car|place)|born|pregnant|promoted|hired|fired|"
    r"launched|published|founded|finished|completed|ran a|signed up|enrolled|volunteer|years|since)\b)"
)
_INTENT = re.compile(
    r"(?i:^I(?:'m|’m| am)?\s+(?:(?:also|really|still|just|definitely)\s+)?(?:gonna|going to|planning (?:to|on)|plan to|"
    r"want to|wanna|hope to|hoping to|would like to|'d like to|’d like to|intend to|aim to|am aiming to|"
    r"considering|thinking (?:about|of)|looking (?:into|forward to))\b)"
)
_CLAUSE_CUT = re.compile(
    r"\s+[-–—]\s+|;|\s+but\s+(?=I\b|it\b|that\b)|,?\s+(?:and|but|so|which)\s+(?:it|that|this)\s+(?:was|is|'s|has|felt|made)\b"
    r"|,\s+(?:which|it|that|this|he|she|they|so|but)\b"
)
_IMPLIED_I = re.compile(
    r"(?i:^(?:(?P<am>gonna|going to|planning to|planning on|hoping to|trying to|thinking about)"
    r"|(?P<did>just got|just finished|just started|just bought|just adopted|just moved|just signed|finally got|"
    r"finally finished|recently started|went to|got back)"
    r"|(?P<have>been))\b)"
)
_SLANG = re.compile(r"(?i:\b(?:gonna|wanna|gotta)\b)")
_SLANG_WORDS = {"gonna": "going to", "wanna": "want to", "gotta": "has to"}
_IMPLIED_PREFIX = {"am": "I'm ", "did": "I ", "have": "I've "}
_HEDGED_WILL = re.compile(
    r"(?i:^(?:(?:maybe|perhaps|probably|possibly|hopefully)[,\s]+I(?:'ll|’ll| will)|I\s+(?:might|may)(?:\s+(?:well|even|also))?)\s+)"
)
_LEADING_CLAUSE = re.compile(r",\s+(?=(?:I|My)\b)")
_MIN_WORDS = 3
_PRONOUN = re.compile(
    r"(?i:\b(?:it|them|those|these|one|there)\b|\b(?:this|that)\b"
    r"(?!\s+(?:week|weekend|month|year|morning|afternoon|evening|summer|winter|spring|fall|autumn|time|day)\b))"
)
_SHORT_WITH_PRONOUN = 7
#: "I'd love to.", "I'm hoping so.": the rest of the thought is in the conversation, not the clause.
_ELLIPSIS = re.compile(r"(?i:\bto\s*$)")
_SHORT_ELLIPSIS = re.compile(r"(?i:\b(?:so|too|either|as well|one|ones|that|this|it|them)\s*$)")
#: The verb's object is a bare pronoun ("I got her in 2022", "I use it to relax"): said of something unnamed.
_PRONOUN_OBJECT = re.compile(
    r"(?i:^I(?:'d|’d|'ll|’ll)?\s+(?:(?:\w+ly|also|just|still|even|never|always|would|will|can|could|should)\s+)*"
    r"(?!am\b|was\b|have\b|had\b|been\b)\w+\s+(?:it|her|him|them|(?:this|that|those|these)(?=\s+(?:to|for|in|on|at|with|and|because|so|when)\b|\s*$)))\b"
)
_MAX_WORDS = 28


def _clause(sentence: str) -> str | None:
    lead = _LEAD.match(sentence)
    body = sentence[lead.end() :] if lead else sentence
    implied = _IMPLIED_I.match(body)
    if implied:
        body = _IMPLIED_PREFIX[implied.lastgroup or "did"] + body[:1].lower() + body[1:]
    body = _SLANG.sub(lambda match: _SLANG_WORDS[match.group(0).lower()], body)
    if not _SUBJECT.match(body):
        comma = _LEADING_CLAUSE.search(body, 0, 48)
        if comma is None:
            return None
        body = body[comma.end() :]
    body = _CLAUSE_CUT.split(body, maxsplit=1)[0].strip(" ,.!?:")
    words = body.split()
    if len(words) < _MIN_WORDS:
        return None
    if len(words) > _MAX_WORDS:
        body = " ".join(words[:_MAX_WORDS]).rstrip(",;:")
    return body


def experience_findings(sentence: str, subject: Subject) -> list[Finding]:
    """A third-person fact from a first-person statement with lasting signal, if the sentence is one."""
    hedged = _HEDGED_WILL.match(sentence)
    if hedged:
        goal = clip(sentence[hedged.end() :], 8)
        if not goal:
            return []
        return [
            Finding(text=f"{subject.name} may {goal}.", type=MemoryType.DECISION, importance=0.6,
                    attribute="goal", value=goal, confidence=0.5)
        ]  # fmt: skip
    clause = _clause(sentence)
    if clause is None or _LISTENER.search(clause):
        return []
    intent = _INTENT.match(clause)
    if intent is None and _SKIP_AFTER_I.match(clause):
        return []
    if len(clause.split()) <= _SHORT_WITH_PRONOUN and _PRONOUN.search(clause):
        return []  # "I'll give it a try": meaningless without the conversation
    short = len(clause.split()) <= _SHORT_WITH_PRONOUN
    if _ELLIPSIS.search(clause) or (short and _SHORT_ELLIPSIS.search(clause)) or _PRONOUN_OBJECT.match(clause):
        return []
    text = third_person(clause, subject.name, subject.possessive) + "."
    if intent:
        goal = clip(clause[intent.end() :], 8)
        return [
            Finding(
                text=text,
                type=MemoryType.DECISION,
                importance=0.65,
                attribute="goal",
                value=goal,
                confidence=0.75,
            )
        ]
    importance = 0.55 if _HIGH_SIGNAL.search(clause) else 0.4
    return [Finding(text=text, type=MemoryType.FACT, importance=importance, confidence=0.8)]
