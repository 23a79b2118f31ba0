"""The monitoring kit: the alert rules pass their promtool unit tests, the Prometheus config is
valid, and the Grafana dashboard asks only for metrics a live /metrics serves."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.api_support import create

ROOT = Path(__file__).resolve().parent.parent
PROMETHEUS = ROOT / "deploy" / "prometheus"
DASHBOARD = ROOT / "deploy" / "grafana" / "coven.json"
#: What a PromQL expression names that is not a metric (functions, keywords, label names).
METRIC = re.compile(r"\b(coven_[a-z_]+)\b")


def promtool(*args: str) -> str:
    """promtool (Debian's prometheus package); fails naming the package when it is missing."""
    if shutil.which("promtool") is None:
        pytest.fail("promtool is missing: `make deploy-tools` as root installs Debian's prometheus package")
    done = subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=120, cwd=PROMETHEUS)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_alert_rules_pass_their_unit_tests() -> None:
    assert "SUCCESS" in promtool("test", "rules", "alerts.test.yml")


def test_the_prometheus_config_and_its_rules_are_valid() -> None:
    assert "9 rules found" in promtool("check", "config", "prometheus.yml")


def test_every_alert_is_unit_tested() -> None:
    rules = re.findall(r"- alert: (\w+)", (PROMETHEUS / "alerts.yml").read_text())
    tested = set(re.findall(r"alertname: (\w+)", (PROMETHEUS / "alerts.test.yml").read_text()))
    assert rules and set(rules) <= tested, sorted(set(rules) - tested)


def served_names(text: str) -> set[str]:
    """Every series name a /metrics answer offers: families and their samples (_total, _bucket…)."""
    names = set()
    for family in text_string_to_metric_families(text):
        names.add(family.name)
        names.update(sample.name for sample in family.samples)
        if family.type == "counter":
            names.add(f"{family.name}_total")
        if family.type == "histogram":
            names.update(f"{family.name}{suffix}" for suffix in ("_bucket", "_sum", "_count"))
    return names


def test_the_dashboard_asks_only_for_metrics_that_metrics_serves(client) -> None:
    create(client, "witches", [{"type": "human"}, {"type": "bot", "level": "random"}])
    served = served_names(client.get("/metrics").get_data(as_text=True))
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    asked = {name for expr in exprs for name in METRIC.findall(expr)}
    assert len(asked) >= 15, asked
    assert asked <= served, f"the dashboard asks for metrics /metrics does not serve: {sorted(asked - served)}"
    alerts = set(METRIC.findall((PROMETHEUS / "alerts.yml").read_text()))
    assert alerts <= served, f"the alerts watch metrics /metrics does not serve: {sorted(alerts - served)}"
