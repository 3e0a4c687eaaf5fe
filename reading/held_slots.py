"""Which slot a statement gives a value of: the organisation the user works for, a named place (pure).

Read from the structure of the sentence, not from its subject words: a named organisation (capitalised
words) after a preposition of membership, governed by work ("work in QA at X", "employed by X"), by a
role the speaker holds ("I'm a paralegal at X", "User is a project manager at X"), by a start ("joined
X", "onboarding at X", "first week at X", "poached by X", "offer from X"), by "I'm with X now", by the
employer taking the user on or paying them ("X hired me", "X pays my wages"), or by a contract or
offer from it. What the user habitually does for a named organisation ("I drive vans for X") or at one
("I teach at Y"), and time spent at one ("three weeks at Z now"), is an activity of the same family.
A work status (self-employed, out of work: `reading.work_status`) is a value of the employer slot too;
a job said as an addition ("I also tutor for X") holds none. Two statements that give the slot
different values speak of one subject even when they share no word: "First week at Pinecrest
Veterinary done!" after "I'm a vet nurse at Greenpaw Clinic".

A *place* is a named location the user's own thing is at ("my office is in the Westgate building",
"I live in Phoenix") or is moved to ("the company relocated us to the Canal Street campus"). Many
things have places, so another place is a subject only where the two also speak alike (the caller's
cosine floor) and never more than a possible link. A street address is a place too, where the sentence
says in the first person that it is the user's home ("my address is ...", "that's where I live").
"""

from __future__ import annotations

import re

from reading.extract.text import sentence_spans
from reading.work_status import additive, statuses

EMPLOYER = "employer"
PLACE = "place"
#: What the user does at a named place, by its verb: ("activity:teach", "Westbury High").
ACTIVITY = "activity"
#: The title the user holds at a named organisation ("I'm the ward manager at X"): a new title there,
#: a promotion, replaces the old one while the employer stays ("role:<organisation>", "ward manager").
ROLE = "role"

