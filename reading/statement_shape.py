"""The shape of a statement: does it correct, change or end something said before? (pure)

Read from the form of the sentence, never from what it is about, so it holds for any subject:

- a *correction* repairs what was said: an apology or admission of error ("sorry", "my mistake",
  "I misspoke", "typo", "I got it wrong", "I mixed it up", "scratch that", "wait, no", "I'd assumed
  X"), a restated intent ("I meant", "let me correct that"), a part confirmed and another corrected
  ("Tuesday, yes, but ..."), or the contrast "X, not Y";
- a *change* says the old value held and no longer does: a verb of change ("switched", "swapped",
  "moved", "relocated", "transferred", "upgraded", "renamed", "rescheduled", "replaced", "traded them
  around"), a decision
  between options ("instead", "ended up", "settled on", "decided against", "went with"), a new start
  ("just joined", "took up", "took over"), an announcement ("change of plan", "update:", "turns out",
  "as of", "from now on"); or, implied only, a present-time contrast ("now", "these days", "my new");
- a *cessation* says it is over: "no longer", "not ... anymore", "stopped", "quit", "cancelled",
  "pulled out", "gave up", "broke up", "let ... go", "fell through", "not ... after all", "forget
  what I said", "done with", "stepped back from", "died", "<x> ended / expired", "gone <x>-free", "<x> is history", "<a place> is shut / closed" (for now, for an event), redundancy, a verb
  putting its object away ("shelved the extension", "knocked the class on the head", "binned off the box"),
  or a withdrawal of one's own words (`reading.withdrawal`: "forget the boat", "I take back what I said").

A sentence's assertion is what it states: a question asked after a statement in one sentence ("my new
boss at X keeps calling, how do I push back?"), a hedge in a clause of its own ("maybe in a few years")
and a clause saying nothing changed ("still 1pm") leave the rest of the sentence asserted.

What it replaces is read from the contrast ("X, not Y", "not Y but X", "instead of Y", "from Y to
X", "swapped Y for X") or from what a cessation names ("cancelled my Economist subscription").
A sentence asked, hedged, hypothetical, quoting someone or echoing the assistant has no shape: only
what the user asserts can make what they said before stale. "still" says nothing changed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from beliefs.statements import Shape, UpdateKind
from reading.extract.framing import Frame, frame_of
from reading.extract.speech_act import is_echo, quotes_someone
from reading.extract.text import sentence_spans
from reading.subject import terms_of, value_terms
from reading.withdrawal import withdrawals

_CORRECTION = re.compile(
    r"(?i:\b(?:sorry(?!\s+(?:to|about|for|that|if|but|you|for))|oops|whoops|correction|typo|my (?:mistake|bad|error)|I misspoke|misspoke|mis(?:typed|spelt|spelled|"
    r"read|remembered|heard|counted|calculated|quoted|dated|named)|brain ?fart|I meant|meant to (?:say|write|type)|I mean\b(?!\s+it)|let me (?:correct|rephrase|fix)|"
    r"to correct|correct(?:ing)? (?:that|myself|what I said)|(?:got|had) (?:it|that|this|(?:his|her|their|the|my)"
    r"(?:\s+\w+){1,2}) (?:wrong|backwards)|was wrong|I was mistaken|mixed (?:it|them|that|those|(?:the|my)(?:\s+\w+){1,2}) up|"
    r"mix-?up|wait,? no|no,? wait|(?<=,\s)yes,? but|scratch that|strike that|I said [^.!?]{1,60}? but|not what I (?:said|meant)|"
    r"I (?:double-)?checked|to be (?:precise|exact|clear)|rather|(?:ignore|disregard) (?:what I said|my last|that)|"
    r"I had (?:it|that|them) (?:down )?as|I(?:'d|’d| had)? (?:wrongly )?assumed|(?:the )?(?:correct|right) (?:\w+ ){0,4}(?:is|was|are)(?=(?-i: \d| [A-Z]))|not actually|actually not)\b)"
)
_CHANGE = re.compile(
    r"(?i:\b(?:change of plans?|plans? (?:have |has )?changed|(?:we|I)(?:'ve| have)? changed|changed (?:to|it|my|our|the)|"
    r"switch(?:ed|ing)?|swap(?:ped|ping)?|trad(?:ed|ing) (?:in|(?:\w+ ){0,2}(?:around|round|over|places))|mov(?:ed|ing) (?:to|up|over|from|on|in|into|back)|"
    r"relocat(?:ed|ing)|transferr?(?:ed|ing)|upgrad(?:ed|ing)|downgrad(?:ed|ing)|replac(?:ed|ing)|renam(?:ed|ing)|"
    r"(?:got|been|was|were) (?:moved|changed|rescheduled|shifted|bumped|swapped)|rebrand(?:ed|ing)|reschedul(?:ed|ing)|postpon(?:ed|ing)|push(?:ed)? (?:back|forward)|brought forward|"
    r"(?:pushed|bumped|shifted)(?: \w+)? (?:to|up)|rebook(?:ed|ing)|reassign(?:ed|ing)|instead|from now on|as of (?:now|today|this|next|last|\w+ \d|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|june|july|august|september|october|november|december)|"
    r"(?:chose|chosen|picked|took|taken|opted|booked|bought|went for|gone for)\b[^.!?;]{0,60}?\bin the end|"
    r"starting (?:(?:this|next) (?:week|month|year|term|season|spring|summer|autumn|fall|winter|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)|today|tomorrow|from|on)|ended up|end up|settled on|decided (?:against|on|to go with)|went with|gone with|"
    r"opted (?:for|against)|turn(?:s|ed) out|got rid of|sold (?:my|our|the)|took up|taken up|took over|"
    r"(?:just|recently) (?:moved|switched)|new (?:job|role|position|address|number|plan)|update:|"
    r"got (?:promoted|poached)|accepted (?:an|the|a) (?:offer|job|position)|after all|(?:down|up) to (?:one|two|a|just|only|\d)|cut (?:down|back)|(?:we|I) (?:now|then) )\b)"
)
_CESSATION = re.compile(
    r"(?i:\b(?:no longer|not any ?more|n't [^.!?,;]{1,50}? any ?more|not [^.!?,;]{1,50}? any ?more|any ?more|"
    r"stopped|quit(?:ting)?|cancel+(?:ed|ing)|called off|pulled out|dropped out|withdr[eaw]w?n?|gave up|given up|"
    r"broke up|split up|let (?:\w+ ){1,2}go|fell through|forget (?:what|that|about what) I said|never ?mind|"
    r"no more|not [^.!?,;]{1,40}? after all|moved out|left (?:my|our|the)|left(?= (?-i:[A-Z]))|parted (?:ways|company)|made (?:me|us) redundant|handed in (?:my|our) notice|(?:gave|given|giving|served|put in|hand(?:ed|ing)? in) (?:in )?(?:my |our )?notice|resigned|made redundant|took (?:voluntary )?redundancy|laid off|"
    r"got rid of|sold (?:my|our|the)|decided against|closed down|shut down|ditch(?:ed|ing)|scrap(?:ped|ping)|"
    r"(?:done|finished) with|stepp(?:ed|ing) (?:back|down|away) from|died|passed away|(?:gone|went|going|been|now|am|I'm) [a-z]+-free|"
    r"(?:days?|weeks?|months?|years?) [a-z]+-free|cut(?= (?-i:[A-Z]))|(?<!'m )(?<!’m )(?<!am )(?<!re )(?<!be )(?<!get )(?<!got )(?<!was )(?<!is )used to|turn(?:ed|ing)? down|declin(?:ed|ing)|"
    r"dropp(?:ed|ing) (?:the|my|our)\b(?!(?:\s+\w+){0,2}\s+off\b)|leaving (?:my|our|the)|"
    r"(?:my|our) (?:last|final) (?:day|week|shift|term|month|season|match|class) (?:at|with)|"
    r"(?:is|are|'s|’s|'re|’re) (?:off|on hold|shelved|on ice|history)(?=\s*(?:[,;.!]|$|for now|indefinitely))|"
    r"(?:is|are|'s|’s) (?:shut|closed)(?=\s*(?:[,;.!]|$|for\b|today|tonight|this week))|"
    r"(?:shelved|mothballed|binned(?: off)?)(?= (?:the|my|our|his|her|their|that|this)\b)|knocked(?=(?: [\w'’-]+){1,4} on the head\b)|"
    r"(?:put|been|are|is|'s|’s) on hold|(?<!n't )(?<!n’t )(?<!not )(?<!never )(?:ended|expired|ran out)(?!\s+(?:up|with)\b))\b)"
)
_IMPLIED = re.compile(r"(?i:\b(?:now|these days|nowadays|currently|this (?:year|season|term|month)|(?:my|our) new)\b)")
#: A new start may replace something (an employer, a gym) or add to it (a club): the rules cannot tell.
_STARTS = re.compile(
    r"(?i:\b(?:(?:just|recently) (?:joined|started|began|signed (?:up|on))|joined|started (?:at|with|as|a new|working)|"
    r"signed (?:up|on)|"
    r"first (?:day|week|month|shift) (?:at|with|as)|onboarding (?:at|with)|hired (?:me|by)|got hired)\b)"
)
#: "my new landlord": a new value of a noun an earlier statement may have given another.
_RENEWED = re.compile(r"(?i:\b(?:my|our|his|her|their)\s+new\s+(?P<head>[a-z][\w-]+(?:\s+[a-z][\w-]+)?))")
#: A cessation said negated ("I won't quit", "not gonna give up") ends nothing.
_NEGATED = re.compile(
    r"(?i:(?:\b(?:won't|wont|will not|not gonna|not going to|never|don't|do not|can't|cannot|wouldn't|would|should|"
    r"might|could|nearly|almost)|'d)\s+(?:\w+\s+)?$)"
)
#: An intention, plan, wish or possibility governing a cessation's verb ("I'm going to quit X", "planning on
#: leaving", "about to hand in my notice", "I've decided to quit"): nothing has ended yet, so it ends nothing
#: (what is current stays current until the user says it is over). A change said in the future is the new
#: plan itself and keeps its cue: this frame holds for cessations only.
_INTENDED = re.compile(
    r"(?i:(?:\b(?:going to|gonna|about to|want(?:s|ed)? to|wanna|(?:would|'d|’d) like to|hop(?:e|es|ing) to|"
    r"plan(?:s|ned|ning)? (?:to|on)|intend(?:s|ing)? to|think(?:ing)? (?:of|about)|consider(?:ing)?|"
    r"decid(?:e|ed|ing) (?:to|on)|tempted to|(?:need|have|has) to|will|shall|may|might|could|should|would|maybe)|"
    r"(?:'ll|’ll))\s+(?:(?:probably|definitely|soon|finally|actually|just|be|seriously|really)\s+){0,2}$)"
)
_CONTINUED = re.compile(r"(?i:\b(?:still|as always|same as (?:before|always)|like I said|as I said)\b)")
#: A question about one's own words: "did I say 7:30?" doubts them (a correction of what follows "say").
_SELF_DOUBT = re.compile(r"(?i:^\s*(?:wait,?\s+)?did I (?:just )?(?:say|write|type|put)\s+(?P<old>[^?]{1,40})\?\s*$)")
#: An announcement asked as a question: "did I tell you I left Acme?" asserts what it tells.
_ANNOUNCED = re.compile(r"(?i:^\s*(?:oh,?\s+)?(?:did|have) I (?:tell|told|mention(?:ed)?)(?: (?:to )?you)?(?: that)?\s+(?=\w))")

_VALUE = (
    r"(?:\d[\d,.]*(?:\s?(?:%|k|km|kg|mb|gb|mbps|miles?|hours?|minutes?|days?|weeks?|years?|am|pm|st|nd|rd|th))?"
    r"|(?:(?:Mr|Mrs|Ms|Dr|St)\.?\s+)?[A-Z][\w'’&.-]*(?:\s+(?:[A-Z][\w'’&.-]*|\d+))*|[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)"
)
_NAMED = r"(?:\d[\d,.]*(?:\s?[a-z%]{1,5})?|(?:(?:Mr|Mrs|Ms|Dr|St)\.?\s+)?[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*)"
_DET = r"(?:(?:the|my|our|a|an|his|her|their)\s+)?"
_CONTRASTS = (
    # "9 km, not 14", "it's Brenna, not Brenda" (the comma sets the contrast apart: "they're not alone" is none)
    re.compile(rf"(?P<new>{_VALUE})\s*(?:,|;|\s-)\s*(?:and\s+)?not\s+{_DET}(?P<old>{_VALUE})"),
    # "not 14 but 9", "not Tuesday but Thursday": names and numbers only
    re.compile(rf"(?i:\bnot\s+){_DET}(?P<old>{_NAMED})\s*,?\s+(?i:but)\s+{_DET}(?P<new>{_NAMED})"),
    # "Not Friday, Saturday": the denied value first, then the right one
    re.compile(rf"(?i:^\s*not\s+){_DET}(?P<old>{_NAMED})\s*[,;:-]\s*{_DET}(?P<new>{_NAMED})"),
    # "I'd assumed Gatwick": the value the speaker took for true, now over
    re.compile(rf"(?i:\bI(?:'d|’d|\s+had)?\s+(?:wrongly\s+)?assumed\s+(?:(?:that\s+)?it\s+was\s+)?){_DET}(?P<old>{_NAMED})"),
    # "instead of Crete"
    re.compile(rf"(?i:\binstead of\s+){_DET}(?P<old>{_VALUE})"),
    # "moved from Porto to Seville" (a verb of change before it: "from contemporary to hip-hop" is a range)
    re.compile(
        rf"(?i:\b(?:moved|switched|changed|went|upgraded|downgraded|transferred|relocated|swapped|jumped|increased|"
        rf"decreased|raised|dropped|cut|grew|rose|fell|gone)\b[^.!?]{{0,40}}?\bfrom\s+){_DET}(?P<old>{_VALUE})\s+(?i:to)\s+"
        rf"{_DET}(?P<new>{_VALUE})"
    ),
    # "swapped pottery for life drawing"
    re.compile(
        rf"(?i:\b(?:swapp?ed|switched|traded|exchanged|replaced)\s+){_DET}(?P<old>{_VALUE})\s+(?i:for|with)\s+{_DET}(?P<new>{_VALUE})"
    ),
)
#: Cessations whose grammatical subject is what ends ("Marmalade died", "Cornwall's off", "the reno is on hold").
_SUBJECT_ENDS = re.compile(r"(?:died|passed away|ended|expired|ran out|.*\s(?:off|on hold|shelved|on ice|history|shut|closed))$")
#: Where a clause ends, for what a cessation names.
_CLAUSE_END = re.compile(r"[,;:]|\s(?:and|but|so|because|since|as|then|now)\s")


@dataclass
class _Cues:
    correction: list[str]
    change: list[str]
    cessation: list[str]
    implied: list[str]
    starts: list[str]


def _asserted(sentence: str) -> bool:
    """An assertion of the user's own: not a question (but for an announcement asked as one: "did I
    tell you I left Acme?"), a hypothetical or hedge, a quote or an echo."""
    stripped = sentence.strip()
    if stripped.endswith("?") and _ANNOUNCED.match(stripped):
        stripped = stripped[_ANNOUNCED.match(stripped).end() :].rstrip("?") + "."
    if not stripped or stripped.endswith("?") or is_echo(stripped) or quotes_someone(stripped):
        return False
    return frame_of(stripped).frame not in (Frame.HYPOTHETICAL, Frame.HEDGED) or _CORRECTION.search(stripped) is not None


