"""What a sentence is about and what it asks to do: domains and verb families, by meaning not spelling.

Constraints fire on an action in a domain ("never recommend sushi" → recommend / restaurant),
sensitive memories surface only in their domain, and safety facts (an allergy) surface whenever a
request is in theirs (food). All three need the same two readings of a sentence: which domains it
touches (`domains_of`) and which action family a verb belongs to (`action_family`). Pure.
"""

from __future__ import annotations

import re

#: Verb stem → action family: "suggest" and "propose" ask for what "recommend" does.
ACTION_FAMILIES: dict[str, str] = {
    "recommend": "recommend", "suggest": "recommend", "propose": "recommend", "advise": "recommend",
    "pick": "recommend", "choose": "recommend", "find": "recommend", "point me to": "recommend",
    "what should": "recommend", "where should": "recommend", "ideas": "recommend", "options": "recommend",
    "book": "book", "reserve": "book", "schedule": "schedule", "plan": "schedule", "arrange": "schedule",
    "call": "contact", "phone": "contact", "ring": "contact", "email": "contact", "text": "contact",
    "message": "contact", "contact": "contact", "ping": "contact", "dm": "contact", "reach": "contact",
    "order": "order", "buy": "order", "purchase": "order",
    "merge": "merge", "auto-merge": "auto-merge", "deploy": "deploy", "push": "push",
    "use": "use", "mention": "mention", "bring up": "bring up", "remind": "remind",
    "play": "play", "invite": "invite", "share": "share", "post": "post",
}  # fmt: skip