_NAME = r"(?P<name>(?:[A-Z][\w'’.-]*|&)(?:\s+(?:(?!I\b)[A-Z][\w'’.-]*|&|of|and)(?=\s+(?!I\b)[A-Z&]|\b))*(?:\s+(?!I\b)[A-Z][\w'’.-]*)?)"
_SELF = r"(?:I(?:'m|’m| am| was|'ve been|’ve been| have been)|User (?:is|was|has been))"
#: A relation to a named place that is no job held there: "I'm a member at X", "a patient at Y".
_NOT_A_JOB = (
    r"(?i:(?:\w+\s+)?(?:member|regular|customer|client|patient|guest|visitor|volunteer|fan|subscriber|resident|tenant|"
    r"season[- ]ticket holder)s?\b)"
)
_EMPLOYER_PATTERNS = (
    # work governs it: "work in QA at X", "working for X", "employed by X", "a job at X"
    re.compile(
        rf"\b(?i:work(?:s|ed|ing)?|employed|job|role|position|post|internship|interning|contract(?:ed|ing)?)\b"
        rf"[^.!?;]{{0,30}}?\b(?i:at|for|with|by)\s+(?:the\s+)?{_NAME}"
    ),
    # a role the speaker holds there: "I'm a paralegal at X", "User is a project manager at X"
    re.compile(
        rf"\b{_SELF}\s+(?:(?i:now|currently|still|officially)\s+)?(?i:an?|the)\s+(?!{_NOT_A_JOB})[a-zA-Z][\w\s-]{{0,30}}?\s+(?i:at|for|with)\s+(?:the\s+)?{_NAME}"
    ),
    # a role said without an article, at a named place: "I'm head of sales at X" (not "I'm staying at X")
    re.compile(rf"\b{_SELF}\s+(?:(?i:now|currently|still|officially)\s+)?(?![\w-]*(?:ing|ed)\b|(?:done|through|gone|out|off)\b|(?:(?i:an?|the)\s+)?{_NOT_A_JOB})[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,3}}\s+at\s+(?:the\s+)?{_NAME}"),
    # a start there: "joined X", "onboarding at X", "first week at X", "poached by X", "an offer from X"
    re.compile(
        rf"\b(?i:joined|joining|onboard(?:ed|ing)?\s+(?:at|with)|hired\s+by|poached\s+by|headhunted\s+by|recruited\s+by|"
        rf"offer\s+from|first\s+(?:day|week|month|shift)\s+(?:at|with)|(?:day|week|month)\s+(?:\d+|one|two|three|four|five|six)\s+(?:at|with)|(?:made|making)\s+the\s+(?:jump|move|switch|leap)\s+(?:over\s+)?to|signed\s+(?:on\s+)?with|start(?:s|ed|ing)?\s+(?:at|with)|land(?:ed|ing)?\s+(?:a|the|my)\s+(?:\w+\s+)?(?:job|role|spot|place|position|post|gig|contract)\s+(?:at|with)|"
        rf"ended\s+up\s+(?:at|with)|in-house\s+(?:at|with))\s+"
        rf"(?:the\s+)?{_NAME}"
    ),
    # the employer takes the user on or pays them: "X took me on full-time", "X hired me", "X pays my wages"
    # (an offer alone is not a job: "X offered me the role and I turned it down")
    re.compile(
        r"(?P<name>(?!I\b)[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|&))*(?:\s+[A-Z][\w'’.-]*)?)\s+(?:(?i:just|finally|have|has|'ve|’ve)\s+)?"
        r"(?i:took\s+me\s+(?:on|back)|hired\s+me|brought\s+me\s+on|signed\s+me|recruited\s+me|employs\s+me|snapped\s+me\s+up|"
        r"gave\s+me\s+(?:a|the)\s+(?:\w+\s+)?(?:job|role|position|post|contract)|pays?\s+(?:me|my\s+(?:wages|salary)))\b"
    ),
    # a contract or an offer of work with it: "signed my contract with X", "the offer letter from X"
    re.compile(rf"\b(?i:contract|offer(?:\s+letter)?)\s+(?i:with|from)\s+(?:the\s+)?{_NAME}"),
    # joining a team there: "to join the community nursing team at X"
    re.compile(rf"\b(?i:join(?:ed|ing)?)\s+(?i:the|a|an|their)\s+[a-z][\w\s-]{{0,30}}?\s+(?i:at|with)\s+(?:the\s+)?{_NAME}"),
    # the user's own relation of work there: "my new boss at X", "my probation at X", "my colleagues at X"
    re.compile(
        rf"\b(?i:my|our)\s+(?:(?i:new|current|first)\s+)?(?i:boss|line manager|manager|probation|probation period|colleagues|"
        rf"co-?workers|induction|payslips?|pay\s+cheques?|paychecks?)\s+(?i:at|with|from)\s+(?:the\s+)?{_NAME}"
    ),
    # the employer named as such: "my employer is X", "X is where I work"
    re.compile(rf"\b(?i:my|our)\s+(?i:employer|workplace|company|firm)\s+(?i:is|'s|’s)\s+(?:the\s+)?{_NAME}"),
    re.compile(r"(?P<name>(?!I\b)[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|&))*)\s+(?i:is|'s|’s)\s+(?i:where|who)\s+I\s+(?i:work|am employed)\b"),
    # "I'm with X now", "I'm at X these days": a present affiliation
    re.compile(rf"\b(?:I(?:'m|’m| am)|User is)\s+(?i:now\s+)?(?:[a-z]+ing\s+)?(?i:with|at|for)\s+(?:the\s+)?{_NAME}(?=[^.!?]{{0,20}}?\b(?i:now|these days|nowadays)\b)"),
)

#: A title said with its article before a preposition of membership: "I'm a staff nurse on the
#: renal ward at X", "User is the head chef at Y".
_TITLE = re.compile(
    rf"\b{_SELF}\s+(?:(?i:now|currently|still|officially)\s+)?(?i:an?|the)\s+(?!{_NOT_A_JOB})(?P<title>[a-zA-Z][\w\s-]{{0,40}}?)"
    rf"\s+(?i:at|for|with)\s+(?:the\s+)?{_NAME}"
)