#: A question asked after a statement in one sentence: "my new boss at X keeps calling at 8, how do I
#: push back?" asserts what comes before the comma.
_TRAILING_QUESTION = re.compile(
    r"(?i:[,;:]\s*(?:so\s+|and\s+|but\s+|anyway\s+)?(?:how|what|where|when|why|which|who|do|does|did|can|could|"
    r"should|would|will|is|are|any)\b[^,;:]*\?\s*$)"
)


def _asserted_part(sentence: str) -> str | None:
    """What the sentence asserts, or None: the statement before a trailing question clause; the
    clauses that say nothing changed ("still 1pm") left out, so "still" holds only where it is said."""
    if not _asserted(sentence):
        question = _TRAILING_QUESTION.search(sentence)
        if question is not None and _asserted(sentence[: question.start()] + "."):
            sentence = sentence[: question.start()] + "."
        else:  # a hedge in a clause of its own ("maybe in a few years") hedges only that clause
            sentence = "".join(c for c in re.split(r"(?<=[,;])", sentence) if frame_of(c).frame is not Frame.HEDGED)
            if not sentence.strip(" ,;.") or not _asserted(sentence):
                return None
    kept = "".join(clause for clause in re.split(r"(?<=[,;])", sentence) if not _CONTINUED.search(clause))
    return kept if kept.strip(" ,;.") else None


