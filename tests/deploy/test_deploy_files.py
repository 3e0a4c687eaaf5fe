"""deploy/ holds real, consistent files: the alert rules and the dashboard name metrics that the
processes expose, every environment variable is a setting, every command is a CLI command, and the
Helm chart renders to manifests whose probes and ports exist in the code."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client import CollectorRegistry

from agents.metrics import WorkerMetrics
from launch.cli import build_parser
from sidecar.metrics import RequestMetrics
from sidecar.recall.metrics import RecallMetrics
from sidecar.routes.health import health_routes
from streams.settings import Settings

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
CHART = DEPLOY / "helm" / "beliefstream"
_METRIC = re.compile(r"\bbeliefstream_[a-z0-9_]+")
_SUFFIXES = {"counter": ("_total", "_created"), "histogram": ("_bucket", "_sum", "_count", "_created"), "gauge": ("",)}


def exposed_metric_names() -> set[str]:
    """Every sample name the worker's and the sidecar's collectors can expose."""
    registry = CollectorRegistry()
    WorkerMetrics(registry)
    RecallMetrics(registry)
    names: set[str] = set()
    for collecting in (registry, RequestMetrics().registry):
        for family in collecting.collect():
            names |= {family.name + suffix for suffix in _SUFFIXES.get(family.type, ("",))}
    return names


def _alert_rules() -> list[dict[str, Any]]:
    document = yaml.safe_load((DEPLOY / "prometheus" / "alerts.yml").read_text())
    return [rule for group in document["groups"] for rule in group["rules"]]


def _dashboard_exprs() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "beliefstream.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


@pytest.mark.parametrize("source", ["alerts", "dashboard"])
def test_every_expression_names_an_exposed_metric(source: str) -> None:
    exprs = [rule["expr"] for rule in _alert_rules()] if source == "alerts" else _dashboard_exprs()
    assert exprs
    exposed = exposed_metric_names()
    for expr in exprs:
        named = set(_METRIC.findall(expr))
        assert named, f"{expr!r} names no beliefstream metric"
        assert named <= exposed, f"{expr!r} names metrics nothing exposes: {sorted(named - exposed)}"


def test_every_alert_says_what_it_means() -> None:
    for rule in _alert_rules():
        assert rule["alert"].startswith("Beliefstream") and rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian's prometheus package) not installed")
def test_alert_rules_pass_promtool() -> None:
    checked = subprocess.run(
        ["promtool", "check", "rules", str(DEPLOY / "prometheus" / "alerts.yml")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _lookup(values: dict[str, Any], path: str) -> Any:
    node: Any = values
    for part in path.split("."):
        node = node[part]
    return node


def render_chart(release: str = "memory") -> list[dict[str, Any]]:
    """The chart's templates with values and release substituted (the subset of Go templates the
    chart uses: `.Values.*`, `.Release.Name`, `| quote`); every document parsed as YAML."""
    values = yaml.safe_load((CHART / "values.yaml").read_text())

    def substitute(match: re.Match[str]) -> str:
        expression = match.group(1).strip()
        quoted = expression.endswith("| quote")
        path = expression.removesuffix("| quote").strip()
        if path == ".Release.Name":
            value: Any = release
        elif path.startswith(".Values."):
            value = _lookup(values, path.removeprefix(".Values."))
        else:
            raise AssertionError(f"template expression outside the supported subset: {expression!r}")
        return json.dumps(str(value)) if quoted else str(value)

    documents: list[dict[str, Any]] = []
    for template in sorted((CHART / "templates").glob("*.yaml")):
        rendered = re.sub(r"\{\{(.*?)\}\}", substitute, template.read_text())
        documents += [doc for doc in yaml.safe_load_all(rendered) if doc]
    return documents


def test_the_chart_renders_with_probes_and_ports_that_exist() -> None:
    documents = render_chart()
    kinds = {doc["kind"] for doc in documents}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "ConfigMap", "Secret", "Job"} <= kinds
    probe_paths = {route.path for route in health_routes([]).routes}
    commands = set(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001 - argparse keeps them there
    for doc in documents:
        if doc["kind"] not in {"Deployment", "Job"}:
            continue
        spec = doc["spec"]["template"]["spec"]
        assert spec["securityContext"]["runAsNonRoot"] is True
        for container in spec["containers"]:
            assert container["args"][0] in commands
            ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
            for probe in ("livenessProbe", "readinessProbe"):
                if probe in container:
                    get = container[probe]["httpGet"]
                    assert get["port"] in ports
                    assert get["path"] in probe_paths | {"/metrics"}


def _settings_env_names() -> set[str]:
    return {f"BELIEFSTREAM_{name.upper()}" for name in Settings.model_fields}


def _otel_env_names() -> set[str]:
    """The variables the OpenTelemetry SDK reads (its own list of them)."""
    import opentelemetry.environment_variables as api_names
    import opentelemetry.sdk.environment_variables as sdk_names

    return {v for module in (api_names, sdk_names) for k, v in vars(module).items() if k.startswith("OTEL_")}


def chart_env(kind: str) -> dict[str, dict[str, str]]:
    """What each Deployment's container gets: the ConfigMap, the Secret, then its own `env` (which wins)."""
    documents = render_chart()
    config = next(doc for doc in documents if doc["kind"] == "ConfigMap")["data"]
    secret = next(doc for doc in documents if doc["kind"] == "Secret")["stringData"]
    return {
        doc["metadata"]["name"]: {**config, **secret, **{e["name"]: e["value"] for e in container.get("env", [])}}
        for doc in documents
        if doc["kind"] == kind
        for container in doc["spec"]["template"]["spec"]["containers"]
    }


