"""Special-category facts, marked at write time: health, religion, sexuality, politics, finances, location.

Such a fact is true and may matter, but surfacing it out of context is the "creepy recall" failure,
so recall returns it only in its domain or when the caller asks (`sidecar.recall.sensitivity_gate`).
Safety facts (allergies, medical needs, dietary restrictions, accessibility) are the exception
that must surface: `is_safety_fact` names them, `SAFETY_DOMAINS` says where they apply. Pure.
"""

from __future__ import annotations

import re

from beliefs.records import Sensitivity

#: Attributes whose every value is special-category data.
SENSITIVE_ATTRIBUTES: dict[str, Sensitivity] = {
    "medical_condition": Sensitivity.HEALTH,
    "allergy": Sensitivity.HEALTH,
    "accessibility": Sensitivity.HEALTH,
    "medication": Sensitivity.HEALTH,
    "disability": Sensitivity.HEALTH,
    "religion": Sensitivity.RELIGION,
    "faith": Sensitivity.RELIGION,
    "sexual_orientation": Sensitivity.SEXUALITY,
    "sexuality": Sensitivity.SEXUALITY,
    "political_affiliation": Sensitivity.POLITICS,
    "political_party": Sensitivity.POLITICS,
    "politics": Sensitivity.POLITICS,
    "salary": Sensitivity.FINANCES,
    "income": Sensitivity.FINANCES,
    "debt": Sensitivity.FINANCES,
    "net_worth": Sensitivity.FINANCES,
    "address": Sensitivity.LOCATION,
    "home_address": Sensitivity.LOCATION,
    "street_address": Sensitivity.LOCATION,
}

#: Attributes of safety facts: they surface for requests in `SAFETY_DOMAINS` whatever the similarity.
SAFETY_ATTRIBUTES = frozenset({"allergy", "medical_condition", "accessibility", "diet", "medication", "disability"})

#: Where safety facts apply: a peanut allergy belongs in every food request.
SAFETY_DOMAINS = frozenset({"food", "medication", "travel", "activities", "health"})


def _words(*words: str) -> re.Pattern[str]:
    return re.compile(r"(?i:\b(?:" + "|".join(words) + r")\b)")


