"""`/console`: our own static files under a strict Content-Security-Policy, served from a fixed list,
and written so that no data can become markup (checked in the files themselves; the browser test in
tests/integration/test_console.py shows it on hostile text)."""

from __future__ import annotations

import re

import pytest

from sidecar.routes.console import CONSOLE_DIR

FILES = sorted(p.name for p in CONSOLE_DIR.iterdir())


async def test_the_page_and_every_file_carry_the_strict_policy(client):
    for path in ["/console", *(f"/console/{name}" for name in FILES if name != "index.html")]:
        response = await client.get(path)
        assert response.status_code == 200, path
        policy = dict(part.strip().split(" ", 1) for part in response.headers["content-security-policy"].split(";"))
        assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'"
        assert policy["style-src"] == "'self'" and policy["frame-ancestors"] == "'none'"
        assert policy["require-trusted-types-for"] == "'script'" and policy["object-src"] == "'none'"
        assert "unsafe" not in response.headers["content-security-policy"]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert "set-cookie" not in response.headers
    assert (await client.get("/console/app.js")).headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize("path", ["/console/nope.js", "/console/..%2Fapp.py", "/console/%2e%2e/routes/console.py"])
async def test_only_the_consoles_own_files_are_served(client, path):
    assert (await client.get(path)).status_code == 404


async def test_the_console_needs_no_key_to_load_and_grants_nothing_by_itself(client):
    assert (await client.get("/console")).status_code == 200
    assert (await client.get("/v1/users/u-1/memories", headers={"Referer": "http://sidecar/console"})).status_code == 401


def test_the_page_has_no_inline_script_or_style_and_loads_nothing_from_elsewhere():
    page = (CONSOLE_DIR / "index.html").read_text()
    for tag in re.findall(r"<script\b[^>]*>", page):
        assert 'src="/console/' in tag
    assert not re.search(r"<script\b[^>]*>\s*[^<\s]", page)  # no script body
    assert "<style" not in page and " style=" not in page and not re.search(r"\son[a-z]+=", page)
    every = "\n".join((CONSOLE_DIR / name).read_text() for name in FILES)
    assert not re.search(r"https?://", every.replace("http://www.w3.org/2000/svg", ""))


@pytest.mark.parametrize("name", [name for name in FILES if name.endswith(".js")])
def test_scripts_build_the_page_from_text_never_from_markup(name):
    source = (CONSOLE_DIR / name).read_text()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                 "localStorage", "document.cookie"):  # fmt: skip
        assert sink not in source, f"{name} uses {sink}"