#: Domain → the words that place a sentence in it. One vocabulary for constraints, sensitivity and safety.
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "food": (
        "restaurant", "restaurants", "dinner", "lunch", "brunch", "breakfast", "eat", "eating", "food",
        "cafe", "café", "bistro", "diner", "takeout", "take-out", "meal", "meals", "cook", "cooking",
        "recipe", "recipes", "dish", "dishes", "bake", "baking", "snack", "snacks", "menu", "cuisine",
        "sushi", "pizza", "burger", "dessert", "grocery", "groceries", "ingredient", "ingredients",
        "catering", "place to eat", "tonight's dinner", "drink", "drinks", "bar", "pub",
        # what is eaten or drunk: a constraint on it ("nothing with cilantro") is about food
        "coffee", "coffee shop", "tea", "wine", "beer", "cocktail", "cocktails", "juice", "smoothie",
        "salad", "soup", "sandwich", "curry", "noodles", "pasta", "steak", "taco", "tacos", "kebab", "bakery",
        "meat", "beef", "pork", "chicken", "lamb", "fish", "seafood", "shellfish", "egg", "eggs", "cheese",
        "dairy", "gluten", "nuts", "peanut", "peanuts", "garlic", "onion", "onions", "mushroom",
        "mushrooms", "cilantro", "coriander", "chili", "chilli", "spicy", "sweets", "chocolate", "fast food",
        "takeaway", "vegetarian", "vegan", "burger joint", "burger joints", "kosher", "halal", "calories",
    ),
    "medication": (
        "medication", "medicine", "medicines", "pill", "pills", "drug", "drugs", "prescription",
        "dose", "dosage", "pharmacy", "painkiller", "painkillers", "ibuprofen", "aspirin",
        "paracetamol", "antibiotic", "antibiotics", "vaccine", "supplement", "supplements",
    ),
    "travel": (
        "travel", "traveling", "travelling", "trip", "trips", "flight", "flights", "fly", "flying",
        "hotel", "hotels", "airbnb", "vacation", "holiday", "itinerary", "airport", "airline",
        "abroad", "visit", "visiting", "tour", "road trip", "pack", "packing", "hostel",
    ),
    "activities": (
        "activity", "activities", "hike", "hiking", "run", "running", "gym", "workout", "exercise",
        "sport", "sports", "climb", "climbing", "swim", "swimming", "bike", "cycling", "yoga",
        "weekend plans", "outing", "adventure", "ski", "skiing", "dance", "class", "excursion",
        "picnic", "picnics", "outdoors", "outdoor", "countryside", "camping", "campsite", "festival", "beach",
    ),
    "health": (
        "health", "doctor", "doctors", "symptom", "symptoms", "diagnosis", "therapy", "therapist",
        "medical", "hospital", "sick", "illness", "condition", "treatment", "clinic", "appointment",
        "mental health", "allergy", "allergies", "diet", "nutrition",
        # how the user feels, said without a medical word ("I'm exhausted all the time")
        "tired", "exhausted", "exhaustion", "fatigue", "fatigued", "no energy", "low energy", "insomnia",
        "can't sleep", "trouble sleeping", "hormone", "hormones", "wellbeing", "well-being",
    ),
    "religion": (
        "religion", "religious", "church", "mosque", "synagogue", "temple", "pray", "prayer", "faith",
        "worship", "ramadan", "easter", "passover", "diwali", "sabbath", "spiritual",
    ),
    "sexuality": (
        "dating", "date", "sexuality", "orientation", "partner", "relationship", "lgbt", "lgbtq",
        "pride", "coming out",
    ),
    "politics": (
        "politics", "political", "election", "elections", "vote", "voting", "campaign",
        "policy", "government", "candidate", "protest", "political party", "party member", "party conference",
        "canvass", "canvassing", "manifesto", "parliament", "referendum",
    ),
    "finances": (
        "money", "finance", "finances", "financial", "budget", "budgeting", "invest", "investing",
        "investment", "loan", "loans", "mortgage", "tax", "taxes", "salary", "bank", "savings", "debt",
        "spend", "spending", "afford", "price", "cost", "expensive", "cheap", "retirement",
        "pay review", "pay rise", "pay raise", "pay cut", "paycheck", "payslip", "wage", "wages", "bonus",
        "compensation",
    ),
    "location": (
        "address", "deliver", "delivered", "delivery", "ship", "shipped", "shipping", "directions", "nearby", "near me",
        "where do i live", "home address", "pick me up", "route", "commute",
    ),
    # where a condition or an observance bears though no medical or religious word is said
    "study": (
        "study", "studying", "studies", "exam", "exams", "revision", "revising", "homework", "coursework",
        "lecture", "lectures", "thesis", "dissertation", "tutoring",
    ),
    "social": (
        "party", "parties", "wedding", "weddings", "networking", "gathering", "get-together", "reunion",
        "meetup", "crowd", "crowds", "small talk", "mingle", "mingling", "socialising", "socializing",
    ),
    "schedule": ("schedule", "scheduling", "calendar", "timetable", "agenda", "routine"),
    "restaurant": ("restaurant", "restaurants", "dinner", "lunch", "brunch", "place to eat", "cafe", "bistro"),
    "hotel": ("hotel", "hotels", "motel", "hostel", "airbnb", "accommodation", "stay"),
    "flight": ("flight", "flights", "airline", "airlines", "fly", "flying", "airport"),
    "movie": ("movie", "movies", "film", "films", "cinema", "show", "shows", "series", "watch"),
    "book": ("book", "books", "novel", "novels", "author", "authors", "read", "reading"),
    "music": ("song", "songs", "music", "band", "bands", "album", "albums", "artist", "playlist"),
    "recipe": ("recipe", "recipes", "dish", "dishes", "cook", "cooking", "bake", "baking"),
    "meeting": ("meeting", "meetings", "standup", "standups", "call", "calls"),
}  # fmt: skip

#: Domains that contain others: a request for food is a request the restaurant domain serves.
DOMAIN_PARENTS: dict[str, frozenset[str]] = {
    "restaurant": frozenset({"food"}),
    "recipe": frozenset({"food"}),
    "hotel": frozenset({"travel"}),
    "flight": frozenset({"travel"}),
}

#: Spellings of a domain name → the domain ("dining" is "food").
DOMAIN_ALIASES: dict[str, str] = {
    "dining": "food", "restaurants": "restaurant", "eating": "food", "cuisine": "food", "meal": "food",
    "meals": "food", "cooking": "recipe", "recipes": "recipe", "hotels": "hotel", "flights": "flight",
    "trip": "travel", "trips": "travel", "movies": "movie", "films": "movie", "film": "movie",
    "books": "book", "songs": "music", "medicine": "medication", "medications": "medication",
    "drugs": "medication", "activity": "activities", "sport": "activities", "sports": "activities",
    "money": "finances", "finance": "finances", "financial": "finances", "meetings": "meeting",
    "fitness": "activities", "exercise": "activities", "studying": "study", "education": "study",
    "calendar": "schedule", "party": "social", "parties": "social",
}  # fmt: skip