def _lowered(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """A `_words` pattern without its case folding, for ASCII text lowered first: the same matches (its
    words are lower case, and lowering ASCII keeps every position and word boundary) at a fraction of
    the cost, since `(?i)` tries every alternative case-folded at every position. Others are kept."""
    source = pattern.pattern
    if not (source.startswith("(?i:\\b(?:") and source.islower()):
        return pattern
    return re.compile(source.replace("(?i:", "(?:", 1))


#: A finance word naming a trade, not the user's money: "a mortgage adviser", "the loans team".
_TRADE = (
    r"(?!\s+(?:advis[eo]rs?|brokers?|officers?|consultants?|specialists?|analysts?|counsell?ors?|underwriters?|"
    r"team|department|desk|company|firm|lender|provider|bank)\b)"
)

_TEXT_SIGNALS: tuple[tuple[Sensitivity, re.Pattern[str]], ...] = (
    (
        Sensitivity.HEALTH,
        _words(
            r"diagnos\w*", r"depress\w*", r"anxiety", r"adhd", r"autis\w*", r"diabet\w*", r"cancer",
            r"hiv", r"asthma", r"epilep\w*", r"pregnan\w*", r"therap(?:y|ist)", r"medication",
            r"antidepressants?", r"surgery", r"disorder", r"chronic", r"allerg(?:y|ies|ic)",
            r"insulin", r"migraines?", r"bipolar", r"ptsd", r"celiac|coeliac", r"wheelchair",
            r"disabilit(?:y|ies)", r"blind", r"deaf", r"panic attacks?", r"illness",
        ),
    ),
    (
        Sensitivity.RELIGION,
        _words(
            r"muslim", r"christian", r"catholic", r"protestant", r"jewish", r"judaism", r"hindu",
            r"buddhist", r"sikh", r"atheist", r"agnostic", r"mormon", r"church", r"mosque",
            r"synagogue", r"pray(?:s|ing)?", r"ramadan", r"religio\w*", r"my faith",
        ),
    ),
    (
        Sensitivity.SEXUALITY,
        _words(
            r"gay", r"lesbian", r"bisexual", r"queer", r"lgbtq?\+?", r"pansexual", r"asexual",
            r"sexual orientation", r"came out", r"coming out", r"transgender", r"non-binary",
            r"trans (?:woman|man|person)", r"gender identity",
        ),
    ),
    (
        Sensitivity.POLITICS,
        _words(
            r"democrats?", r"republicans?", r"voted? for", r"vote for", r"labour", r"tory|tories",
            r"conservative party", r"liberal party", r"socialist", r"communist", r"libertarian",
            r"political\w*", r"trade union", r"green party",
        ),
    ),
    (
        Sensitivity.FINANCES,
        _words(
            r"salary", r"income", rf"debts?{_TRADE}", rf"loans?{_TRADE}", rf"mortgages?{_TRADE}", r"bankrupt\w*",
            r"credit score", rf"savings{_TRADE}", r"net worth", r"in debt", r"owe", r"earn(?:s|ing)?\s+\$?\d[\d,.]*k?",
            r"paid\s+\$?\d[\d,.]*k?", r"\$\d[\d,.]*k?\s+(?:a|per)\s+(?:year|month)",
        ),
    ),
    (
        Sensitivity.LOCATION,
        re.compile(
            r"(?i:\b(?:home address|my address|street address|apartment\s+\d+|apt\.?\s*\d+|zip code|"
            r"postcode|gps|coordinates)\b|\b\d{1,5}\s+(?:(?!(?:at|the|on|in|of|to|for|from|and|by|near|a|an|my|our)\b)[A-Za-z]+\s+){1,3}"
            r"(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Boulevard|Blvd|Drive|Dr|(?<!each )(?<!one )(?<!either )(?<!every )Way|Court|Ct)\b)"
        ),
    ),
)


#: `_TEXT_SIGNALS` for ASCII text lowered first (`_lowered`).
_ASCII_SIGNALS = tuple((category, _lowered(pattern)) for category, pattern in _TEXT_SIGNALS)


def sensitivity_of(attribute: str | None, value: str | None, text: str) -> Sensitivity | None:
    """The special category a fact falls in (its attribute first, then its words), else None."""
    if attribute and attribute in SENSITIVE_ATTRIBUTES:
        return SENSITIVE_ATTRIBUTES[attribute]
    said = f"{text} {value or ''}"
    signals = _TEXT_SIGNALS
    if said.isascii():  # every quote recall gates is read here: the cheaper patterns, same answer
        said, signals = said.lower(), _ASCII_SIGNALS
    for category, pattern in signals:
        if pattern.search(said):
            return category
    return None


def is_safety_fact(attribute: str | None, text: str) -> bool:
    """Allergies, medical needs, dietary restrictions, accessibility: they must reach the prompt in their domain.
    A mental-health condition is no safety fact, whatever its attribute: it comes back only where it bears."""
    if _MENTAL_HEALTH.search(text):
        return False
    if attribute in SAFETY_ATTRIBUTES:
        return True
    return bool(_SAFETY_TEXT.search(text))


#: Mental-health conditions (issue 24: not safety facts), the clinical names and their common forms.
_MENTAL_HEALTH = _words(
    r"depress\w*", r"anxiety", r"adhd", r"autis\w*", r"bipolar", r"ptsd", r"ocd", r"panic attacks?",
    r"schizo\w*", r"eating disorder", r"anorexi\w*", r"bulimi\w*", r"mental health", r"antidepressants?",
    r"self[- ]harm\w*", r"burn-?out",
)


def is_mental_health(text: str) -> bool:
    """A mental-health condition: it bears on study, social occasions and how the user feels, not on food."""
    return bool(_MENTAL_HEALTH.search(text))


#: Gender identity (filed as sexuality): it bears on health care (a transition's hormones, doctors).
_GENDER_IDENTITY = _words(
    r"transgender", r"trans (?:woman|man|person|guy|girl)", r"i'?m trans", r"non-binary", r"nonbinary",
    r"transition(?:ed|ing)?", r"gender identity", r"gender dysphoria",
)


def is_gender_identity(text: str) -> bool:
    """Gender identity, as opposed to orientation: it bears on health care."""
    return bool(_GENDER_IDENTITY.search(text))


_SAFETY_TEXT = _words(
    r"allerg(?:y|ies|ic)", r"anaphyla\w*", r"epipen", r"celiac|coeliac", r"gluten[- ]free",
    r"lactose[- ]intolerant", r"intoleran(?:t|ce)", r"vegan", r"vegetarian", r"halal", r"kosher",
    r"diabet\w*", r"wheelchair", r"insulin", r"can't eat|cannot eat|can not eat", r"must avoid",
    r"deaf", r"hard of hearing", r"blind", r"visually impaired", r"mobility (?:aid|scooter|issues?)",
    r"crutch(?:es)?", r"walking (?:stick|frame)", r"step-free", r"hearing aids?", r"prosthe\w*",
)