#: Someone else does it: "she quit her job", "they moved to Leeds" (a person's pronoun in the cue's clause).
_OTHER_PERSON = re.compile(r"(?i:\b(?:he|she|they|he's|she's|they've|they're|he'd|she'd)\b)")


def _theirs(sentence: str, at: int) -> bool:
    """The cue at `at` is another person's doing: a person's pronoun opens its clause, not the user."""
    clause = _CLAUSE_END.split(sentence[:at])[-1]
    return _OTHER_PERSON.search(clause) is not None and re.search(r"\b(?:I|I'm|I’m|I've|me|we|us)\b", clause) is None


def _intended(sentence: str, at: int) -> bool:
    """The cue at `at` is the verb of an intention, plan or possibility of its clause: not done yet."""
    return _INTENDED.search(_CLAUSE_END.split(sentence[:at])[-1]) is not None


def _found(pattern: re.Pattern[str], sentence: str) -> list[str]:
    return [
        m.group(0).lower()
        for m in pattern.finditer(sentence)
        if not _NEGATED.search(sentence[: m.start()])
        and not _theirs(sentence, m.start())
        and not (pattern is _CESSATION and _intended(sentence, m.start()))
    ]


def _ended(sentence: str) -> list[tuple[str, ...]]:
    """What a cessation sentence says is over: the values (else the first content word) of its clause."""
    out: list[tuple[str, ...]] = []
    for match in _CESSATION.finditer(sentence):
        if _NEGATED.search(sentence[: match.start()]) or _intended(sentence, match.start()):
            continue
        cue = match.group(0).lower()
        if cue.endswith("-free"):  # "gone car-free": what is gone is named before "-free"
            out.append(value_terms(cue.rsplit(" ", 1)[-1][: -len("-free")])[:1])
            continue
        before = _CLAUSE_END.split(sentence[: match.start()])[-1]
        after = _CLAUSE_END.split(sentence[match.end() :])[0]
        if cue == "used to":  # "I used to play five-a-side": the habit, by its verb and object together
            out.append(value_terms(after)[:2])
            continue
        if _SUBJECT_ENDS.match(cue):  # "Marmalade died", "Cornwall's off": what ends is the clause's subject
            after = ""
        ends_before = cue.endswith(("more", "died", "away")) or "after all" in cue or _SUBJECT_ENDS.match(cue)
        clause = f"{before} {after}" if ends_before else after
        if "n't" in match.group(0) or match.group(0).lower().startswith("not "):
            clause = match.group(0) + " " + clause
        terms, values = terms_of(" x " + clause)  # never sentence-initial: a capital is a name
        if values:
            out.extend((value,) for value in sorted(values))
        elif terms:
            first = next((t for t in value_terms(clause) if t in terms), None)
            if first is not None:
                out.append((first,))
    return out


