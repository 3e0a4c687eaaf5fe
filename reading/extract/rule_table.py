"""The table of structured rules: one regex per way of saying an attribute, with its memory text.

The phrase that triggers a rule is case-insensitive; proper names (employers, cities, pets) must
be capitalised, which keeps "I work at home" from becoming an employer.
"""

from __future__ import annotations

import re

from reading.extract import lexicon
from reading.extract.profile_rules import PROFILE_RULES
from reading.extract.rule import (
    _ADV,
    _I,
    _IM,
    _PHRASE,
    _PROPER,
    Rule,
    _group,
    _lower,
    _object,
    _rule,
    as_said,
)
from reading.extract.values import clip, clip_object


def _pet_value(kind: str, name: str | None) -> str:
    kind = kind.lower()
    return f"{kind} {name}" if name else kind


def _allergen(match) -> str | None:
    """What one is allergic to: a thing, not a pronoun pointing back ("allergic to them") nor the place it is in."""
    value = clip_object(re.split(r"(?i:\s+(?:in|on|at|from)\s)", match.group("v"), maxsplit=1)[0], 4)
    return as_said(value) if value else None


def _job(phrase: str) -> str | None:
    """A role that is a job ("backend engineer"), not an identity ("transgender woman", "mom")."""
    value = clip(phrase, 5)
    if value is None:
        return None
    value = value.lower()
    head = value.split()[-1]
    if head in lexicon.IDENTITY_ROLES or head in lexicon.PARENT_ROLES:
        return None
    return value


#: An employer described rather than named: "a fintech startup", "a logistics company in Porto".
_NOT_A_MODIFIER = r"(?:and|or|but|in|at|for|with|that|which|who|where|as|of|on|to|since|because|the|a|an|same|other|another|my|your|own)"
_DESCRIBED = (
    rf"(?P<v>(?i:(?:a|an|the)\s+(?:(?!{_NOT_A_MODIFIER}\b)[\w&'’-]+\s+){{0,4}}(?:{lexicon.EMPLOYER_NOUNS}))\b"
    r"(?:\s+(?i:in|near|outside(?:\s+of)?|based\s+in|out\s+of)\s+[A-Z][\w'’-]*(?:\.(?=\s+[A-Z]))?(?:\s+[A-Z][\w'’-]*){0,2})?)"
    r"(?!,?\s+(?i:called|named)\b)"
)
_NAMED_AFTER = rf"(?i:(?:a|an|the)\s+(?:[\w&'’-]+\s+){{0,4}}?(?:{lexicon.EMPLOYER_NOUNS}),?\s+(?:called|named))\s+{_PROPER}"
#: Importance of an employer offered as a description: seed 000's 0.5-0.8 band, below a named one.
_DESCRIBED_IMPORTANCE = 0.65


