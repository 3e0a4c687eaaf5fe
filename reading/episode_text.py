"""What an episode's vector is made from: the turn with who said it and the turn it answers.

A reply is often meaningless alone ("Yes, last May"): the turn before it in the same session carries
the question it answers. And a question about a person is asked by name, which the turn rarely says.
So an episode's vector is made of two lines, `speaker: previous turn` and `speaker: turn`; the
stored and shown text stays the turn as said. `SessionTails.texts` joins them into one text to embed
(only the end of a long previous turn, where the question it asks usually is: the default);
`SessionTails.lines` gives them apart, to embed each line once and sum the two vectors
(`embedding.episode_vectors`, `Settings.episode_vector`).

The previous turn is the last episode of the same session this worker kept before it
(`SessionTails`), from the same batch or an earlier one; a turn whose session the worker has not
seen (the first after a restart) is embedded with its speaker only. Untrusted text (tool output,
pasted material) never lends its words to another turn.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from beliefs.episodes import Episode
from beliefs.records import Trust

#: Characters of the previous turn embedded with a turn (its end): about a third of the model's window.
PREVIOUS_CHARS = 200

#: Characters of a line kept for its vector: more than the model reads (128 tokens), and bounded, so a
#: remembered session costs little.
LINE_CHARS = 1000

#: Sessions whose last episode a worker remembers (least recently written forgotten first).
DEFAULT_SESSIONS = 10_000


def said_line(episode: Episode) -> str:
    """`speaker: text`, or the role's name when the turn names no speaker."""
    return f"{_speaker(episode)}: {episode.text}"


def embedded_text(episode: Episode, previous: Episode | None) -> str:
    """The text an episode's vector is embedded from: the previous turn's line, then its own."""
    return _framed(episode, _Said.of(previous) if previous is not None else None)


def tail(text: str, chars: int = PREVIOUS_CHARS) -> str:
    """The end of `text`, at most `chars` long, cut at a word boundary (`…` marks the cut)."""
    if len(text) <= chars:
        return text
    cut = text[-chars:]
    space = cut.find(" ")
    return "…" + (cut[space + 1 :] if 0 <= space < len(cut) - 1 else cut)


def _speaker(episode: Episode) -> str:
    return episode.speaker or episode.role.value


@dataclass(frozen=True)
class EpisodeLines:
    """The lines an episode's vector is made of: its own, and the previous turn's (None: none lent)."""

    own: str
    previous: str | None


@dataclass(frozen=True)
class _Said:
    """What a later turn needs of an episode: its line and, for a joined text, the end of it (both
    None: untrusted, it lends no words)."""

    id: str
    said_at: datetime
    line: str | None
    line_tail: str | None

    @classmethod
    def of(cls, episode: Episode) -> _Said:
        if episode.trust is Trust.UNTRUSTED:
            return cls(episode.id, episode.said_at, None, None)
        line = said_line(episode)[:LINE_CHARS]
        return cls(episode.id, episode.said_at, line, f"{_speaker(episode)}: {tail(episode.text)}")


def _framed(episode: Episode, previous: _Said | None) -> str:
    if previous is None or previous.line_tail is None:
        return said_line(episode)
    return f"{previous.line_tail}\n{said_line(episode)}"


def _session(episode: Episode) -> tuple[str, str, str] | None:
    if episode.session_id is None:
        return None
    return episode.tenant_id, episode.user_id, episode.session_id


class SessionTails:
    """The last episode of each recent session (only what the next turn needs of it: bounded)."""

    def __init__(self, sessions: int = DEFAULT_SESSIONS) -> None:
        if sessions < 0:
            raise ValueError(f"sessions must be >= 0, got {sessions}")
        self.sessions = sessions
        # per session: (the episode before the last, the last)
        self._last: OrderedDict[tuple[str, str, str], tuple[_Said | None, _Said]] = OrderedDict()

    def texts(self, episodes: Sequence[Episode | None]) -> list[str]:
        """Each episode's two lines joined in one text (see `lines`), the previous line's end only."""
        return [_framed(episode, previous) for episode, previous in self._walk(episodes)]

    def lines(self, episodes: Sequence[Episode | None]) -> list[EpisodeLines]:
        """The lines of each episode (None skipped), each seeing the one before it in its session;
        the tails then remember the last of each session. A turn said before the remembered one (a
        late turn) has its own line only and changes nothing; the remembered one read again (a batch
        retried turn by turn) sees the same turn before it."""
        return [
            EpisodeLines(said_line(episode)[:LINE_CHARS], previous.line if previous is not None else None)
            for episode, previous in self._walk(episodes)
        ]

    def _walk(self, episodes: Sequence[Episode | None]) -> list[tuple[Episode, _Said | None]]:
        out: list[tuple[Episode, _Said | None]] = []
        for episode in episodes:
            if episode is None:
                continue
            key = _session(episode)
            before, last = self._last.get(key, (None, None)) if key is not None else (None, None)
            if last is not None and last.id == episode.id:
                out.append((episode, before))
                continue
            if last is not None and last.said_at > episode.said_at:
                out.append((episode, None))
                continue
            out.append((episode, last))
            if key is not None and self.sessions:
                self._last[key] = (last, _Said.of(episode))
                self._last.move_to_end(key)
                while len(self._last) > self.sessions:
                    self._last.popitem(last=False)
        return out