_PLACE_PATTERNS = (
    # where it is: "my office is in X", "I live in X", "we're based at X"
    re.compile(
        rf"(?:\b(?i:is|are|was|were)|'s|’s|'re|’re|'m|’m)\s+(?i:(?:now\s+)?(?:based|located)\s+)?(?i:in|at)\s+(?:the\s+)?{_NAME}"
    ),
    re.compile(rf"\b(?i:live[sd]?|living|based|located)\s+(?i:in|at)\s+(?:the\s+)?{_NAME}"),
    # where it went: "relocated us to X", "we moved to X", "transferred me to X"
    re.compile(rf"\b(?i:moved|moving|relocat(?:ed|ing)|transferr?(?:ed|ing))\b[^.!?;]{{0,25}}?\b(?i:to|into)\s+(?:the\s+)?{_NAME}"),
)
#: A street address ("61 Quarry Road", "8 Rowan Court"), the user's home when a sentence says so in the
#: first person: "my address is ...", "... that's where I live", "we live at ...", "I moved to ...".
_STREET = re.compile(r"(?<![\w.,])(?P<name>\d+[A-Za-z]?\s+[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,3})")
_HOME = re.compile(
    r"(?i:\b(?:my|our)\s+(?:home\s+|new\s+|current\s+)?address\b|\b(?:where|now)\s+(?:I|we)\s+live\b|"
    r"\b(?:I|we)\s+(?:now\s+)?live\s+at\b|\b(?:I|we)(?:'ve|’ve| have)?\s+moved\s+(?:in)?to\b)|\bUser(?:'s|’s) (?:home )?address\b"
)
#: Time the user has spent at a named organisation: "three weeks at X now", "I've been at X since May".
#: It may be a stay at a place as well: an activity (`be`), which only a possible link follows.
_TIME_AT = (
    re.compile(
        rf"\b(?i:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|few|couple\s+of)\s+(?i:days?|weeks?|months?|years?)"
        rf"\s+(?i:in\s+)?(?i:at|with)\s+(?:the\s+)?{_NAME}(?=[^.!?]{{0,30}}?\b(?i:now|already|so far|and counting)\b)"
    ),
    re.compile(
        rf"\b(?i:been)\s+(?i:at|with)\s+(?:the\s+)?{_NAME}\s+(?i:for|since|over|almost|nearly|(?:[\w-]+\s+){{1,2}}(?:days?|weeks?|months?|years?))\b"
    ),
)
#: What the user habitually does for a named organisation, in the present: "I drive vans for X",
#: "these days I write for the Y", "User does the accounts for Z" (not "I'm writing a card for Sam").
_FOR_PATTERN = re.compile(
    rf"\b(?:I|User)\s+(?:(?i:now|currently|still|usually|mostly|also|just)\s+)?"
    rf"(?P<verb>[a-z]{{3,}}|do)\b[^.!?;,]{{0,25}}?\s+for\s+(?:the\s+)?{_NAME}"
)
#: Verbs whose "for" says a purpose, a beneficiary or a wait, not work done: "I'm saving for Japan".
_NOT_WORK_FOR = frozenset(
    "look looks wait waits pay pays vote votes apply applies sign signs ask asks thank thanks care cares fall falls go goes "
    "head heads leave leaves search searches shop shops buy buys book books cook cooks bake bakes make makes get gets root "
    "roots cheer cheers pray prays hope hopes wish wishes long longs qualify register subscribe call calls text texts "
    "email emails stand stands account accounts opt opts settle settles fight fights campaign save saves plan plans "
    "prepare prepares train trains study studies cover covers sit sits come comes feel feels take takes bring brings "
    "send sends order orders arrange arranges reserve reserves babysit babysits volunteer volunteers donate donates "
    "fundraise fundraises".split()
)
#: A job sought or refused, not held: "I applied for a job at X", "an interview for a role at Y".
_SOUGHT = re.compile(
    r"(?i:\b(?:appl(?:y|ied|ying)|application|interview(?:ed|ing|s)?|shortlisted|looking\s+(?:for|at)|"
    r"turn(?:ed|ing)?\s+down|declin(?:ed|ing)|reject(?:ed|ing))\b)"
)


