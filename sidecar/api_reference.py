"""The HTTP reference in `docs/api.md`, rendered from the sidecar's own OpenAPI document.

`docs/api.md` is hand-written prose (the topic, the records, the CLI, the configuration) down to
`MARKER`; everything after it is `render(openapi)`, so the reference can never disagree with the
routes. `scripts/api_docs.py` rewrites that part; a test fails when it is out of step. The output
is deterministic (sorted, no version number) so a regeneration changes only what changed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI

from sidecar.access import ROUTES

MARKER = "<!-- Everything below is generated from /openapi.json by `scripts/api_docs.py`: do not edit by hand. -->"
REGENERATE = ".venv/bin/python scripts/api_docs.py"

_METHODS = ("get", "post", "put", "patch", "delete")
#: Error answers every authenticated route shares: listed once, not under each route.
_COMMON_ERRORS = {"400", "401", "403", "404", "413", "422", "429", "503"}


def full_app() -> FastAPI:
    """A sidecar with every optional route mounted, `/mcp` and the docs pages included (nothing is
    started; no route may be called)."""
    from sidecar.app import create_app
    from streams.settings import Settings

    class Unstarted:
        """Stands for each dependency: routes are declared, never called."""

        def __getattr__(self, name: str) -> Any:
            async def unavailable(*_args: Any, **_kwargs: Any) -> Any:
                raise RuntimeError("the API reference's app serves no request")

            return unavailable

    stub = Unstarted()
    settings = Settings(api_keys="reference=reference", api_docs_ui=True)
    return create_app(  # type: ignore[arg-type]
        settings,
        stub,
        stub,
        stub,
        embedder=stub,
        recall=stub,
        consolidator=stub,
        admin=stub,
        contested=stub,
        mcp_tools=stub,
    )


def full_app_openapi() -> dict[str, Any]:
    """The OpenAPI document of a sidecar with every optional route mounted."""
    return full_app().openapi()


def _type(schema: dict[str, Any]) -> str:
    """A schema as a short type: `string`, `integer ≥ 1`, `Memory`, `list of string`, `string | null`."""
    if "$ref" in schema:
        return f"[{schema['$ref'].rsplit('/', 1)[-1]}](#{schema['$ref'].rsplit('/', 1)[-1].lower()})"
    if "anyOf" in schema:
        return " \\| ".join(_type(option) for option in schema["anyOf"])
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return _type(schema["allOf"][0])
    if "enum" in schema:
        return " \\| ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}))}"
    if kind == "object" and "additionalProperties" in schema and isinstance(schema["additionalProperties"], dict):
        return f"map of {_type(schema['additionalProperties'])}"
    bounds = []
    for key, sign in (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<")):
        if key in schema:
            bounds.append(f"{sign} {schema[key]}")
    for key, word in (("minLength", "min length"), ("maxLength", "max length"), ("maxItems", "max items")):
        if key in schema:
            bounds.append(f"{word} {schema[key]}")
    if schema.get("format") == "date-time":
        kind = "date-time"
    return f"{kind} ({', '.join(bounds)})" if bounds else str(kind)


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(schema: dict[str, Any]) -> str:
    return f"`{schema['default']}`" if "default" in schema and schema["default"] is not None else ""


def _operation(method: str, path: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", ""]
    if op.get("description"):
        lines += [_cell(op["description"]), ""]
    if not op.get("security"):
        lines += ["No API key needed.", ""]
    elif (rule := ROUTES.get((method.upper(), path))) is not None:
        lines += [f"Needs {rule.describe()}.", ""]
    parameters = op.get("parameters", [])
    if parameters:
        lines += ["| parameter | in | type | required | default | description |", "|---|---|---|---|---|---|"]
        for p in parameters:
            schema = p.get("schema", {})
            description = p.get("description", schema.get("description", ""))
            lines.append(
                f"| `{p['name']}` | {p['in']} | {_type(schema)} | {'yes' if p.get('required') else 'no'} | "
                f"{_default(schema)} | {_cell(description)} |"
            )
        lines.append("")
    body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    if body is not None:
        lines += [f"Body: {_type(body)}.", ""]
    answers = []
    for status, response in sorted(op.get("responses", {}).items()):
        if status in _COMMON_ERRORS and "security" in op:
            continue
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        shape = f" {_type(schema)}" if schema else ""
        answers.append(f"- `{status}`{shape}: {_cell(response.get('description', ''))}")
    if answers:
        lines += ["Answers:", *answers, ""]
    return lines


def _schema(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [_cell(schema["description"]), ""]
    properties = schema.get("properties", {})
    if not properties:
        return [*lines, f"Type: {_type(schema)}.", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | default | description |", "|---|---|---|---|---|"]
    for field, spec in properties.items():
        lines.append(
            f"| `{field}` | {_type(spec)} | {'yes' if field in required else 'no'} | {_default(spec)} | "
            f"{_cell(spec.get('description', ''))} |"
        )
    return [*lines, ""]


def render(openapi: dict[str, Any]) -> str:
    """The generated part of `docs/api.md`: every route, then every schema, in a stable order."""
    lines = [
        MARKER,
        "",
        "## HTTP reference",
        "",
        "Every route but the health checks, `/metrics`, `/openapi.json` and the console's files needs `Authorization: Bearer <key>`, "
        "holding the capability its entry names (one table, `sidecar/access.py`; a missing one is a `403`; an "
        "agent's private state is seen only by that agent's keys and tenant keys with `agents`), and "
        "may answer these errors, each as `{\"error\": {\"code\", \"message\"}}` ([ErrorBody](#errorbody)): "
        "`400` malformed request, `401` missing or unknown key, `403` outside the key's scope, `404` not found "
        "in the key's tenant, `413` body too large, `422` invalid field (with `details`), `429` rate limit "
        "(with `Retry-After`), `503` a dependency is unavailable (retry).",
        "",
    ]
    for path in sorted(openapi.get("paths", {})):
        for method in _METHODS:
            if method in openapi["paths"][path]:
                lines += _operation(method, path, openapi["paths"][path][method])
    lines += ["## Schemas", ""]
    for name, schema in sorted(openapi.get("components", {}).get("schemas", {}).items()):
        lines += _schema(name, schema)
    return "\n".join(lines).rstrip() + "\n"


def split(document: str) -> tuple[str, str]:
    """`docs/api.md` as (hand-written prose, generated reference); the prose keeps its own newline."""
    prose, marker, generated = document.partition(MARKER)
    if not marker:
        raise ValueError(f"the document has no marker line ({MARKER!r})")
    return prose, marker + generated


def regenerated(path: Path, openapi: dict[str, Any]) -> str:
    """The document at `path` with its generated part rendered from `openapi` again."""
    prose, _ = split(path.read_text())
    return prose + render(openapi)
