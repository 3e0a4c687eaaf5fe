"""Facts about the speaker's team or organisation: "my company runs everything on GCP".

The entity is the team or company itself (its name when said, "At Nordwind we ..."; else the noun,
"company", "team"), not the speaker: a team's stack or size is true of the team, and reconciles
against what is later said about the same team.
"""

from __future__ import annotations

import re

from beliefs.records import MemoryType
from reading.extract.finding import Finding, Subject
from reading.extract.text import third_person, third_person_verb
from reading.extract.values import clip

_ORG_NOUNS = (
    "company|team|startup|start-up|org|organisation|organization|department|dept|lab|agency|employer|firm|"
    "business|group|squad|studio|shop|office|school|university|hospital|clinic|practice|nonprofit|charity|"
    "engineering team|dev team|data team|engineering org|engineering department"
)
_CANONICAL = {"org": "organisation", "organization": "organisation", "dept": "department", "start-up": "startup",
              "engineering org": "organisation", "engineering department": "department"}  # fmt: skip
_SUBJECT = re.compile(
    rf"(?i:^(?:(?:and|also|so|btw|well)[,\s]+)?(?:(?:my|our)\s+(?:whole\s+|entire\s+|current\s+|new\s+)?(?P<noun>{_ORG_NOUNS})"
    rf"|the\s+(?P<noun2>company|team|startup|firm|agency|lab)\s+I\s+work\s+(?:for|at|in|with)"
    r"|at\s+(?P<name>(?-i:[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,2})),?\s+we"
    r"|(?P<we>(?:at work,?\s+|at my (?:job|work|company),?\s+)?we))\b)"
)
_PROPER = r"(?P<v>[A-Z][\w&.+#'-]*(?:\s+(?:[A-Z][\w&.+#'-]*|and\s+[A-Z][\w&.+#'-]*)){0,3})"
_USES = re.compile(
    rf"(?i:\b(?:uses?|runs?(?:\s+everything)?\s+on|is\s+(?:all\s+)?on|are\s+(?:all\s+)?on|is\s+built\s+on|"
    rf"relies\s+on|rely\s+on|deploys?(?:\s+everything)?\s+(?:to|on)|hosts?(?:\s+everything)?\s+on|"
    rf"standardi[sz]ed\s+on|works?\s+(?:in|with)|codes?\s+in|switched\s+to|moved\s+to|migrated\s+to)\s+)"
    rf"(?:(?:mostly|mainly|only|just|the)\s+)?(?!(?:Mondays?|Tuesdays?|Wednesdays?|Thursdays?|Fridays?|Saturdays?|Sundays?|Weekends?)\b){_PROPER}"
)
_BASED = re.compile(rf"(?i:\b(?:is|are)\s+(?:based|headquartered|located)\s+(?:in|out of)\s+){_PROPER}")
_SIZE = re.compile(
    r"(?i:\b(?:has|have|is|are|employs)\s+(?P<v>(?:about|around|roughly|over|nearly|almost|just|only|under|some)?\s*"
    r"(?:\d[\d,]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a dozen|a few|hundreds of|thousands of)\s+"
    r"(?:people|employees|engineers|developers|staff|members|folks|devs|designers|researchers|nurses|teachers|of us)))"
)
_PRODUCT = re.compile(
    r"(?i:\b(?:makes?|builds?|sells?|develops?|produces?|designs?|creates?|ships?|offers?|provides?|runs)\s+)"
    r"(?P<v>[^.!?;,]{3,60})"
)
_REMOTE = re.compile(
    r"(?i:\b(?:is|are)\s+(?:fully\s+|completely\s+|mostly\s+)?(?P<v>remote|distributed|hybrid|in-office|on-site)\b)"
)
_NAMED = re.compile(
    r"(?i:\b(?:is\s+called|is\s+named|'s\s+name\s+is)\s+)(?P<v>[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})"
)


#: What a bare "we" can say about a team: its tools, its place, its size ("we went to Paris" is not one).
_WE_SAY = frozenset({"uses_tool", "based_in", "size"})


def _entity(match: re.Match[str]) -> str:
    if match.group("we"):
        return "team"
    if match.group("name"):
        return match.group("name")
    noun = (match.group("noun") or match.group("noun2")).lower()
    return _CANONICAL.get(noun, noun)


def _text(sentence: str, match: re.Match[str], subject: Subject) -> str:
    clause = sentence[match.start() :].strip().rstrip(".!")
    team = f"{subject.possessive} team"
    if match.group("name"):
        clause = re.sub(
            r"(?i:,?\s+we\s+(\w+))", lambda m: f", {team} {third_person_verb(m.group(1))}", clause, count=1
        )
    elif match.group("we"):
        clause = re.sub(
            r"(?i:\bwe\s+(\w+))", lambda m: f"{team} {third_person_verb(m.group(1))}", clause, count=1
        )
    clause = re.sub(r"(?i:^(?:and|also|so|btw|well)[,\s]+)", "", clause)
    clause = re.sub(r"^(?:Our|our)\b", subject.possessive, clause)
    clause = re.sub(r"(?i:\bour\b)", "their", clause)
    clause = re.sub(r"(?i:,?\s+we\b)", " they", clause)
    return third_person(clause, subject.name, subject.possessive).rstrip(" ,") + "."


def organisation_findings(sentence: str, subject: Subject) -> list[Finding]:
    """What a sentence says about the speaker's team or organisation."""
    match = _SUBJECT.search(sentence.strip())
    if match is None:
        return []
    entity = _entity(match)
    rest = sentence.strip()[match.end() :]
    text = _text(sentence.strip(), match, subject)
    for pattern, attribute in ((_USES, "uses_tool"), (_BASED, "based_in"), (_SIZE, "size"), (_REMOTE, "work_mode"),
                               (_NAMED, "name"), (_PRODUCT, "product")):  # fmt: skip
        found = pattern.search(rest)
        if found is None:
            continue
        value = found.group("v").strip().rstrip(".")
        if attribute == "product":
            value = clip(value, 8) or ""
        elif attribute == "uses_tool":
            value = re.split(r"\s+(?:and|for|to|in)\s+(?=[a-z])", value)[0].strip()
            value = re.split(r"\s+and\s+", value)[0]
        elif attribute == "work_mode":
            value = value.lower()
        if value and (not match.group("we") or attribute in _WE_SAY):
            return [Finding(text=text, type=MemoryType.FACT, importance=0.65, attribute=attribute, value=value,
                            entity=entity)]  # fmt: skip
    if len(rest.split()) >= 2 and not match.group("we"):
        return [Finding(text=text, type=MemoryType.FACT, importance=0.55, entity=entity)]
    return []
