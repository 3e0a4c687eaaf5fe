"""The broad topic a claim is filed under: the namespace recall scopes by (seed 000: tech, work, ...).

An attribute that belongs to one topic decides first (`works_at` is work, `diet` health). Otherwise
the words vote: every keyword of the claim's text counts with its weight, compared by Snowball stem
("deploys", "deploying" and "deploy" meet), two-word terms as well ("pull request"), and the words
of the sentence it came from count at half weight, as context. A word that means different things
in different topics ("run", "show", "book", "bank") weighs little, so it decides only with a second
cue; a topic needs `MIN_SCORE` to win over another (an ambiguous word no other topic's word opposes
still decides), else the attribute's own topic or `default` stands.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

from beliefs.attributes import attribute_spec
from reading.extract.lexicon import CASE_SENSITIVE, canonical

#: Attributes whose value can be about anything: the words decide, else this topic stands.
OPEN_ATTRIBUTES = {
    "prefers": "personal", "likes": "personal", "dislikes": "personal", "hobby": "personal",
    "goal": "personal", "decision": "personal", "procedure": "personal", "avoid": "personal",
    "uses_tool": "tech",
}  # fmt: skip
#: A topic wins with at least this much weight: one clear word, or two ambiguous ones.
MIN_SCORE = 0.75
#: The weight of a word that belongs to a topic only sometimes.
AMBIGUOUS = 0.4
#: The weight of the source sentence's words beside the claim's own text.
CONTEXT_WEIGHT = 0.5

#: topic -> clear keywords (weight 1); surface words, stemmed when the table is built.
TOPIC_WORDS: dict[str, str] = {
    "tech": """code coding coder program programming software computer app apps api database linux github
        gitlab git deploy deployment laptop ai framework bug bugs debug debugging kubernetes k8s docker
        postgres postgresql sql mysql sqlite mongodb redis kafka python javascript typescript golang css
        html frontend backend devops repo repository commit merge lint linter linters compiler compile
        terminal vim neovim emacs vscode ide aws gcp azure terraform microservice microservices algorithm
        llm gpu cpu browser chrome firefox website wifi router iphone android ios macbook ubuntu regex
        refactor refactoring staging rollback hotfix endpoint schema jupyter pandas numpy react django
        flask fastapi npm pip cargo dependency dependencies pytest jest unittest dark-mode ci/cd cli
        keyboard smartphone tablet server servers cloud docs documentation tutorial tutorials
        changelog parser hosting developer developers figma mockup mockups wireframe wireframes prototype""",
    "work": """work job jobs career boss manager office meeting meetings standup stand-up company
        colleague colleagues coworker coworkers interview business startup employer employee employees
        hire hiring hired deadline deadlines presentation agency firm consultancy resign resigned layoff
        freelance freelancer freelancing workplace overtime onboarding okr okrs kpi stakeholder
        stakeholders internship intern promotion client clients workday commute commuting payroll
        coworking""",
    "health": """health healthy doctor doctors allergy allergies allergic gym workout workouts exercise
        exercising yoga marathon jog jogging sleep sleeping insomnia therapy therapist medication
        medicine meds pill pills injury injured fitness meditation meditate mental anxiety depression
        diabetes asthma cholesterol calories vitamin vitamins supplement supplements physio
        physiotherapy dentist surgery pregnant pregnancy symptom symptoms sick illness flu covid
        headache headaches migraine migraines pain pilates crossfit rehab checkup prescription insulin
        smoking sober vegan vegetarian dermatologist cardio blood-pressure wellbeing well-being stretch stretching
        wheelchair crutches disability disabled knee knees hip ankle wrist ligament skin eczema""",
    "food": """food foods cook cooking recipe recipes restaurant restaurants dinner lunch breakfast brunch
        bake baking pizza sushi coffee tea wine eat eating meal meals cuisine kitchen spicy flavor
        flavour chocolate cheese bread pasta curry ramen taco tacos burger burgers salad dessert
        desserts snack snacks vegetables fruit meat chicken beef pork seafood espresso latte
        cappuccino cocktail cocktails grocery groceries oven grill bbq barbecue sauce soup rice noodles
        sandwich steak tofu cake delicious tasty coriander cilantro garlic onion onions mushroom mushrooms
        olives avocado tomato tomatoes lentils beans spinach broccoli ginger cinnamon mustard ketchup
        mayonnaise yogurt butter honey herbs spices""",
    "travel": """travel travels travelling traveling trip trips flight flights vacation vacations holiday
        holidays hotel hotels abroad beach camping hike hiking airport passport visa luggage suitcase
        backpacking cruise airbnb hostel itinerary sightseeing jetlag layover destination resort
        overseas journey sailing skiing roadtrip road-trip""",
    "finance": """money budget budgeting invest investing investment investments stock stocks salary
        savings loan loans mortgage rent crypto bitcoin tax taxes debt expense expenses credit-card
        pension retirement 401k ira portfolio etf etfs dividend dividends income paycheck bills
        financial finance finances spending afford""",
    "entertainment": """movie movies film films music song songs band bands concert concerts novel novels
        gaming videogame videogames series netflix painting art guitar piano dance dancing photography
        festival museum tv anime manga podcast podcasts album albums playlist spotify theatre theater
        comedy drums violin chess boardgame puzzle puzzles knitting drawing sketching football soccer
        basketball baseball golf youtube twitch karaoke opera jazz poetry comics lego singing""",
    "personal": """family wife husband partner kid kids child children son sons daughter daughters mom
        mum dad mother father parent parents brother sister sibling siblings dog dogs
        cat cats pet pets puppy kitten birthday wedding married girlfriend boyfriend apartment
        neighbourhood neighborhood hometown grandma grandpa grandmother grandfather""",
}  # fmt: skip
#: topic -> words that belong to it only sometimes (weight `AMBIGUOUS`): "run" a race or the tests.
AMBIGUOUS_WORDS: dict[str, str] = {
    "tech": """test tests testing release releases push tag build builds pipeline branch data model
        models tab tabs spaces shell container package version script scripts editor library stack
        notebook python rust java ruby swift theme phone mac windows monitor production migration""",
    "work": """project projects team teams report reports customer customers contract shift shifts remote
        hybrid raise quit sprint slack email emails department hospital bank school""",
    "health": """run runs running ran diet weight weights lift lifting swim swimming cycling walk walking
        steps hospital stress tennis drink drinking alcohol caffeine protein""",
    "food": """dish dishes beer taste drink drinks fish cookie cookies milk order""",
    "travel": """visit visited visiting fly flying train trains tour country city cities abroad trip ski""",
    "finance": """bank buy bought spend spent price cost cheap expensive pay paid insurance shares save""",
    "entertainment": """book books read reading game games show shows play playing played watch watching
        paint sport sports match rock streaming author actor singer""",
    "personal": """home house move moved name age friend friends door doors lock bed bedroom garden plants chores
        laundry cleaning""",
}  # fmt: skip

_STEMMER = Stemmer.Stemmer("english")
_WORD = re.compile(r"[a-z0-9][a-z0-9+#/'-]*")


@lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word.strip("'-"))


#: Phrases that say when, not what ("I run every morning before work" is not about work), and
#: idioms whose words mislead ("sleep on it").
_NEUTRAL = re.compile(
    r"\b(?:(?:before|after|from|since)\s+(?:work|school|class|dinner|lunch|breakfast|bed|the\s+gym)|sleep\s+on\s+it)\b"
)


def _terms(text: str) -> list[str]:
    """The stems of a text, a two-word term ("pull request") in place of its two words."""
    stems = [_stem(word) for word in _WORD.findall(_NEUTRAL.sub(" ", text.lower().replace("’", "'")))]
    terms: list[str] = []
    at = 0
    while at < len(stems):
        pair = f"{stems[at]} {stems[at + 1]}" if at + 1 < len(stems) else ""
        if pair in _PHRASE_KEYS:
            terms.append(pair)
            at += 2
        else:
            terms.append(stems[at])
            at += 1
    return terms


def _key(word: str) -> str:
    return " ".join(_stem(part) for part in word.replace("-", " ").split())


def _table() -> dict[str, dict[str, float]]:
    """stem (or "stem stem") -> {topic: weight}: a word may count for two topics ("bank")."""
    entries = [(word, topic, AMBIGUOUS) for topic, words in AMBIGUOUS_WORDS.items() for word in words.split()]
    entries += [(word, topic, 1.0) for topic, words in TOPIC_WORDS.items() for word in words.split()]
    entries += [(phrase, topic, 1.0) for phrase, topic in _PHRASES.items()]
    table: dict[str, dict[str, float]] = {}
    for word, topic, weight in entries:
        weights = table.setdefault(_key(word), {})
        weights[topic] = max(weights.get(topic, 0.0), weight)
    return table


#: Two-word terms that name a topic when their words alone would not.
_PHRASES = {
    "pull request": "tech", "code review": "tech", "unit test": "tech", "test suite": "tech",
    "machine learning": "tech", "dark mode": "tech", "light mode": "tech", "command line": "tech",
    "blood pressure": "health", "back pain": "health", "mental health": "health", "credit card": "finance",
    "index fund": "finance", "road trip": "travel", "video game": "entertainment",
    "board game": "entertainment", "ice cream": "food", "oat milk": "food", "performance review": "work",
    "smoke test": "tech", "web design": "tech",
}  # fmt: skip
_KEYWORDS = _table()
_PHRASE_KEYS = frozenset(key for key in _KEYWORDS if " " in key)


def topic_scores(text: str, context: str = "") -> dict[str, float]:
    """Each topic's weight in `text`, with `context`'s words at `CONTEXT_WEIGHT`."""
    scores: dict[str, float] = {}
    for words, scale in ((text, 1.0), (context, CONTEXT_WEIGHT)):
        for term in _terms(words) if words else ():
            for topic, weight in _KEYWORDS.get(term, {}).items():
                scores[topic] = scores.get(topic, 0.0) + weight * scale
    return scores


def topic_of(text: str, attribute: str | None = None, context: str = "", default: str = "personal",
             value: str | None = None) -> str:  # fmt: skip
    """The topic of a claim: its attribute's when that names one, a known tool's or language's for
    its value, else the best-scored words' (the attribute's fallback or `default` when none win)."""
    spec = attribute_spec(attribute)
    if spec is not None and attribute not in OPEN_ATTRIBUTES:
        return spec.topic
    known = canonical(value) if value and not (value.lower() in CASE_SENSITIVE and value.islower()) else None
    if known is not None:
        return attribute_spec(known[0]).topic  # type: ignore[union-attr]
    fallback = OPEN_ATTRIBUTES.get(attribute or "", default)
    scores = topic_scores(text, context)
    if not scores:
        return fallback
    best = max(scores, key=lambda topic: (scores[topic], topic == fallback))
    if scores[best] >= MIN_SCORE or len(scores) == 1:  # a lone ambiguous word, unopposed, still says it
        return best
    return fallback
