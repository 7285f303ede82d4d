"""The bot's Prometheus metrics: one registry per bot, rendered by `prometheus_client`.

Each `Bot` owns its registry (never the library's global one), so several bots in one
process (the tests, the demo) count apart. Instruments that code updates as it goes
(counters, histograms) live on their owners; values that are read when scraped (the
outbox backlog, the redactor's counts) come from a `Scraped` collector. docs/delivery.md
lists every name; docs/grafana-dashboard.json is built on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    CollectorRegistry,
    GCCollector,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from roombot.nodes import NodeState
from roombot.redact import Redactor

__all__ = [
    "ACK_BUCKETS",
    "CONTENT_TYPE",
    "DELIVERY_BUCKETS",
    "Scraped",
    "bot_registry",
    "counter",
    "gauge",
    "node_families",
    "redactor_families",
    "render",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST
# A 202 waits for one journal commit (synchronous=FULL): milliseconds, up to a second on a
# slow disk.
ACK_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, float("inf"))
# A decision reaches the homeserver in well under a second; retries, rate limits and a
# homeserver that is down stretch it to minutes or hours.
DELIVERY_BUCKETS = (
    0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0, 3600.0, float("inf"),
)  # fmt: skip


def bot_registry() -> CollectorRegistry:
    """A fresh registry with the process, platform and garbage collector metrics."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    if GC_COLLECTOR is not None:  # None on interpreters without gc statistics
        GCCollector(registry=registry)
    return registry


class Scraped:
    """A collector whose families are built by `build` at each scrape."""

    def __init__(self, build: Callable[[], Iterable[Metric]], registry: CollectorRegistry) -> None:
        self.build = build
        registry.register(self)

    def collect(self) -> Iterable[Metric]:
        return list(self.build())


def gauge(
    name: str, help_text: str, value: float | None = None, labels: tuple[str, ...] = ()
) -> GaugeMetricFamily:
    if value is not None:
        return GaugeMetricFamily(name, help_text, value=value)
    return GaugeMetricFamily(name, help_text, labels=list(labels))


def counter(
    name: str, help_text: str, value: float | None = None, labels: tuple[str, ...] = ()
) -> CounterMetricFamily:
    # The library adds `_total` itself: the name we give carries it already.
    name = name.removesuffix("_total")
    if value is not None:
        return CounterMetricFamily(name, help_text, value=value)
    return CounterMetricFamily(name, help_text, labels=list(labels))


def redactor_families(redactor: Redactor) -> list[Metric]:
    """What the redactor did since start: values hidden by shape, values kept by reason."""
    hidden = counter(
        "roombot_redactions_total",
        "Credentials hidden from provider and harness text, by shape",
        labels=("shape",),
    )
    for shape, n in sorted(redactor.redacted.items()):
        hidden.add_metric([shape], n)
    kept = counter(
        "roombot_redactions_kept_total",
        "Credential-shaped values left as they were (already masked, or allowed)",
        labels=("reason",),
    )
    for reason, n in sorted(redactor.kept.items()):
        kept.add_metric([reason], n)
    return [hidden, kept]


def render(registry: CollectorRegistry) -> bytes:
    """The registry in the Prometheus text format (what every /metrics answers)."""
    return generate_latest(registry)


def node_families(states: Iterable[NodeState], now: float) -> list[Metric]:
    """Nodes online and offline, and per node whether it is online and its silence."""
    states = list(states)
    count = gauge("roombot_nodes", "Nodes known to the bot, by state", labels=("state",))
    online = sum(s.online for s in states)
    count.add_metric(["online"], online)
    count.add_metric(["offline"], len(states) - online)
    up = gauge(
        "roombot_node_online", "1 while the node is online, 0 once offline", labels=("node",)
    )
    age = gauge(
        "roombot_node_last_seen_age_seconds",
        "Seconds since the node's last heartbeat",
        labels=("node",),
    )
    for s in states:
        up.add_metric([s.node], 1.0 if s.online else 0.0)
        age.add_metric([s.node], max(0.0, now - s.last_seen))
    return [count, up, age]
