"""Word lists the rules extractor classifies values with: one place to extend vocabulary.

A value said after "I use ..." means different attributes depending on what it is (pytest is
a test framework, Neovim an editor, Rust a language); these maps decide, and give each value
its canonical spelling so "vscode" and "VS Code" reconcile as one.
"""

from __future__ import annotations

import re

PROGRAMMING_LANGUAGES = {
    "python": "Python", "rust": "Rust", "go": "Go", "golang": "Go", "java": "Java", "kotlin": "Kotlin",
    "javascript": "JavaScript", "js": "JavaScript", "typescript": "TypeScript", "ts": "TypeScript",
    "c++": "C++", "cpp": "C++", "c#": "C#", "csharp": "C#", "ruby": "Ruby", "php": "PHP", "swift": "Swift",
    "scala": "Scala", "haskell": "Haskell", "elixir": "Elixir", "erlang": "Erlang", "clojure": "Clojure",
    "julia": "Julia", "r": "R", "perl": "Perl", "lua": "Lua", "dart": "Dart", "zig": "Zig", "ocaml": "OCaml",
    "f#": "F#", "c": "C", "objective-c": "Objective-C", "matlab": "MATLAB", "fortran": "Fortran", "nim": "Nim",
}  # fmt: skip
EDITORS = {
    "vim": "Vim", "neovim": "Neovim", "nvim": "Neovim", "emacs": "Emacs", "vscode": "VS Code",
    "vs code": "VS Code", "visual studio code": "VS Code", "visual studio": "Visual Studio",
    "intellij": "IntelliJ IDEA", "intellij idea": "IntelliJ IDEA", "pycharm": "PyCharm",
    "webstorm": "WebStorm", "goland": "GoLand", "sublime": "Sublime Text", "sublime text": "Sublime Text",
    "atom": "Atom", "nano": "nano", "helix": "Helix", "zed": "Zed", "cursor": "Cursor", "xcode": "Xcode",
    "eclipse": "Eclipse", "rider": "Rider", "clion": "CLion", "android studio": "Android Studio",
}  # fmt: skip
TEST_FRAMEWORKS = {
    "pytest": "pytest", "unittest": "unittest", "nose": "nose", "jest": "Jest", "mocha": "Mocha",
    "vitest": "Vitest", "jasmine": "Jasmine", "rspec": "RSpec", "minitest": "Minitest", "junit": "JUnit",
    "testng": "TestNG", "cypress": "Cypress", "playwright": "Playwright", "hypothesis": "Hypothesis",
    "doctest": "doctest", "xunit": "xUnit", "nunit": "NUnit", "ava": "AVA", "tape": "tape",
}  # fmt: skip
NATURAL_LANGUAGES = {
    name.lower(): name
    for name in (
        "English Spanish French German Portuguese Italian Japanese Chinese Mandarin Cantonese Korean "
        "Hindi Arabic Russian Dutch Swedish Norwegian Danish Finnish Polish Turkish Vietnamese Thai "
        "Indonesian Greek Hebrew Czech Hungarian Romanian Ukrainian Bengali Urdu Tamil Persian Farsi "
        "Swahili Tagalog Malay Catalan Irish Welsh"
    ).split()
}
#: Values that are also everyday words ("go", "atom"): only taken when written as the tool's name.
CASE_SENSITIVE = frozenset(
    {
        "go",
        "c",
        "r",
        "ts",
        "js",
        "atom",
        "cursor",
        "nose",
        "tape",
        "ava",
        "rider",
        "eclipse",
        "helix",
        "zed",
        "nano",
        "julia",
        "ruby",
        "swift",
        "dart",
        "lua",
        "nim",
    }
)
THEMES = {"dark": "dark", "light": "light", "dark mode": "dark", "light mode": "light"}

ROLE_NOUNS = (
    "engineer|developer|programmer|coder|designer|doctor|physician|surgeon|nurse|teacher|professor|"
    "student|manager|lawyer|attorney|accountant|chef|cook|baker|artist|painter|writer|author|novelist|"
    "musician|scientist|researcher|analyst|consultant|architect|dentist|pharmacist|therapist|"
    "counselor|counsellor|psychologist|psychiatrist|firefighter|officer|pilot|mechanic|electrician|"
    "plumber|carpenter|farmer|photographer|journalist|reporter|entrepreneur|founder|co-founder|ceo|cto|"
    "cfo|coo|vp|director|intern|freelancer|contractor|veterinarian|vet|librarian|worker|barista|waiter|"
    "waitress|cashier|driver|salesperson|recruiter|marketer|dancer|singer|actor|actress|athlete|coach|"
    "trainer|gamer|streamer|youtuber|blogger|podcaster|volunteer|paramedic|soldier|veteran|retiree|"
    "homemaker|tester|administrator|admin|sysadmin|technician|instructor|tutor|translator|model|lead|"
    "economist|statistician|mathematician|physicist|chemist|biologist|professional|specialist|"
    "assistant|secretary|clerk|banker|trader|investor|realtor|agent|scrum master|product owner|sre|"
    "devops|mom|mother|dad|father|parent|grandmother|grandfather|grandparent|wife|husband|woman|man|"
    "activist|advocate|mentor|player|fan"
)
#: What an employer is when it is described rather than named ("a fintech startup", "a law firm").
EMPLOYER_NOUNS = (
    "company|companies|startup|start-up|scale-up|scaleup|agency|firm|consultancy|consulting firm|corporation|corp|"
    "multinational|conglomerate|enterprise|business|bank|insurer|insurance company|hedge fund|fund|nonprofit|"
    "non-profit|charity|ngo|foundation|institute|university|college|school|academy|hospital|clinic|practice|"
    "pharmacy|lab|laboratory|studio|publisher|publishing house|newspaper|magazine|broadcaster|newsroom|restaurant|"
    "cafe|café|bakery|bar|pub|brewery|winery|hotel|shop|store|boutique|supermarket|retailer|chain|factory|plant|"
    "warehouse|manufacturer|garage|dealership|salon|gym|library|museum|gallery|theatre|theater|airline|airport|"
    "council|ministry|government agency|government department|department store|call center|call centre|"
    "nursing home|care home|daycare|nursery|farm|vineyard|co-op|cooperative|organisation|organization|"
    "outfit|telco|utility|provider|unicorn|government|civil service|military|army|navy|police force"
)
PARENT_ROLES = frozenset(
    {"mom", "mother", "dad", "father", "parent", "grandmother", "grandfather", "grandparent"}
)
IDENTITY_ROLES = frozenset({"woman", "man", "wife", "husband", "fan", "player"})

