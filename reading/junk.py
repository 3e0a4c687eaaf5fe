"""Decide which turns carry no persistent signal, before extraction spends anything on them.

Over-extraction turns the store into a junk drawer: greetings, thanks, "ok", a bad morning,
sarcasm and assistant dumps all retrieved beside real facts. A turn is junk only when every
sentence in it is; one self-disclosure ("Thanks! I'm allergic to nuts.") keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from beliefs.records import Role
from reading.extract.text import sentence_spans
from reading.gates import contains_any
from reading.secrets import REDACTION_PREFIX, redact_secrets


@dataclass(frozen=True)
class JunkVerdict:
    """Why a turn is not worth remembering: a short, stable snake_case reason."""

    reason: str


EMPTY = "empty"
GREETING = "greeting"
PLEASANTRY = "pleasantry"
ACKNOWLEDGEMENT = "acknowledgement"
EMOJI_ONLY = "emoji_only"
TRANSIENT_STATE = "transient_state"
SARCASM = "sarcasm"
QUESTION_WITHOUT_DISCLOSURE = "question_without_disclosure"
ASSISTANT_DUMP = "assistant_dump"
RAW_DUMP = "raw_dump"  # a user turn that is only code, JSON or a stack trace
SECRET_ONLY = "secret_only"
TEST_ROW = "test_row"  # smoke/eval/lifecycle rows
NON_USER_ROLE = "non_user_role"

_NAME = r"(?:\s+[A-Z][a-z]+)?"  # a vocative: "Thanks, Maria!"
_TAIL = r"[\s,.!?~:;)(*-]*"
_EMOJI_TAIL = r"(?:\s*[^\w\s])*"

_GREETING = re.compile(
    r"^(?:(?:hi|hello|hey|heya|hiya|howdy|yo|greetings|good (?:morning|afternoon|evening|day)|"
    r"morning|evening|what'?s up|sup|long time no (?:see|talk|chat)|hey there|hi there|hello there|"
    r"(?:it'?s )?(?:so )?(?:good|great|nice) to (?:see|hear from|talk to|meet) you(?: again| too)?|"
    r"how(?:'?s| is| are| have) (?:it going|you been|you doing|you|things|everything|life)(?: been)?(?: lately)?|"
    r"how'?re (?:ya|you)(?: doin'?g?)?|bye|goodbye|bye for now|see (?:you|ya)(?: later| soon)?|"
    r"talk (?:to you )?(?:soon|later)|take care|good ?night|catch you later|cya|ttyl)"
    rf"(?:,?{_NAME}|\s+(?:all|everyone|folks|guys|there|buddy|friend|mate)){_TAIL})+{_EMOJI_TAIL}$",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^(?:(?:oh |wow |aw+ )?(?:thanks|thank you|thx|ty|cheers|many thanks|much appreciated|appreciate it|"
    r"i appreciate (?:it|that|this|you)|thanks? (?:a lot|so much|again|for (?:the |your )?\w+(?: \w+)?)|"
    r"thank you (?:so|very) much|(?:that'?s|this is|that was|it'?s|sounds|looks) (?:so |very |really |super |pretty |just )?"
    r"(?:helpful|great|awesome|amazing|cool|nice|perfect|wonderful|fantastic|lovely|brilliant|beautiful|"
    r"sweet|adorable|useful|neat|impressive|incredible|inspiring|fun|exciting)|wow|congrats|congratulations|"
    r"(?:you'?re|you are) (?:so |the |a )?(?:awesome|amazing|the best|great|a star|a lifesaver|welcome|kind)|"
    r"no worries|my pleasure|you'?re welcome|great job|well done|good job|nice work|way to go|"
    r"awesome|amazing|great|nice|lovely|wonderful|fantastic|brilliant|so cool|how cool|glad to hear(?: that)?|"
    r"(?:i'?m )?(?:so )?(?:happy|glad) for you|(?:it|that) means a lot(?: to me)?|good for you|good luck|have fun|enjoy)"
    rf"(?:,?{_NAME}){_TAIL})+{_EMOJI_TAIL}$",
    re.IGNORECASE,
)
_ACKNOWLEDGEMENT = re.compile(
    r"^(?:(?:ok(?:ay)?|k|kk|sure(?: thing)?|yes|yeah|yep|yup|ya|no|nope|nah|alright|all right|right|fine|"
    r"noted|understood|roger(?: that)?|got it|gotcha|i see|makes sense|sounds good|sounds great|"
    r"sounds like a plan|will do|on it|cool|perfect|great|nice|lol|lmao|rofl|haha+|hehe+|ha|hmm+|huh|"
    r"oh|ah|aha|ooh|true|exactly|indeed|agreed|same|me too|for sure|of course|definitely|absolutely|"
    r"totally|no problem|np|works for me|fair enough|yes please|no thanks|go ahead|let'?s do it)"
    rf"(?:,?{_NAME}){_TAIL})+{_EMOJI_TAIL}$",
    re.IGNORECASE,
)
_STATES = (
    r"tired|exhausted|sleepy|hungry|thirsty|bored|sick|ill|cold|hot|sweaty|stressed|busy|swamped|"
    r"sad|down|grumpy|cranky|anxious|nervous|sore|drained|wiped out|beat|knackered|dizzy|"
    r"a bit off|off|meh|blah|under the weather|in a (?:bad|good|great) mood|jet-?lagged|hungover|"
    r"full|stuffed|late|running late|frustrated|annoyed|overwhelmed|excited|happy|great|fine|good|ok|okay"
)
_TRANSIENT = re.compile(
    r"^(?:ugh|man|honestly|well|so|oof|phew)?[,\s]*(?:i'?m|i am|i feel|i'?m feeling|feeling|i was|i got|"
    r"i'?ve been|been)\s+(?:so |really |a bit |a little |kind of |kinda |pretty |super |very |quite |"
    r"totally |just |extremely |incredibly |somewhat |sort of |a tad )*"
    rf"(?:{_STATES})(?:\s+(?:and|&)\s+(?:so |really |a bit )?(?:{_STATES}))?"
    r"(?:\s+(?:today|tonight|right now|now|this (?:morning|afternoon|evening|week)|at the moment|atm|"
    r"lately|again|already|after (?:work|lunch|that)))?"
    rf"{_TAIL}{_EMOJI_TAIL}$",
    re.IGNORECASE,
)
_SARCASM = re.compile(
    r"^(?:oh,?\s+)?(?:great|wonderful|fantastic|perfect|brilliant|lovely|just great|super|joy|goody|terrific),?\s+"
    r"(?:another|more|just what|exactly what|that'?s just|now|because)\b"
    r"|^oh,?\s+(?:great|wonderful|fantastic|perfect|brilliant|lovely|joy|goody)\b"
    r"|\byeah,?\s+right\b|^(?:just|exactly) what i (?:needed|wanted)\b"
    r"|\bwhat could (?:possibly )?go wrong\b|\bi just love it when\b|\bsaid no one ever\b"
    r"|\bthanks for nothing\b|^(?:(?:oh|yeah|ha|pfft)[,!.\s]+)?as if\b|^sure,? because\b|\bbecause that always works\b",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:what|who|whom|whose|where|when|why|how|which|can|could|would|will|should|shall|do|does|did|is|are|"
    r"was|were|have|has|may|might|any|anything)\b",
    re.IGNORECASE,
)
_DISCLOSURE = re.compile(
    r"\b(?:my|mine|myself|i'?m|i am|i'?ve|i have|i was|i had|i'?d|i'?ll|we'?re|our)\b|\bas an?\s+\w+"
    r"|\bi\s+(?!wonder|guess|mean)(?:[a-z]+)\b",
    re.IGNORECASE,
)
_ASKING_I = re.compile(
    r"\b(?:should|can|could|do|would|shall|may|might|must|did|will|where|when|how|what|why|if) i\b"
    r"|\bi (?:wonder|guess|mean|need (?:help|to know)|want to know|was wondering)\b",
    re.IGNORECASE,
)
_TEST_ROW = re.compile(
    r"^\W*(?:test(?:ing)?(?: \d+)*|this is (?:a|just a) test(?: message)?|ping|pong|smoke(?: test)?|eval(?:uation)? row|"
    r"\[?(?:smoke|eval|test|lifecycle|healthcheck|health check)\]?.*|/(?:reset|clear|new|start|stop|exit|help)|"
    r"(?:session|conversation|chat) (?:started|ended|reset|closed|opened|created|resumed)(?: .*)?|"
    r"(?:user|assistant|agent) (?:joined|left|connected|disconnected)(?: .*)?|lorem ipsum.*|asdf+|foo ?bar|hello world)\W*$",
    re.IGNORECASE,
)
#: Every alternative of `_SARCASM` contains one of these (see `reading.gates`).
_SARCASM_WORDS = ("great", "wonderful", "fantastic", "perfect", "brilliant", "lovely", "super", "joy", "goody",
                  "terrific", "sure", "yeah", "just what i", "exactly what i", "what could", "i just love it when",
                  "said no one ever", "thanks for nothing", "as if", "because that always works")  # fmt: skip
_CODE_FENCE = re.compile(r"```|~~~")
_STACK_TRACE = re.compile(
    r"Traceback \(most recent call last\)|^\s+at [\w.$<>]+\(.*\)\s*$|^\s*File \".*\", line \d+|Exception in thread",
    re.MULTILINE,
)
_JSONISH = re.compile(r"^\s*[\[{].*[\]}]\s*$", re.DOTALL)
_HAS_WORD_CHAR = re.compile(r"[^\W_]")
_SECRET_FILLER = re.compile(
    r"\b(?:my|the|our|new|old|is|was|are|here'?s|here|it'?s|it|this|that|use|using|and|or|for|to|a|an|"
    r"password|passwd|pwd|pin|passcode|api|key|keys|token|tokens|secret|card|number|credit|debit|iban|"
    r"bearer|authorization|access|ssh|private|login|credentials?)\b",
    re.IGNORECASE,
)
_REDACTION = re.compile(r"\[REDACTED:[a-z_]+\]")

#: Non-user text at least this long is treated as a dump, not a message.
DUMP_MIN_CHARS = 400


def _is_dump(text: str) -> bool:
    if _CODE_FENCE.search(text) or _STACK_TRACE.search(text):
        return True
    return bool(_JSONISH.match(text)) and (":" in text or "," in text)


def _is_only_dump(text: str) -> bool:
    """A user turn that is nothing but a code block, JSON or a trace."""
    if _JSONISH.match(text) and (":" in text or "," in text):
        return True
    prose = re.sub(r"```.*?(?:```|\Z)", " ", text, flags=re.DOTALL) if "```" in text else text
    if _STACK_TRACE.search(prose):
        return sum(1 for line in prose.splitlines() if line.strip() and not _STACK_TRACE.search(line)) <= 2
    return prose.strip() == "" and prose != text


#: A request phrased as a question that sets a standing rule ("can you use bullets from now on?").
_STANDING_REQUEST = re.compile(r"(?i:\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|\bevery time\b)")
#: An instruction to the assistant about what not to do, which "Do" or "Can you" opens like a question:
#: "Do not suggest restaurant Alto.", "Can you stop recommending podcasts?", "Could you never book Ryanair?"
_NEGATIVE_REQUEST = re.compile(
    r"(?i:^(?:please[,\s]+)?do\s+(?:not|never)\s+\w+"
    r"|^(?:please[,\s]+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:stop|quit|never|not|avoid)\b)"
)


def is_question_without_disclosure(sentence: str) -> bool:
    """A question that says nothing about the speaker ("Can you explain recursion?")."""
    stripped = sentence.strip()
    if not (stripped.endswith("?") or _QUESTION_START.match(stripped)):
        return False
    if _STANDING_REQUEST.search(stripped) or _NEGATIVE_REQUEST.search(stripped):
        return False
    without_asking = _ASKING_I.sub(" ", stripped)
    return _DISCLOSURE.search(without_asking) is None


def is_sarcastic(sentence: str) -> bool:
    """A stock sarcasm ("said no one ever", "yeah, right", "Oh great, another…"): the sentence is
    skipped as junk by the extractor, and a quote of it is read as sarcastic (`reading.sincerity`)."""
    stripped = sentence.strip()
    return contains_any(stripped, _SARCASM_WORDS) and _SARCASM.search(stripped) is not None


def sentence_junk_reason(sentence: str) -> str | None:
    """Why one sentence carries no persistent signal, else None."""
    stripped = sentence.strip()
    if not stripped:
        return EMPTY
    if not _HAS_WORD_CHAR.search(stripped):
        return EMOJI_ONLY
    short = len(stripped) <= 160
    if is_sarcastic(stripped):
        return SARCASM
    if short and _GREETING.match(stripped):
        return GREETING
    if short and _ACKNOWLEDGEMENT.match(stripped):
        return ACKNOWLEDGEMENT
    if short and _PLEASANTRY.match(stripped):
        return PLEASANTRY
    if short and _TRANSIENT.match(stripped):
        return TRANSIENT_STATE
    if is_question_without_disclosure(stripped):
        return QUESTION_WITHOUT_DISCLOSURE
    return None


def _secret_only(text: str) -> bool:
    redacted = text if REDACTION_PREFIX in text else redact_secrets(text)[0]
    if REDACTION_PREFIX not in redacted:
        return False
    rest = _SECRET_FILLER.sub(" ", _REDACTION.sub(" ", redacted))
    return _HAS_WORD_CHAR.search(rest) is None


def whole_turn_reason(text: str, role: Role) -> str | None:
    """The reasons that look at the turn as a whole (role, dumps, secrets, test rows), else None."""
    stripped = text.strip()
    if not stripped:
        return EMPTY
    if role is not Role.USER:
        return ASSISTANT_DUMP if len(stripped) >= DUMP_MIN_CHARS or _is_dump(stripped) else NON_USER_ROLE
    if _TEST_ROW.match(stripped):
        return TEST_ROW
    if _secret_only(stripped):  # before dumps: a lone redaction marker looks like one
        return SECRET_ONLY
    if _is_only_dump(stripped):
        return RAW_DUMP
    return None


def classify_junk(text: str, role: Role) -> JunkVerdict | None:
    """The reason a turn is junk, or None when it may carry a memory."""
    reason = whole_turn_reason(text, role)
    if reason is not None:
        return JunkVerdict(reason)
    stripped = text.strip()
    first_reason = None
    for left, right in sentence_spans(stripped):
        reason = sentence_junk_reason(stripped[left:right])
        if reason is None:
            return None
        if first_reason is None or first_reason == EMOJI_ONLY:
            first_reason = reason
    return JunkVerdict(first_reason or EMPTY)