RULES: tuple[Rule, ...] = (
    *PROFILE_RULES,
    # work and place
    _rule(
        "works_at",
        rf"{_I}{_ADV}(?i:\s+(?:work|am working|'m working|intern|consult)\s+(?:at|for))\s+{_PROPER}",
        "work|intern|consult",
        "{S} works at {v}.",
        0.7,
    ),
    _rule(
        "works_at",
        rf"{_I}{_ADV}(?i:\s+(?:joined|started (?:working )?at|got a job at|got hired (?:at|by)|accepted an offer from|work at|landed a job at))\s+{_PROPER}",
        "joined|started|job|hired|offer",
        "{S} joined {v}.",
        0.75,
    ),
    _rule(  # a start at an employer, said without "I": "Just started as an analyst at X", "First week at X done"
        "works_at",
        r"(?i:(?:^|[.!?]\s+|\bI(?:'ve| have)?\s+)(?:just\s+|recently\s+)?(?:(?:started|began)"
        r"(?:\s+(?:working|work|a new (?:job|role|position)))?(?:\s+as\s+an?\s+[\w -]{2,40}?)?\s+(?:at|with)|"
        r"first (?:day|week|month|shift) (?:at|with)|onboarding (?:at|with)|(?:got |been |was )?(?:hired|poached|"
        rf"recruited|headhunted) by|accepted an offer (?:from|at)|signed on with|joined))\s+{_PROPER}",
        "started|began|first|onboarding|hired|poached|recruited|headhunted|offer|signed|joined",
        "{S} works at {v}.",
        0.75,
    ),
    _rule(
        "works_at", rf"{_IM}(?i:\s+an?\s+[\w -]{{2,40}}?\s+at)\s+{_PROPER}", " at ", "{S} works at {v}.", 0.7
    ),
    _rule(
        "works_at",
        rf"(?i:\bmy (?:employer|company) is)\s+{_PROPER}",
        "employer|company",
        "{S} works at {v}.",
        0.7,
    ),
    # an employer described rather than named, said in the user's words: "I work for a small fintech startup"
    _rule(
        "works_at",
        rf"{_I}{_ADV}(?i:\s+(?:work|am working|have been working|intern|consult|freelance|do contract work)"
        rf"(?:\s+(?:remotely|full[- ]time|part[- ]time|there|now|currently))?\s+(?:at|for|in))\s+{_DESCRIBED}",
        "work|intern|consult|freelance",
        None,
        _DESCRIBED_IMPORTANCE,
        _group("v", 9),
    ),
    _rule(
        "works_at",
        rf"{_IM}{_ADV}(?i:\s+(?:employed|working|interning|consulting|freelancing|contracting)"
        rf"(?:\s+(?:remotely|full[- ]time|part[- ]time))?\s+(?:at|by|for|in))\s+{_DESCRIBED}",
        "employed|working|interning|consulting|freelancing|contracting",
        None,
        _DESCRIBED_IMPORTANCE,
        _group("v", 9),
    ),
    _rule(
        "works_at",
        rf"{_I}{_ADV}(?i:\s+(?:joined|started\s+(?:working\s+|a\s+(?:new\s+)?job\s+)?(?:at|with|for)|"
        rf"got\s+a\s+(?:new\s+)?job\s+(?:at|with)|got\s+hired\s+(?:at|by)|was\s+hired\s+by|"
        rf"accepted\s+an\s+offer\s+(?:from|at)|landed\s+a\s+job\s+(?:at|with)|signed\s+on\s+with))\s+{_DESCRIBED}",
        "joined|started|job|hired|offer|signed",
        None,
        _DESCRIBED_IMPORTANCE,
        _group("v", 9),
    ),
    _rule(  # a role at a described employer: the role has its own rule, this is the employer
        "works_at",
        rf"{_IM}(?i:\s+(?:now\s+|currently\s+)?an?\s+(?:[\w-]+\s+){{0,3}}?(?:{lexicon.ROLE_NOUNS})\s+(?:at|for|with|in))\s+{_DESCRIBED}",
        " at | for | with | in ",
        "{S} works at {v}.",
        _DESCRIBED_IMPORTANCE,
        _group("v", 9),
    ),
    _rule(
        "works_at",
        rf"{_I}(?i:\s+work\s+as\s+an?\s+[\w -]{{2,40}}?\s+(?:at|for|in))\s+{_DESCRIBED}",
        "work as",
        "{S} works at {v}.",
        _DESCRIBED_IMPORTANCE,
        _group("v", 9),
    ),
    _rule(  # "I work at a startup called Nordwind": the name is the value
        "works_at",
        rf"{_I}{_ADV}(?i:\s+(?:work|am working|am employed|joined|started)\s+(?:at|for|in|with|by)?\s*){_NAMED_AFTER}",
        "work|working|employed|joined|started",
        "{S} works at {v}.",
        0.7,
    ),
    _rule(
        "role",
        rf"{_IM}(?i:\s+(?:now |currently |a working |a full-time |a part-time )?(?:an?\s+))(?P<v>(?i:(?:[\w-]+\s+){{0,3}}?(?:{lexicon.ROLE_NOUNS})))\b(?!\s+(?:of|in|to)\b)",
        "i'm a|i am a|i’m a",
        None,
        0.7,
        lambda m: _job(m.group("v")),
    ),
    _rule(
        "role", rf"{_I}(?i:\s+work\s+as\s+an?\s+){_PHRASE}", "work as", "{S} works as {a}.", 0.7, _lower(5)
    ),
    _rule(
        "lives_in",
        rf"{_I}{_ADV}(?i:\s+(?:live|reside|am based|'m based|am living|'m living|have lived|'ve lived|grew up and live)\s+(?:in|out of))\s+{_PROPER}",
        "live|reside|based",
        "{S} lives in {v}.",
        0.7,
    ),
    _rule(
        "lives_in",
        rf"{_I}{_ADV}(?i:\s+(?:moved|relocated)(?:\s+back)?(?:\s+from\s+[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?)?\s+to)\s+{_PROPER}",
        "moved|relocated",
        "{S} moved to {v}.",
        0.7,
    ),
    _rule(
        "hometown",
        rf"(?:{_IM}(?i:\s+(?:originally\s+)?from)|(?i:\bmy hometown is)|{_I}(?i:\s+grew up in))\s+{_PROPER}",
        "from|hometown|grew up",
        "{S} is from {v}.",
        0.6,
    ),
    _rule(
        "located_in",
        rf"{_IM}(?i:\s+(?:currently |now |still )?(?:in|visiting|staying in|travel+ing in|working from|on a trip (?:in|to)))\s+{_PROPER}",
        "i'm|i am|i’m",
        "{S} is in {v}.",
        0.45,
    ),
    _rule(
        "age",
        rf"(?:{_IM}{_ADV}|{_I}(?i:\s+just\s+turned))\s+(?P<v>\d{{1,2}})(?i:\s+(?:years old|yo|y/o)|(?=[.,!]|$))",
        "years old|turned|yo|i am",
        "{S} is {v} years old.",
        0.6,
    ),
    _rule(
        "relationship_status",
        r"(?i:\b(?:I|we))(?i:'m|’m| am| are|'re| just got| got| recently got)\s+(?P<v>(?i:married|engaged|divorced|single|widowed|separated))\b",
        "married|engaged|divorced|single|widowed|separated",
        "{S} is {v}.",
        0.65,
        _lower(1),
    ),
    # health and food
    _rule(
        "allergy",
        r"(?i:\ballergic\s+to|\b(?:have|got)\s+(?:an?\s+)?(?:(?:severe|mild|bad|serious|terrible|slight|life-threatening|strong)\s+)?allerg(?:y|ies)\s+to)\s+(?P<v>[^.,!?;]{2,60})",
        "allerg",
        "{S} is allergic to {v}.",
        0.9,
        _allergen,
    ),
    _rule(
        "allergy",
        r"(?i:\b(?:have|got)\s+(?:got\s+)?(?:an?\s+)?(?:(?:severe|mild|bad|serious|terrible|slight|life-threatening|strong)\s+)?)"
        r"(?P<v>(?!(?:an?|got|severe|mild|bad|serious|terrible|slight|life-threatening|strong)\s)[\w-]+(?:\s(?:and\s)?[\w-]+){0,3}?)(?i:\s+allerg(?:y|ies))\b(?!\s+to\b)",
        "allerg",
        "{S} is allergic to {v}.",
        0.9,
        _lower(5),
    ),
    _rule(
        "diet",
        rf"(?:{_IM}(?i:\s+(?:a\s+)?(?:strict\s+|full\s+|mostly\s+)?)|(?i:\bas an?\s+)|{_I}(?i:\s+(?:eat|follow|keep|am on|'m on|went|am eating|am going|have gone|have been)\s+(?:an?\s+)?))(?P<v>(?i:{lexicon.DIET_PATTERN}))\b",
        "vegetarian|vegan|pesc|keto|paleo|gluten|kosher|halal|carnivore|flexitarian|lactose|dairy|plant|carb",
        "{S} follows a {v} diet.",
        0.8,
        lambda m: lexicon.DIETS.get(m.group("v").lower()),
    ),
    _rule(
        "diet",
        r"(?i:\bI\s+(?:strictly\s+|carefully\s+|always\s+)?(?:follow|adhere to|stick to|keep to|am on|maintain)\s+an?\s+(?:strict\s+)?)"
        r"(?P<v>(?i:[\w-]+(?:(?:,|\s+and)?\s+[\w-]+)?))(?i:\s+diet)\b",
        "diet",
        "{S} follows a {v} diet.",
        0.8,
        _lower(3),
    ),
    _rule(
        "diet",
        rf"{_I}(?i:\s+(?:don't|do not|dont|never|no longer|stopped eating|can't|cannot)\s+(?:eat\s+)?)(?P<v>(?i:meat|pork|beef|red meat|fish|dairy|gluten|sugar|eggs|seafood|chicken))\b",
        "eat|meat|pork|beef|dairy|gluten|sugar|eggs|fish",
        "{S} eats {v}.",
        0.8,
        lambda m: "no " + m.group("v").lower(),
    ),
    _rule(
        "medical_condition",
        rf"(?:{_I}(?:'ve|’ve)?(?i:\s+(?:have|was diagnosed with|been diagnosed with|suffer from|live with|struggle with|deal with))|(?i:\bdiagnosed with))\s+(?P<v>(?i:{lexicon.CONDITIONS}))\b",
        "have|diagnosed|suffer|live with|struggle|deal",
        "{S} has {v}.",
        0.85,
        _lower(4),
    ),
    _rule(
        "medical_condition",
        r"(?i:\b(?:I am|I'm|as an?)\s+(?:a\s+)?(?:type [12]\s+)?)(?P<v>(?i:diabetic|asthmatic|epileptic|celiac|coeliac|anemic|anaemic))\b",
        "diabetic|asthmatic|epileptic|celiac|coeliac|anemic|anaemic",
        "{S} has {v}.",
        0.85,
        lambda m: lexicon.CONDITION_OF_ADJECTIVE.get(m.group("v").lower()),
    ),
    # family and pets
    _rule(
        "has_pet",
        rf"(?i:(?:\b(?:I|we)(?:'ve|’ve)?(?:\s+(?:just|recently|finally|also))?\s+(?:have|own|got|adopted|rescued|bought|brought home|welcomed|has)|\band)\s+(?:an?|two|three|four|\d+|a new|a little|a cute|a sweet)\s+)(?P<v>(?i:(?:[\w-]+\s+)?(?:{lexicon.PETS})))\b(?:(?:(?i:\s+(?:named|called))\s+|,\s+)(?P<n>[A-Z][\w'-]+(?:\s+and\s+[A-Z][\w'-]+)?))?",
        "have|own|got|adopted|rescued|bought|brought|welcomed|has",
        None,
        0.6,
        lambda m: _pet_value(m.group("v"), m.group("n")),
    ),
    _rule(
        "has_pet",
        rf"(?i:\bmy\s+(?:new\s+|little\s+|old\s+)?)(?P<v>(?i:{lexicon.PETS}))(?:,\s*|\s+(?:named|called)\s+|\s+)(?P<n>[A-Z][\w'-]+)\b",
        "my ",
        "{S} has a pet {v}.",
        0.6,
        lambda m: _pet_value(m.group("v"), m.group("n")),
    ),
    _rule(
        "has_child",
        rf"(?i:\b(?:I|we)\s+(?:have|got)\s+)(?P<v>(?i:(?:an?|one|two|three|four|five|six|\d|a little|a baby|a newborn|twin)\s+(?:[\w-]+\s+)?(?:{lexicon.CHILDREN})))\b",
        "have|got",
        "{S} has {v}.",
        0.7,
        _lower(5),
    ),
    _rule(
        "has_child",
        rf"{_IM}(?i:\s+an?\s+(?:proud\s+|single\s+|stay-at-home\s+|working\s+)?(?:mom|mother|dad|father|parent)\s+of\s+)(?P<v>(?i:\w+(?:\s+(?:{lexicon.CHILDREN}|little ones))?))",
        "of",
        "{S} is a parent of {v}.",
        0.7,
        _lower(3),
    ),
    _rule(
        "has_child",
        r"(?i:\bmy\s+(?:\d+-year-old\s+|little\s+|oldest\s+|youngest\s+|eldest\s+)?)(?P<v>(?i:son|daughter|boy|girl))(?:,\s*|\s+(?:is\s+)?(?:named|called)\s+|(?:'s|’s)\s+name\s+is\s+|\s+)(?P<n>[A-Z][\w'-]+)\b",
        "son|daughter|boy|girl",
        "{S} has a {v}.",
        0.7,
        lambda m: f"{m.group('v').lower()} {m.group('n')}",
    ),
    # tastes and hobbies
    _rule(
        "hobby",
        rf"{_I}(?:'ve|’ve|(?i:\s+have))(?i:\s+been)\s+(?P<v>(?i:[a-z]+ing)(?:\s+(?i:[a-z]+)){{0,2}}?)(?i:\s+(?:for|since))\s+(?P<d>[^.,!?;]{{2,30}})",
        "been",
        None,
        0.55,
        _lower(3),
    ),
    _rule(
        "hobby",
        r"(?i:\bmy (?:favou?rite\s+)?(?:hobby is|hobbies are|hobbies include|passion is))\s+(?P<v>[^.!?;]{2,60})",
        "hobb|passion",
        "{P} hobbies include {v}.",
        0.6,
        _lower(5),
    ),
    _rule(
        "hobby",
        rf"{_I}{_ADV}(?i:\s+(?:took up|picked up|got into|started|am into|'m into|’m into|am learning|'m learning|’m learning))\s+(?P<v>(?i:[a-z]+ing|[a-z]+(?:\s+[a-z]+)?(?=\s*(?:[.,!]|$|\s+(?:lately|recently|last|this|again)))))",
        "took up|picked up|got into|started|into|learning",
        None,
        0.55,
        _object(3),
    ),
    _rule(
        "hobby",
        rf"{_I}{_ADV}(?i:\s+play(?:s|ed)?\s+)(?P<v>(?i:the (?:guitar|piano|violin|drums|cello|bass|flute|saxophone|ukulele)|(?:chess|tennis|soccer|football|basketball|baseball|golf|volleyball|hockey|video games|board games|poker|badminton|cricket|rugby)))\b",
        "play",
        None,
        0.55,
        _lower(3),
    ),
    _rule(
        "likes",
        r"(?i:\bmy\s+(?:all-time\s+)?favou?rite)\s+(?P<k>(?i:[a-z]+(?:\s+[a-z]+)?))\s+(?i:is|are|was)\s+(?P<v>[^.!?;,]{2,60})",
        "favorite|favourite",
        "{P} favorite {k} is {v}.",
        0.6,
        _object(6),
    ),
    _rule(
        "dislikes",
        rf"{_I}{_ADV}(?i:\s+(?:hate|dislike|can't stand|can’t stand|cannot stand|don't like|don’t like|do not like|detest|am not a fan of|'m not a fan of|’m not a fan of|loathe))\s+{_PHRASE}",
        "hate|dislike|stand|like|detest|fan|loathe",
        None,
        0.6,
        _object(5),
    ),
    _rule(
        "likes",
        rf"{_I}{_ADV}(?i:\s+(?:love|like|adore|enjoy|am a (?:huge |big )?fan of|'m a (?:huge |big )?fan of|’m a (?:huge |big )?fan of|am obsessed with|'m obsessed with|’m obsessed with|am passionate about|'m passionate about|’m passionate about))\s+(?!to\b|(?i:you|it|that|this|how|when|being|seeing|hearing|spending|the idea)\b){_PHRASE}",
        "love|like|adore|enjoy|fan of|obsessed|passionate",
        None,
        0.55,
        _object(5),
    ),
    # goals
    _rule(
        "goal",
        r"(?i:\bmy (?:main |big |long-term )?(?:goal|dream|plan|aim|ambition) is to)\s+(?P<v>[^.!?;]{2,80})",
        "goal|dream|plan|aim|ambition",
        "{P} goal is to {v}.",
        0.7,
        _group(max_words=8),
    ),
)