DIETS = {
    "vegetarian": "vegetarian", "vegan": "vegan", "pescatarian": "pescatarian", "pescetarian": "pescatarian",
    "keto": "keto", "paleo": "paleo", "gluten-free": "gluten-free", "gluten free": "gluten-free",
    "kosher": "kosher", "halal": "halal", "carnivore": "carnivore", "flexitarian": "flexitarian",
    "lactose intolerant": "lactose-intolerant", "dairy-free": "dairy-free", "dairy free": "dairy-free",
    "plant-based": "plant-based", "plant based": "plant-based", "low-carb": "low-carb", "low carb": "low-carb",
}  # fmt: skip
DIET_PATTERN = "|".join(sorted((re.escape(key) for key in DIETS), key=len, reverse=True))

PETS = (
    "dogs?|cats?|puppy|puppies|pup|kittens?|kitty|hamsters?|rabbits?|bunny|bunnies|parrots?|birds?|"
    "fish|goldfish|turtles?|tortoises?|guinea pigs?|horses?|snakes?|lizards?|geckos?|ferrets?|"
    "chickens?|pony|ponies|mice|rats?|labradors?|retrievers?|poodles?|collies?|terriers?|spaniels?|beagles?|huskies|husky|"
    "dachshunds?|bulldogs?|pugs?|corgis?|shepherds?|chihuahuas?|greyhounds?|whippets?|schnauzers?|rottweilers?|"
    "sheepdogs?|tabby|tabbies|budgies?|cockatiels?|canaries|canary|axolotls?"
)
CHILDREN = "kids?|children|child|sons?|daughters?|boys?|girls?|twins|toddlers?|babies|baby"

ACCESSIBILITY = {
    "colorblind": "colorblind", "color blind": "colorblind", "colour blind": "colorblind",
    "colourblind": "colorblind", "deaf": "deaf", "blind": "blind", "hard of hearing": "hard of hearing",
    "visually impaired": "visually impaired", "dyslexic": "dyslexia", "dyslexia": "dyslexia",
    "low vision": "low vision", "a screen reader": "uses a screen reader", "screen reader": "uses a screen reader",
    "adhd": "ADHD", "autistic": "autism",
}  # fmt: skip
ACCESSIBILITY_PHRASES = {
    "colorblind": "is colorblind", "deaf": "is deaf", "blind": "is blind", "hard of hearing": "is hard of hearing",
    "visually impaired": "is visually impaired", "dyslexia": "has dyslexia", "low vision": "has low vision",
    "uses a screen reader": "uses a screen reader", "ADHD": "has ADHD", "autism": "is autistic",
}  # fmt: skip
ACCESSIBILITY_PATTERN = "|".join(sorted((re.escape(key) for key in ACCESSIBILITY), key=len, reverse=True))

CONDITIONS = (
    "diabetes|type 1 diabetes|type 2 diabetes|asthma|celiac(?: disease)?|coeliac(?: disease)?|epilepsy|"
    "migraines?|arthritis|hypertension|high blood pressure|anxiety|depression|insomnia|eczema|"
    "crohn'?s(?: disease)?|ibs|copd|cancer|a heart condition|long covid|ptsd|ocd|bipolar disorder|"
    "sleep apnea|lupus|multiple sclerosis|ms|fibromyalgia|a bad back|back pain|a bad knee"
)

#: "I'm diabetic" -> the condition's name.
CONDITION_OF_ADJECTIVE = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy",
                          "celiac": "celiac disease", "coeliac": "celiac disease", "anemic": "anemia",
                          "anaemic": "anemia"}  # fmt: skip


def canonical(value: str) -> tuple[str, str] | None:
    """(attribute, canonical value) for a value that names a known tool, language or theme."""
    key = value.strip().lower().rstrip(".")
    for attribute, table in (
        ("preferred_test_framework", TEST_FRAMEWORKS),
        ("preferred_editor", EDITORS),
        ("preferred_programming_language", PROGRAMMING_LANGUAGES),
        ("preferred_theme", THEMES),
    ):
        if key in table:
            return attribute, table[key]
    return None
