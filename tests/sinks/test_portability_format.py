"""The export format read back: every line that is not part of an export is refused, naming its line."""

from __future__ import annotations

import json

import pytest

from agents.portability import check_complete, read_records
from sinks.errors import ExportFormatError
from sinks.portability import end_line, header_line, memory_line, parse_line
from tests.beliefs.test_reconcile import meeting


def test_a_memory_line_reads_back_as_the_same_memory():
    memory = meeting("m1", "mornings", state="superseded", superseded_by="m2")
    assert list(read_records([header_line(), "", memory_line(memory), end_line(1)])) == [memory]


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
        ([header_line(), memory_line(meeting("m1", "x"))], "the file ends after 1 records without its end line"),
        ([header_line(), end_line(2)], "line 2: the end line counts 2 records, the file has 0"),
        ([header_line(), end_line(0), header_line()], "line 3: a line after the end line"),
        ([header_line(), '{"kind": "end", "records": "all"}'], "line 2: an end line needs its count of records"),
    ],
)  # fmt: skip
def test_what_is_not_an_export_is_refused_naming_the_line(lines, says):
    with pytest.raises(ExportFormatError) as refused:
        list(read_records(lines))
    assert says in str(refused.value)


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        ([], "the file is empty"),
        ([header_line(), memory_line(meeting("m1", "x"))], "the file ends at line 2 without its end line"),
        ([header_line(), memory_line(meeting("m1", "x")), end_line(3)], "line 3: the end line counts 3 records, the file has 1"),
    ],
)  # fmt: skip
def test_a_file_cut_short_is_told_before_anything_is_read(lines, says):
    with pytest.raises(ExportFormatError) as refused:
        check_complete(lines)
    assert says in str(refused.value)
    assert check_complete([header_line(), memory_line(meeting("m1", "x")), "", end_line(1), ""]) == 1


def test_a_blank_line_is_nothing():
    assert parse_line("\n", 3) is None
