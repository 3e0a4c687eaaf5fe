"""Issue 25, item 3: no question answers 5xx. Recall reads dates in the query; one the calendar
cannot hold ("5000 years ago", "in December 9999", a day count of a thousand digits, "yesterday"
counted from year 1) is passed over and named in `diagnostics.ignored_dates`.

A property test throws generated questions, anchors (`dates_relative_to`) and time ranges at
`POST /v1/recall` and at the MCP `recall_memories` tool, over the real store, index and model,
with episodes to quote (so the date window is used, not only read)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver.exceptions import ToolError

from sidecar.app import create_app
from sidecar.auth import ApiKeyAuthenticator
from sidecar.mcp_server import PrincipalResolver, local_tool_call
from sidecar.mcp_tools import McpTools
from sidecar.recall.models import MAX_QUERY_CHARS
from sidecar.recall.query_dates import MONTHS, read_dates
from streams.settings import Settings
from tests.sidecar.recall.episode_seeding import said, seed_said, with_memories
from tests.sidecar.recall.seeding import NOW, mem

KEY = "key-any-question"
HEADERS = {"Authorization": f"Bearer {KEY}"}

# -- the questions -----------------------------------------------------------------------------------

numbers = st.one_of(
    st.integers(0, 10**6).map(str),
    st.integers(0, 10**40).map(str),
    st.integers(1, 4500).map(lambda n: "9" * n),  # past what int() reads from text
    st.sampled_from(["a", "an", "one", "few", "couple", "0", "000"]),
)
units = st.sampled_from(["day", "days", "week", "weeks", "month", "months", "year", "years"])
months = st.sampled_from([*MONTHS, "jan", "Sept", "DEC", "may"])
years = st.one_of(st.integers(0, 9999).map(lambda y: f"{y:04d}"), st.integers(10_000, 99_999).map(str))
fragments = st.one_of(
    st.builds("{} {} ago".format, numbers, units),
    st.builds("{} {} of {} ago".format, numbers, units, units),
    st.builds("in {} {}".format, months, years),
    st.builds("on {} {} {}".format, st.integers(0, 99), months, years),
    st.builds("{} {}, {}".format, months, st.integers(0, 99), years),
    st.sampled_from(["yesterday", "last week", "last month", "last year", "last weekend"]),
    st.builds("last {}".format, months),
    st.builds("in {}".format, st.integers(1900, 2099)),
    st.sampled_from(["what did we do", "lake", "hiking", "?", "and", ""]),
    st.text(max_size=24),
)
questions = st.lists(fragments, max_size=5).map(" ".join).map(lambda q: q[:MAX_QUERY_CHARS])

offsets = st.builds(lambda minutes: timezone(timedelta(minutes=minutes)), st.integers(-23 * 60 - 59, 23 * 60 + 59))
EDGES = [datetime(1, 1, 1), datetime(1, 1, 2, 12), datetime(1, 3, 1), datetime(9999, 12, 31, 23, 59, 59)]
moments = st.one_of(
    st.sampled_from(EDGES),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
).flatmap(lambda at: st.sampled_from([at, at.replace(tzinfo=UTC)]) | offsets.map(lambda tz: at.replace(tzinfo=tz)))
anchors = st.none() | moments


@dataclass
class Served:
    http: httpx.AsyncClient
    tools: McpTools
    tenant: str


@pytest.fixture
async def served(world, tenant, publisher, tmp_path) -> AsyncIterator[Served]:
    then = said(tenant, "u1", "We spent the day at the lake.", days_ago=400)
    await seed_said(world, then, with_memories(then, mem(tenant, "u1", "The user likes the lake.")))
    await seed_said(world, said(tenant, "u1", "We went hiking on the ridge.", days_ago=10))
    settings = Settings(api_keys=f"{KEY}={tenant}", data_dir=tmp_path, rate_limit_burst=100_000)
    tools = McpTools(world.store, publisher, settings.max_turn_bytes, recall=world.service)
    app = create_app(settings, world.store, publisher, world.index, embedder=world.embedder, recall=world.service)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sidecar") as http:
        yield Served(http, tools, tenant)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(question=questions, anchor=anchors, since=st.none() | moments, until=st.none() | moments)
@example(question="what did I do 5000 years ago?", anchor=None, since=None, until=None)
@example(question="yesterday", anchor=datetime(1, 1, 1, tzinfo=UTC), since=None, until=None)
@example(question="what happened in December 9999?", anchor=None, since=None, until=None)
@example(question="3 months ago", anchor=datetime(9999, 12, 31, tzinfo=UTC), since=None, until=None)
@example(question="9" * 3000 + " days ago", anchor=None, since=None, until=None)
@example(question="lake", anchor=None, since=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))), until=None)
@example(  # a window the calendar holds in the anchor's zone but not in UTC, where the store compares it
    question="what did I decide last january?",
    anchor=datetime(1, 6, 1, tzinfo=timezone(timedelta(minutes=1))),
    since=None,
    until=None,
)
async def test_no_question_answers_5xx(served: Served, question, anchor, since, until) -> None:
    body = {"user_id": "u1", "query": question, "diagnostics": True, "dates_relative_to": _iso(anchor)}
    body |= {"since": _iso(since), "until": _iso(until)}

    response = await served.http.post("/v1/recall", json=body, headers=HEADERS)

    assert response.status_code < 500, response.text
    if response.status_code == 200:
        ignored = response.json()["diagnostics"]["ignored_dates"]
        assert ignored == list(read_dates(question, anchor or NOW).ignored)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(question=questions, since=st.none() | moments)
@example(question="what did I do 5000 years ago?", since=None)
@example(question="lake", since=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))))
async def test_no_question_is_an_unexpected_error_of_the_mcp_recall_tool(served: Served, question, since) -> None:
    call = local_tool_call(served.tools, PrincipalResolver(ApiKeyAuthenticator({KEY: (served.tenant, None)})))
    arguments = {"user_id": "u1", "query": question} | ({"since": since.isoformat()} if since else {})

    class Context:
        headers = {"authorization": f"Bearer {KEY}"}

    try:
        result = await call("recall_memories", Context(), arguments)  # type: ignore[arg-type]
    except ToolError as exc:  # a request error, worded; anything else is the tool's 500
        assert str(exc).startswith(("invalid_request:", "bad_request:")), exc
    else:
        assert "memories" in result


async def test_a_date_out_of_the_calendar_is_ignored_and_said(served: Served) -> None:
    question = {"user_id": "u1", "query": "what did we do at the lake 5000 years ago?", "diagnostics": True}
    anchored = {"user_id": "u1", "query": "hiking yesterday", "diagnostics": True, "dates_relative_to": "0001-01-01"}

    far = await served.http.post("/v1/recall", json=question, headers=HEADERS)
    early = await served.http.post("/v1/recall", json=anchored, headers=HEADERS)

    assert far.status_code == 200 and far.json()["diagnostics"]["ignored_dates"] == ["5000 years ago"]
    assert far.json()["diagnostics"]["time_window"] is None
    assert "lake" in " ".join(m["text"] for m in far.json()["memories"])  # the rest of the question still counts
    assert early.status_code == 200 and early.json()["diagnostics"]["ignored_dates"] == ["yesterday"]


def test_a_date_the_calendar_cannot_hold_gives_way_to_the_next_one_the_query_names() -> None:
    reading = read_dates("in December 9999, or rather in May 2020", NOW)

    assert reading.ignored == ("December 9999",)
    assert reading.window is not None and reading.window.said == "May 2020"
    assert reading.window.start == datetime(2020, 5, 1, tzinfo=NOW.tzinfo)