def compose_env() -> dict[str, dict[str, str]]:
    """Each beliefstream service's environment in the compose file, defaults of `${VAR:-default}` taken."""
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    default = re.compile(r"\$\{[A-Z_]+:-([^}]*)\}")
    return {
        name: {key: default.sub(r"\1", str(value)) for key, value in service["environment"].items()}
        for name, service in compose["services"].items()
        if service.get("image") == compose["x-beliefstream"]["image"]
    }


def test_every_variable_the_deployments_set_is_a_setting() -> None:
    known = _settings_env_names() | {"ANTHROPIC_API_KEY"} | _otel_env_names()
    environments = [*chart_env("Deployment").values(), *compose_env().values()]
    assert len(environments) == 2 + 4  # the chart's worker and sidecar; compose's migrate, two workers, sidecar
    for environment in environments:
        for name in environment:
            assert name in known, f"{name} is not a beliefstream setting nor an OpenTelemetry variable"


def test_tracing_is_off_unless_switched_on_and_then_its_exporter_settings_work() -> None:
    from streams.tracing import configure_tracing, disable_tracing, tracing_enabled

    environments = {**chart_env("Deployment"), **compose_env()}
    for name, environment in environments.items():
        assert Settings(tracing=environment["BELIEFSTREAM_TRACING"]).tracing == "off", name
        assert environment["OTEL_EXPORTER_OTLP_ENDPOINT"].endswith(":4318"), name  # OTLP over HTTP
    services = {environment.get("OTEL_SERVICE_NAME") for environment in environments.values()}
    assert {"beliefstream-worker", "beliefstream-sidecar"} <= services  # one service name per kind of process
    for environment in environments.values():
        try:
            configure_tracing(environ=environment)  # as a process started with BELIEFSTREAM_TRACING=on
            assert tracing_enabled()
        finally:
            disable_tracing()


def test_compose_runs_real_commands_with_two_workers() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    commands = set(build_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001
    services = compose["services"]
    workers = [name for name, service in services.items() if service.get("command", [None])[0] == "worker"]
    assert len(workers) == 2
    for name in ("kafka", "postgres", "qdrant", "sidecar", "prometheus", "grafana"):
        assert name in services
    for service in services.values():
        if "command" in service:
            assert service["command"][0] in commands
    assert "KAFKA_PROCESS_ROLES" in services["kafka"]["environment"]  # KRaft, no ZooKeeper


def test_the_image_runs_as_a_non_root_user_and_embeds_at_build_time() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", dockerfile, flags=re.M)) >= 2
    user = re.findall(r"^USER (\S+)", dockerfile, flags=re.M)
    assert user and user[-1] not in {"root", "0"}
    assert "load_default_embedder" in dockerfile


def test_operations_guide_lists_every_setting() -> None:
    guide = (DEPLOY.parent / "docs" / "operations.md").read_text()
    missing = sorted(name for name in _settings_env_names() if f"`{name}`" not in guide)
    assert not missing, f"docs/operations.md does not document: {', '.join(missing)}"