def _withdrawn(sentence: str, cues: _Cues, replaced: list[tuple[str, ...]]) -> tuple[bool, list[str]]:
    """Adds the withdrawals of the sentence ("forget the boat", `reading.withdrawal`) as cessations naming
    what they withdraw; True when one names it. A shape that only withdraws (`Shape.withdraws`) ties its
    subject by what it withdraws: by name, else by meaning alone."""
    withdrawn = withdrawals(sentence)
    cues.cessation += [cue for cue, _ in withdrawn if cue not in cues.cessation]
    replaced += [what for _, what in withdrawn if what and what not in replaced]
    return any(what for _, what in withdrawn), [cue for cue, _ in withdrawn]


def read_shape(text: str) -> Shape | None:
    """The update shape of a statement, or None when it corrects, changes and ends nothing."""
    cues = _Cues([], [], [], [], [])
    renewed: list[str] = []
    replaced: list[tuple[str, ...]] = []
    stated: list[tuple[str, ...]] = []
    withdrawn_any = ruled = False  # a withdrawal naming what it withdraws; an update's cue of the rules
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        doubted = _SELF_DOUBT.match(sentence)
        if doubted:  # "Did I say 7:30?": what was said is in doubt, the next sentence says the right one
            cues.correction.append("did i say")
            replaced += [value_terms(doubted.group("old"))] if value_terms(doubted.group("old")) else []
            continue
        said = sentence
        sentence = _asserted_part(sentence)
        if sentence is None:
            # "Pretend I never said that about the tattoo": a withdrawal is an order about one's own
            # words, whatever frame its verb reads as; a question or a quote withdraws nothing
            if not said.rstrip().endswith("?") and not quotes_someone(said):
                withdrawn_any = _withdrawn(said, cues, replaced)[0] or withdrawn_any
            continue
        cues.correction += _found(_CORRECTION, sentence)
        cues.change += _found(_CHANGE, sentence)
        ceased = _found(_CESSATION, sentence)
        cues.cessation += ceased
        named, withdrawing = _withdrawn(sentence, cues, replaced)
        withdrawn_any = named or withdrawn_any  # "never mind the X" is a cue of both: a withdrawal
        ruled = ruled or any(not any(w in c or c in w for w in withdrawing) for c in ceased)
        cues.implied += _found(_IMPLIED, sentence)
        cues.starts += _found(_STARTS, sentence)
        renewed += [term for m in _RENEWED.finditer(sentence) for term in value_terms(m.group("head"))[:1]]
        for pattern in _CONTRASTS:
            for match in pattern.finditer(sentence):
                old = value_terms(match.group("old"))
                if old and old not in replaced:
                    replaced.append(old)
                new = value_terms(match.group("new")) if "new" in match.groupdict() and match.group("new") else ()
                if new and new not in stated:
                    stated.append(new)
        if ceased:
            replaced += [value for value in _ended(sentence) if value not in replaced]
    contrast = bool(stated) and bool(replaced)
    if cues.correction or (contrast and not cues.change and not cues.cessation):
        kind = UpdateKind.CORRECTION
    elif cues.change:
        kind = UpdateKind.CHANGE
    elif cues.cessation:
        kind = UpdateKind.CESSATION
    elif cues.implied or cues.starts:
        implied = tuple(dict.fromkeys([*cues.starts, *cues.implied]))
        return Shape(UpdateKind.CHANGE, False, implied, starts=bool(cues.starts), renewed=tuple(dict.fromkeys(renewed)))
    else:
        return None
    found = tuple(dict.fromkeys([*cues.correction, *cues.change, *cues.cessation]))
    stated = [value for value in stated if value not in replaced]
    return Shape(
        kind, True, found, tuple(replaced), tuple(stated), ends=bool(cues.cessation), starts=bool(cues.starts),
        renewed=tuple(dict.fromkeys(renewed)), withdraws=withdrawn_any and not (ruled or cues.correction or cues.change),
    )  # fmt: skip


