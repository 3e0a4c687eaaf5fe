"""docs/api.md stays in step with the sidecar's OpenAPI: a new route or field fails here until the
reference is regenerated."""

from pathlib import Path

import pytest

from sidecar.api_reference import MARKER, REGENERATE, full_app_openapi, regenerated, render, split

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_docs_api_md_is_in_step_with_the_openapi_of_the_app():
    openapi = full_app_openapi()
    assert DOCUMENT.read_text() == regenerated(DOCUMENT, openapi), (
        f"docs/api.md is out of step with /openapi.json (a route, field or description changed): "
        f"run `{REGENERATE}` and commit docs/api.md"
    )


def test_every_route_and_schema_of_the_app_is_in_the_reference():
    openapi = full_app_openapi()
    generated = split(DOCUMENT.read_text())[1]
    for path, operations in openapi["paths"].items():
        for method in operations:
            assert f"### `{method.upper()} {path}`" in generated
    for name in openapi["components"]["schemas"]:
        assert f"### {name}\n" in generated
    assert "`POST /mcp`" not in generated  # MCP is described in the prose, not as a route


def test_a_new_field_changes_the_rendering():
    schema = {"properties": {"query": {"type": "string", "description": "the next turn"}}, "required": ["query"]}
    openapi = {"paths": {}, "components": {"schemas": {"RecallRequest": schema}}}
    before = render(openapi)
    schema["properties"]["since"] = {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]}
    after = render(openapi)
    assert before != after
    assert "| `since` | date-time \\| null | no |  |  |" in after
    assert "| `query` | string | yes |  | the next turn |" in after


def test_the_prose_above_the_marker_is_kept(tmp_path):
    document = tmp_path / "api.md"
    document.write_text(f"# Hand-written\n\nprose\n\n{MARKER}\nstale reference\n")
    again = regenerated(document, {"paths": {}, "components": {"schemas": {}}})
    assert again.startswith("# Hand-written\n\nprose\n\n" + MARKER) and "stale reference" not in again


def test_a_document_without_the_marker_is_refused(tmp_path):
    document = tmp_path / "api.md"
    document.write_text("# no marker\n")
    with pytest.raises(ValueError, match="marker"):
        regenerated(document, {})