def _sought(before: str) -> bool:
    """The user's clause before a name seeks or refuses the job there ("I applied for a job at X"),
    read from the user's own verb on: "after months of interviews I ended up at X" holds the job."""
    clause = _clause(before)
    mine = list(_FIRST_PERSON.finditer(clause))
    return _SOUGHT.search(clause[mine[-1].start() :] if mine else clause) is not None


#: What the user habitually does at a named place: "I teach maths at X", "I've been teaching at Y".
_ACTIVITY_PATTERN = re.compile(
    rf"\b(?:I(?:'ve been|’ve been| have been|'m|’m| am)?|User(?: is| has been)?)\s+(?:(?i:now|currently|still|usually|mostly|also)\s+)?"
    rf"(?P<verb>[a-z]{{3,}}|do)\b[^.!?;,]{{0,25}}?\s+at\s+(?:the\s+)?{_NAME}"
)
#: Verbs that say no activity of their own (auxiliaries, copulas, work: that is the employer slot).
_NO_ACTIVITY = frozenset(
    "was were been have has had does did will would can could should also just not never always really going "
    "get got the and but work works worked working done gone".split()
)


def _verb_stem(verb: str) -> str:
    for ending in ("ing", "es", "ed", "s"):
        if verb.endswith(ending) and len(verb) - len(ending) >= 3:
            return verb[: -len(ending)]
    return verb


#: Someone else is the subject of the clause: "my sister works at X", "Tom's firm hired Dana from X".
#: A possessive is someone else's thing ("Tom's firm") unless a function word follows: then the "'s" ends
#: a name ("I left St Bride's to join ...").
_OTHER = re.compile(
    r"(?i:\b(?:he|she|they|it|we|you|his|her|their|its|our|your|my\s+(?!new\b|current\b|first\b)\w+|"
    r"\w+'s(?!\s+(?:to|and|or|in|at|for|from|on|with|by|is|was|then|so|but)\b))\b)"
)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|User)\b")


#: Words that may open a clause without being its subject: "Got poached by X", "Just joined X".
_OPENERS = frozenset("just got have has had been finally recently officially so also now then today yesterday well oh my new current a an the accepted took went".split())


_OTHER_PLACE = re.compile(r"(?i:\b(?:he|she|they|his|her|their|your|you|(?!user)\w+'s)\b)")
_OWN_THING = re.compile(r"(?i:\b(?:my|our|we|us|me|I|I'm|I’m|User|User's|we're|we’re)\b)")
_MOVER = re.compile(r"\b(?:[Ww]e|us|me|I|I'm|I’m|User|[Ww]e're|[Ww]e’re)\b(?!\s+\w+\s+(?:lives?|moved))")


def _clause(before: str) -> str:
    """The clause `before` ends in: a subordinate clause is a clause of its own."""
    return re.split(r"[.!?;:,]\s|\b(?:and|but|while|whereas|since|because|after|when|so)\b", before)[-1]


#: A verb opening a clause without a subject, diary style ("Signed my contract with X"): a past tense.
_PAST_OPENER = re.compile(r"(?i)^(?:[a-z]+ed|got|took|went|made|had|began|won|landed|found|struck)$")


def _own(before: str, places: re.Pattern[str] | None = None) -> bool:
    """The user's own: the clause before the slot says "I" (or "User") and no one else after it, or it
    has no subject at all ("Got poached by X", "First week at X"). A subordinate clause is a clause of
    its own: in "parking's awful since we moved to X" the mover is "we", not the parking."""
    clause = _clause(before)
    if places is not None:  # my office, our flat, the company relocated us: the user's own, no one else's
        return bool(places.search(clause)) and not _OTHER_PLACE.search(clause)
    mine = list(_FIRST_PERSON.finditer(clause))
    if mine:
        return not _OTHER.search(clause[mine[-1].end() :])
    words = clause.split()
    if words and _PAST_OPENER.match(words[0]) and words[0].casefold() not in _OPENERS:
        words = words[1:]  # "Signed my contract with X": the speaker's own, unsaid
        return all(word.casefold() in ("my", "our", "the", "a", "an", "new", "first") for word in words)
    return all(word.casefold() in _OPENERS or word.casefold().endswith("ly") for word in words)


