"""The Python client installs and imports without the server: httpx and the standard library only."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "clients" / "python" / "beliefstream_client"
SERVER = ("faust", "sqlalchemy", "qdrant_client", "qdrant_edge", "onnxruntime", "pydantic", "fastapi", "anthropic",
          "streams", "sidecar", "sinks", "agents")


def test_the_package_imports_only_httpx_and_the_standard_library():
    allowed = set(sys.stdlib_module_names) | {"httpx", "beliefstream_client", "__future__"}
    for source in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert {name.split(".")[0] for name in names} <= allowed, (source.name, names)


def test_importing_and_using_the_client_loads_none_of_the_server():
    code = (
        "import sys\n"
        "from beliefstream_client import SyncMemoryClient, MemoryClientError\n"
        "client = SyncMemoryClient('http://127.0.0.1:9', 'k', timeout_s=0.5)\n"
        "try:\n"
        "    client.recall('u', 'q')\n"
        "except MemoryClientError as exc:\n"
        "    assert exc.status == 0 and exc.code == 'unreachable'\n"
        "print(' '.join(sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=PACKAGE.parent)
    assert done.returncode == 0, done.stderr
    loaded = {name.split(".")[0] for name in done.stdout.split()}
    assert not loaded & set(SERVER), loaded & set(SERVER)


def test_the_package_declares_httpx_as_its_only_dependency():
    import tomllib

    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    assert project["name"] == "beliefstream-client"
    assert [dep.split(">")[0] for dep in project["dependencies"]] == ["httpx"]