#: A negated predicate: "the loft conversion isn't happening", "we never went", "I don't drive".
_NEGATION = re.compile(
    r"(?i:\b(?:is|are|was|were|do|does|did|have|has|had|wo|ca|could|would)n[’']t\b|\b(?:not|never|cannot)\b)"
)
#: Negations that deny nothing said: a hedge, a figure of speech, an order to the assistant.
_NOT_A_DENIAL = re.compile(
    r"(?i:\b(?:not (?:sure|only|just|bad|yet|that|too|quite|really|much|always)|never mind|not to|whether or not)\b|"
    r"n[’']t (?:know|think|wait|believe|mind|care)\b|^\s*(?:please\s+)?(?:do not|don[’']t|never)\b)"
)


def denies(text: str) -> bool:
    """The user asserts, in so many words, that something is not so ("the loft conversion isn't
    happening", "we never went"), and says no update in other words (`read_shape` is None). It may
    deny what an earlier statement of the same subject affirmed (`beliefs.supersession`)."""
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if not _asserted(sentence) or _NOT_A_DENIAL.search(sentence):
            continue
        if any(not _theirs(sentence, m.start()) for m in _NEGATION.finditer(sentence)):
            return True
    return False


def contrasted_values(text: str) -> list[tuple[str, str]]:
    """(old, new) as said in the user's own contrasts ("it's 120, not 90" -> ("90", "120")), in order."""
    if "not" not in text and "from" not in text and not any(w in text for w in ("wapp", "witch", "raded", "eplace")):
        return []
    pairs: list[tuple[str, str]] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        if not _asserted(sentence):
            continue
        for pattern in _CONTRASTS:
            for match in pattern.finditer(sentence):
                found = match.groupdict()
                if found.get("old") and found.get("new"):
                    pairs.append((found["old"].strip(), found["new"].strip()))
    return pairs
