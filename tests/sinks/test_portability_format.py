"""The export format read back: every line that is not part of an export is refused, naming its line."""

from __future__ import annotations

import json

import pytest

from agents.portability import read_records
from sinks.errors import ExportFormatError
from sinks.portability import header_line, memory_line, parse_line
from tests.beliefs.test_reconcile import meeting


def test_a_memory_line_reads_back_as_the_same_memory():
    memory = meeting("m1", "mornings", state="superseded", superseded_by="m2")
    assert list(read_records([header_line(), "", memory_line(memory)])) == [memory]


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        ([], "the file is empty"),
        (["   "], "the file is empty"),
        (['{"turn_id": "t-1", "text": "hi"}'], "line 1: unknown kind None"),
        ([memory_line(meeting("m1", "x"))], "line 1: not a beliefstream-export file (the first line must be its header)"),
        (['{"kind": "header", "format": "beliefstream-export", "version": 2}'], "line 1: not a beliefstream-export version 1 header"),
        ([header_line(), "{not json"], "line 2: not JSON"),
        ([header_line(), "[1, 2]"], "line 2: expected a JSON object"),
        ([header_line(), '{"kind": "turn"}'], "line 2: unknown kind 'turn'"),
        ([header_line(), json.dumps({**json.loads(memory_line(meeting("m1", "x"))), "confidence": 7})],
         "line 2: invalid memory: confidence"),
        ([header_line(), '{"kind": "episode", "id": "e1"}'], "line 2: invalid episode: tenant_id"),
    ],
)  # fmt: skip
def test_what_is_not_an_export_is_refused_naming_the_line(lines, says):
    with pytest.raises(ExportFormatError) as refused:
        list(read_records(lines))
    assert says in str(refused.value)


def test_a_blank_line_is_nothing():
    assert parse_line("\n", 3) is None