def _said_by_user(text: str, match: re.Match[str]) -> bool:
    """The match is the user's own: its clause is (`_own`), or the match opens with the user as its subject
    after words that are no subject ("Since March I'm the ward manager at X")."""
    return _own(text[: match.start()]) or _FIRST_PERSON.match(match.group(0)) is not None


#: A name of a time, not of a place one works or does something at: "I'm home at Christmas".
_TIME_NAME = re.compile(
    r"(?i)^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|christmas|easter|new year|weekends?|night|noon)\b"
)


def held_slots(text: str) -> list[tuple[str, str]]:
    """(slot, value as said) the text gives: ("employer", "Hartwell Legal") for "I'm with Hartwell Legal now".

    A job said as an addition to another ("I also tutor for X", a side gig) holds no slot: it replaces
    nothing. A work status ("went freelance", "between jobs") is a value of the employer slot."""
    found: list[tuple[str, str]] = []
    for pattern in _EMPLOYER_PATTERNS:
        for match in pattern.finditer(text):
            if not _said_by_user(text, match) or _TIME_NAME.match(match.group("name")) or additive(text, match.start(), match.end()):
                continue
            if _sought(text[: match.start("name")]):
                continue  # "I applied for a job at X", "turned down a role at Y": not where the user works
            if (EMPLOYER, match.group("name")) not in found:
                found.append((EMPLOYER, match.group("name")))
    for match in _TITLE.finditer(text):  # the title held there: a promotion replaces it, the employer stays
        organisation = " ".join(re.findall(r"[^\W_]+", match.group("name").casefold())[:2])
        if _said_by_user(text, match) and not additive(text, match.start(), match.end()):
            found.append((f"{ROLE}:{organisation}", match.group("title")))
    for status, at in statuses(text):
        if not _OTHER.search(_clause(text[:at])) and not additive(text, at, at + 1):
            found.append((EMPLOYER, status))
    activities = [(m, m.group("verb")) for m in (*_ACTIVITY_PATTERN.finditer(text), *_FOR_PATTERN.finditer(text))]
    activities += [(m, "be") for pattern in _TIME_AT for m in pattern.finditer(text)]
    for match, verb in activities:
        verb = "do" if verb == "does" and match.re is _FOR_PATTERN else verb
        if verb in _NO_ACTIVITY or _TIME_NAME.match(match.group("name")) or additive(text, match.start(), match.end()):
            continue
        if (verb in _NOT_WORK_FOR or verb.endswith("ed")) and match.re is _FOR_PATTERN:
            continue
        if not _own(text[: match.start("verb") if verb != "be" else match.start()]) or _sought(text[: match.start("name")]):
            continue
        slot = (f"{ACTIVITY}:{_verb_stem(verb)}", match.group("name"))
        if slot not in found and (EMPLOYER, match.group("name")) not in found:
            found.append(slot)
    for i, pattern in enumerate(_PLACE_PATTERNS):
        for match in pattern.finditer(text):
            # "my office is in X" is the user's own thing; "lives in X", "moved to X" need the user as subject
            if _own(text[: match.start("name")], places=_OWN_THING if i == 0 else _MOVER) and (PLACE, match.group("name")) not in found:
                found.append((PLACE, match.group("name")))
    for start, end in sentence_spans(text):  # a home address: another one is a possible update
        sentence = text[start:end]
        if _HOME.search(sentence):
            found += [(PLACE, m.group("name")) for m in _STREET.finditer(sentence) if (PLACE, m.group("name")) not in found]
    return found
