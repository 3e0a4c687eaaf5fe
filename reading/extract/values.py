"""Cleaning of captured values: cut a phrase at the end of its clause, give it an article.

Regexes capture generously ("Acme Corp as a designer now"); a value has to be the thing
itself ("Acme Corp") or reconcile cannot compare it with the next one.
"""

from __future__ import annotations

import re

#: A value longer than this is not a name, a tool or a place; it is a paste.
MAX_VALUE_CHARS = 120
#: Memory texts are one or two sentences; anything longer is cut at a word boundary.
MAX_TEXT_CHARS = 300

_CLAUSE_END = re.compile(
    r"\s*(?:[,;:()\[\]\"!?]|\s-\s|\.(?:\s|$)|\b(?:and then|and I|and we|and it|but|because|cause|since|so|"
    r"which|who|where|when|while|though|although|as (?:a|an|the|my|well)|now|these days|lately|right now|"
    r"at the moment|anymore|any ?more|too|lol|haha|for (?:the|a|my|this|work|fun|now|years?|months?|\d)|"
    r"with (?:my|the|a|some)|in (?:my|the)|instead of|rather than|over|not|if|unless|after|before|"
    r"until|again|ever|lately|every|each|these|this (?:week|month|year|weekend)|last (?:week|month|year|night|\w+day)|"
    r"next (?:week|month|year|\w+day)|yesterday|today|tomorrow|\w+ (?:days|weeks|months|years) ago|"
    r"in (?:anything|everything|general|particular))\b).*",
    re.IGNORECASE | re.DOTALL,
)
_TRAILING_FILLER = re.compile(
    r"(?:\s+(?:of|and|&|the|a|an|to|for|at|in|on|with|de|la|my|it|that))+$", re.IGNORECASE
)
_LEADING_FILLER = re.compile(r"^(?:the|a|an|some|my)\s+", re.IGNORECASE)
_PRONOUN_OBJECT = re.compile(
    r"^(?:it|that|this|those|these|them|you|your|yours|him|her|his|us|everything|anything|something|"
    r"nothing|what|how|when|where|why|who|seeing|hearing|being|having|doing|getting|the idea|the way|"
    r"the fact|to see|to hear|to know|to be|it'?s|that'?s|one|all|so|such|spending|reading about|"
    r"hearing about|learning about|talking|chatting|everywhere|anywhere|there|here|everyone|everybody|people)\b",
    re.IGNORECASE,
)


def clip(value: str | None, max_words: int = 6) -> str | None:
    """The value cut at its clause end, without filler, at most `max_words` words; None if empty."""
    if not value:
        return None
    value = _CLAUSE_END.sub("", value.strip())
    value = _TRAILING_FILLER.sub("", value).strip(" .,'\"")
    words = value.split()
    if not words or len(words) > max_words or len(value) > MAX_VALUE_CHARS:
        return None
    return " ".join(words)


def clip_object(value: str | None, max_words: int = 6) -> str | None:
    """Like `clip`, but refuses pronouns and reactions ("it", "that", "you")."""
    value = clip(value, max_words)
    if value is None or _PRONOUN_OBJECT.match(value):
        return None
    return value


def bare(value: str) -> str:
    """The value without a leading article or possessive ("a startup" -> "startup")."""
    return _LEADING_FILLER.sub("", value)


def with_article(noun: str) -> str:
    """ "engineer" -> "an engineer"; a phrase that already has a determiner is kept."""
    if re.match(r"^(?:a|an|the|my|one|two|\d)\b", noun, re.IGNORECASE):
        return noun
    first = noun.split(" ", 1)[0]
    if len(first) > 1 and first.isupper() and first.isalpha():  # an acronym is said letter by letter
        return f"{'an' if first[0] in 'AEFHILMNORSX' else 'a'} {noun}"
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def bounded(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """The text cut at a word boundary to at most `limit` characters, ending with a period."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    return cut.rstrip(" ,;:.") + "."
