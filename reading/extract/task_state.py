"""Task state: what the user is doing in this conversation, which is working memory, not a belief.

"We decided to use Python for this task", "I'm debugging the login page right now": true for the
task at hand and noise in any later session, so neither extractor stores them as memories (the turn
stays an episode, evidence of what was said). A decision about a lasting thing ("I chose PostgreSQL
for this project") and an ongoing part of a life ("I'm working on a novel") are not task state; a
preference said for this chat only ("bullet points for this conversation") is a volatile state and
expires instead (`reading.extract.volatile`). Pure.
"""

from __future__ import annotations

import re

#: "for this task", "in this exercise": the scope is the work at hand.
_TASK_SCOPE = re.compile(
    r"(?i:\b(?:for|in|on|during|with)\s+(?:this|the\s+current)\s+(?:task|exercise|question|example|snippet|step|"
    r"request|prompt|one|answer|reply|ticket|bug|issue|pr|pull\s+request|assignment|kata|demo|session|conversation|"
    r"chat|thread|exchange|problem|function|file|script|query|test)\b)"
)
#: "I'm debugging ...", "we're stuck on ...": an activity in progress.
_IN_FLIGHT = re.compile(
    r"(?i:^(?:(?:ok|okay|so|right|well|btw|fyi|hey|anyway|ugh|currently|right\s+now|at\s+the\s+moment)[,\s]+)*(?:i'?m|i’m|i\s+am|we'?re|we’re|we\s+are)\s+"
    r"(?:(?:currently|just|still|now|actively|literally|basically)\s+)*"
    r"(?P<verb>debugging|troubleshooting|fixing|testing|stuck\s+(?:on|with)|trying\s+to\s+(?:fix|debug|get|figure|make|run|install|build|deploy|solve|understand|reproduce|compile|parse|load|connect|track|find|merge|rebase|patch)|working\s+on|"
    r"looking\s+(?:at|into)|refactoring|reviewing|editing|writing|running|deploying|installing|compiling|"
    r"setting\s+up|configuring|investigating|chasing|tracking\s+down|going\s+through|cleaning\s+up|"
    r"rewriting|profiling|benchmarking)\b)"
)
#: Activities that are in progress by their nature, whatever else the sentence says.
_ALWAYS_IN_FLIGHT = re.compile(r"(?i:^(?:debugging|troubleshooting|stuck|trying\s+to|tracking|chasing|profiling))")
#: The activity is said to be happening now.
_NOW = re.compile(
    r"(?i:^(?:currently|right\s+now|at\s+the\s+moment)\b|\b(?:right\s+now|at\s+the\s+moment|atm|currently|as\s+we\s+speak|just\s+now|this\s+(?:morning|afternoon|"
    r"evening)|today|tonight|for\s+now)\b|\b(?:this|these)\s+(?!(?:year|month|week|summer|winter|spring|autumn|fall|"
    r"semester|quarter)\b)\w+)"
)


def is_task_state(sentence: str) -> bool:
    """Whether the sentence states the work at hand rather than something lasting about the user."""
    stripped = sentence.strip()
    if _TASK_SCOPE.search(stripped):
        return True
    match = _IN_FLIGHT.match(stripped)
    if match is None:
        return False
    return bool(_ALWAYS_IN_FLIGHT.match(match.group("verb")) or _NOW.search(stripped))