#: Every domain this vocabulary can read: a request domain outside it ("electronics") is read from the query.
KNOWN_DOMAINS: frozenset[str] = frozenset(DOMAIN_WORDS) | frozenset().union(*DOMAIN_PARENTS.values())


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
    return re.compile(rf"(?i:(?<![\w-])(?:{alternatives})(?:s|es)?(?![\w-]))")  # plurals: "foods", "dishes"


_DOMAIN_PATTERNS: dict[str, re.Pattern[str]] = {name: _pattern(words) for name, words in DOMAIN_WORDS.items()}
_STEM = re.compile(r"[^a-z -]")
#: Words of a domain used as a figure of speech: "sick of monthly fees" is weariness, not health.
_FIGURATIVE = re.compile(r"(?i:\bsick (?:of|and tired|to death)\b|\bsick to (?:my|the) (?:back )?teeth\b)")


def canonical_domain(name: str) -> str:
    """One name per domain: "Dining" → "food", "restaurants" → "restaurant"."""
    folded = name.strip().casefold()
    return DOMAIN_ALIASES.get(folded, folded)


def widened(domains: set[str] | frozenset[str]) -> frozenset[str]:
    """`domains` with the domains containing them (restaurant → food)."""
    found = set(domains)
    for domain in domains:
        found |= DOMAIN_PARENTS.get(domain, frozenset())
    return frozenset(found)


def domains_of(text: str) -> frozenset[str]:
    """Every domain whose words appear in `text`, widened to the domains containing them. A word read
    inside a longer phrase of an unrelated domain belongs to that phrase: a party member is no party."""
    if not text:
        return frozenset()
    text = _FIGURATIVE.sub(" ", text)
    spans = {name: [m.span() for m in pattern.finditer(text)] for name, pattern in _DOMAIN_PATTERNS.items()}
    spans = {name: found for name, found in spans.items() if found}
    if len(spans) < 2:
        return widened(set(spans))
    return widened({name for name, found in spans.items() if any(not _inside(span, name, spans) for span in found)})


def _inside(span: tuple[int, int], name: str, spans: dict[str, list[tuple[int, int]]]) -> bool:
    """`span` of domain `name` lies within a longer match of a domain unrelated to it."""
    start, end = span
    return any(
        other != name
        and not (widened({other}) & widened({name}))
        and s <= start and end <= e and e - s > end - start
        for other, found in spans.items()
        for s, e in found
    )  # fmt: skip


def action_family(verb: str) -> str:
    """The family of an action verb, whatever its form: "Suggesting" → "recommend"; unknown → itself."""
    folded = _STEM.sub("", verb.strip().casefold()).strip()
    if folded in ACTION_FAMILIES:
        return ACTION_FAMILIES[folded]
    for stem in sorted(ACTION_FAMILIES, key=len, reverse=True):
        if folded.startswith(stem) and len(folded) - len(stem) <= 3:  # suggests, suggesting, booked
            return ACTION_FAMILIES[stem]
        if stem.endswith("e") and folded.startswith(stem[:-1]) and folded[len(stem) - 1 :] in ("ing", "ed"):
            return ACTION_FAMILIES[stem]
    return folded


#: Verbs read from a query when the caller names no action: only those that are seldom anything else
#: ("book", "text", "find", "order" are nouns or vaguer as often as they ask for the action).
INFERRED_VERBS = (
    "recommend", "suggest", "propose", "advise", "what should", "where should", "reserve", "schedule",
    "call", "phone", "email", "contact", "deploy", "merge", "auto-merge", "remind", "invite",
)  # fmt: skip

_ACTION_WORDS = re.compile(
    r"(?i:(?<![\w-])(" + "|".join(sorted((re.escape(v) for v in INFERRED_VERBS), key=len, reverse=True))
    + r")(?:s|es|ed|ing)?(?![\w-]))"
)


def action_in(text: str) -> str | None:
    """The family of the first action verb a sentence uses ("could you suggest a bar" → recommend)."""
    found = _ACTION_WORDS.search(text or "")
    return ACTION_FAMILIES[found.group(1).casefold()] if found else None


def domains_match(trigger_domain: str, request_domains: frozenset[str]) -> bool:
    """A trigger's domain is met by a request in it or in the domain containing it: a constraint on
    restaurants (never recommend sushi) also holds for a food request (what should I cook?)."""
    return bool(widened({canonical_domain(trigger_domain)}) & widened(request_domains))
