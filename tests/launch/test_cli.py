"""The CLI explains itself to a newcomer and fails with a sentence, not a traceback."""

import pytest

from launch.cli import build_parser, main


def test_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("dev", "worker", "sidecar", "publish", "mcp", "migrate"):
        assert command in out


def test_every_command_keeps_its_place_and_its_flags():
    """The maintenance commands (`launch.maintenance_commands`) register where the CLI always listed them."""
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert list(commands) == [
        "dev", "worker", "sidecar", "publish", "recall", "mcp", "decay", "consolidate", "migrate",
        "export", "import", "reindex", "reextract",
    ]  # fmt: skip
    decay = parser.parse_args(["decay", "--tenant", "acme"])
    assert (decay.command, decay.tenant, callable(decay.func)) == ("decay", "acme", True)
    consolidate = parser.parse_args(["consolidate", "--topic", "tech"])
    assert (consolidate.topic, consolidate.apply, consolidate.threshold, consolidate.user) == ("tech", False, 0.85, None)
    with pytest.raises(SystemExit):
        parser.parse_args(["consolidate"])  # --topic is required


def test_mcp_without_a_key_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BELIEFSTREAM_API_KEYS", raising=False)
    assert main(["mcp", "--data-dir", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout belongs to the MCP protocol
    assert "no API key" in captured.err and "--key" in captured.err


def test_publish_without_a_broker_says_how_to_get_one(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("BELIEFSTREAM_BROKER", raising=False)
    turns = tmp_path / "turns.jsonl"
    turns.write_text("{}\n")
    assert main(["publish", str(turns), "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "BELIEFSTREAM_BROKER" in err and "beliefstream dev" in err


def test_migrate_creates_the_schema(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("BELIEFSTREAM_SQL_URL", raising=False)
    assert main(["migrate", "--data-dir", str(tmp_path)]) == 0
    assert (tmp_path / "memory.db").exists()
    assert "migrated" in capsys.readouterr().out


class FakeSidecar:
    """A real HTTP server on a free port that answers recall and consolidate, checking the key."""

    def __init__(self, key: str) -> None:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        seen: list[tuple[str, str]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                seen.append((self.path, self.headers.get("authorization", "")))
                if self.headers.get("authorization") != f"Bearer {key}":
                    answer, status = {"error": {"code": "unauthorized", "message": "a valid API key is required"}}, 401
                elif self.path == "/v1/recall":
                    text = f"{body['user_id']} uses dark mode."
                    memory = {"text": text, "type": "preference", "effective_confidence": 0.9,
                              "recall_reason": "relevant"}
                    answer, status = {"memories": [memory], "conflicts": [], "tokens_used": 7}, 200
                else:
                    answer, status = {"topic": body["topic"], "dry_run": body["dry_run"], "merges": []}, 200
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args):
                pass

        self.seen = seen
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *_exc):
        self.server.shutdown()
        self.server.server_close()


def _no_env(monkeypatch):
    for name in ("BELIEFSTREAM_API_KEYS", "BELIEFSTREAM_PORT", "BELIEFSTREAM_HOST", "BELIEFSTREAM_BROKER"):
        monkeypatch.delenv(name, raising=False)


def test_client_commands_find_the_running_dev_by_its_record(tmp_path, capsys, monkeypatch):
    import os

    from launch.service_record import ServiceRecord, write_service_record

    _no_env(monkeypatch)
    with FakeSidecar("bs-dev-recorded") as sidecar:
        write_service_record(tmp_path, ServiceRecord(sidecar.url, "bs-dev-recorded", os.getpid()))
        assert main(["recall", "--user", "u-42", "--data-dir", str(tmp_path), "how should the UI look?"]) == 0
        assert "u-42 uses dark mode." in capsys.readouterr().out
        assert main(["consolidate", "--topic", "tech", "--data-dir", str(tmp_path)]) == 0
        assert '"dry_run": true' in capsys.readouterr().out
    assert [path for path, _ in sidecar.seen] == ["/v1/recall", "/v1/consolidate"]
    assert {auth for _, auth in sidecar.seen} == {"Bearer bs-dev-recorded"}


def test_a_refusal_of_the_sidecar_is_one_line(tmp_path, capsys, monkeypatch):
    _no_env(monkeypatch)
    with FakeSidecar("right") as sidecar:
        code = main(["recall", "--user", "u", "--url", sidecar.url, "--key", "wrong", "--data-dir", str(tmp_path), "q"])
    err = capsys.readouterr().err
    assert code == 2 and err == "beliefstream: recall failed (401 unauthorized): a valid API key is required\n"


def _dead_url() -> str:
    from streams.broker import free_port

    return f"http://127.0.0.1:{free_port()}"


def test_no_running_service_is_one_line_that_says_what_to_do(tmp_path, capsys, monkeypatch):
    _no_env(monkeypatch)
    (tmp_path / "dev-api-key").write_text("bs-dev-old\n")  # dev ran here once, but is not running
    port = _dead_url().rsplit(":", 1)[1]
    monkeypatch.setenv("BELIEFSTREAM_PORT", port)
    for command in (["recall", "--user", "u", "q"], ["consolidate", "--topic", "tech", "--url", _dead_url()]):
        assert main([*command, "--data-dir", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "no sidecar answers at http://127.0.0.1:" in err
        assert "beliefstream dev" in err and "--url" in err


def test_a_record_left_by_a_dead_dev_is_not_followed(tmp_path, capsys, monkeypatch):
    import subprocess
    import sys

    from launch.service_record import ServiceRecord, write_service_record

    _no_env(monkeypatch)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    write_service_record(tmp_path, ServiceRecord(_dead_url(), "bs-dev-gone", int(gone.stdout)))
    monkeypatch.setenv("BELIEFSTREAM_PORT", _dead_url().rsplit(":", 1)[1])
    assert main(["recall", "--user", "u", "--data-dir", str(tmp_path), "q"]) == 2
    assert "no API key" in capsys.readouterr().err  # the stale record's key is not used either


HEAVY = ("faust", "sqlalchemy", "qdrant_client", "qdrant_edge", "onnxruntime", "anthropic", "fastapi")  # uvicorn: the MCP SDK imports it


def _modules_loaded_by(code: str) -> set[str]:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                          capture_output=True, text=True, timeout=60)
    return {name.split(".")[0] for name in done.stdout.split()}


def test_client_commands_load_none_of_the_server(tmp_path):
    """A client call is one HTTP request: it must not pay for the runtime's imports."""
    call = (f"from launch.cli import main; main(['recall', '--url', '{_dead_url()}', '--key', 'k', "
            f"'--user', 'u', '--data-dir', r'{tmp_path}', 'q'])")
    assert not _modules_loaded_by(call) & set(HEAVY)
    assert not _modules_loaded_by("import sidecar.mcp_proxy") & set(HEAVY)


def test_recall_filters_reach_the_sidecar_and_a_refused_filter_is_one_line(tmp_path, capsys, monkeypatch):
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    _no_env(monkeypatch)
    bodies: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            bodies.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            data = json.dumps({"error": {"code": "invalid_request", "message": "since: Input should be a valid "
                                                                              "datetime"}}).encode()
            self.send_response(422)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        code = main(["recall", "--user", "u", "--url", f"http://127.0.0.1:{server.server_address[1]}", "--key", "k",
                     "--since", "last week", "--type", "fact", "--type", "decision", "--agent", "bot",
                     "--data-dir", str(tmp_path), "q"])
    finally:
        server.shutdown()
        server.server_close()
    assert code == 2
    assert capsys.readouterr().err == ("beliefstream: recall failed (422 invalid_request): since: Input should be "
                                       "a valid datetime\n")
    assert {k: bodies[0][k] for k in ("since", "types", "agent")} == {
        "since": "last week", "types": ["fact", "decision"], "agent": "bot"}


def test_webhooks_without_a_secret_are_refused_in_one_line(tmp_path, capsys, monkeypatch):
    _no_env(monkeypatch)
    monkeypatch.setenv("BELIEFSTREAM_WEBHOOK_URLS", '["https://example.test/hook"]')
    monkeypatch.delenv("BELIEFSTREAM_WEBHOOK_SECRET", raising=False)
    assert main(["migrate", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "BELIEFSTREAM_WEBHOOK_SECRET" in err and "Traceback" not in err
