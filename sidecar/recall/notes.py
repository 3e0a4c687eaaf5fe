"""The notes of a recall: the discrepancies the assistant should say or confirm with the user (pure).

A live instruction overriding a stored default, an item possibly replaced by a later statement, an
important belief unconfirmed for long (the reasons are read by `exclusions`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sidecar.recall import policy
from sidecar.recall.exclusions import live_intent_notes
from sidecar.recall.models import NoteView, RecalledMemory


def notes_of(
    items: Sequence[RecalledMemory], suppressed: Sequence[tuple[str, str]], texts: Mapping[str, str]
) -> list[NoteView]:
    """The discrepancies to say or confirm (`exclusions`): each stored default a live instruction
    overrode (once: not again for the quote of that belief), each returned item possibly replaced or
    labelled superseded, each important belief unconfirmed for long."""
    confirm = "the stored default is left out this time; confirm whether this is a one-off or the new default"
    notes = [
        NoteView(kind="live_intent_override", memory_id=i, text=text, note=f"{why}: {confirm}")
        for i, text, why in live_intent_notes(suppressed, texts)
        if policy.OF_STATED_BELIEF not in why
    ]
    for item in items:
        if item.superseded or item.possibly_superseded:
            kind = "superseded" if item.superseded else "possibly_superseded"
            notes.append(NoteView(kind=kind, memory_id=item.id, text=item.text, note=item.note or kind))
        elif item.needs_confirmation:
            note = "an important belief not confirmed for half its half-life: worth asking again"
            notes.append(NoteView(kind="needs_confirmation", memory_id=item.id, text=item.text, note=note))
    return notes
