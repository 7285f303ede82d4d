"""The report API's instruments, kept in the bot's registry (roombot.metrics)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import Metric

from roombot.api.sink import Sink
from roombot.metrics import ACK_BUCKETS, Scraped, gauge


class ApiMetrics:
    def __init__(self, registry: CollectorRegistry, sink: Sink) -> None:
        self.registry = registry
        self.responses = Counter(
            "roombot_api_responses",
            "Responses of the report API",
            ("route", "status"),
            registry=registry,
        )
        self.refused = Counter(
            "roombot_api_refused",
            "Requests refused, by source and reason",
            ("source", "reason"),
            registry=registry,
        )
        self.events = Counter(
            "roombot_api_events", "Events journalled, by source", ("source",), registry=registry
        )
        self.duplicates = Counter(
            "roombot_api_duplicates",
            "Events answered as duplicates",
            ("source",),
            registry=registry,
        )
        # Was a summary (sum and count) before: the name, and so its _sum and _count, stay.
        self.ack_seconds = Histogram(
            "roombot_api_ack_seconds",
            "Time from a post's arrival to its 202 (the events journalled)",
            registry=registry,
            buckets=ACK_BUCKETS,
        )
        self._sink = sink
        Scraped(self._gauges, registry)

    def _gauges(self) -> Iterator[Metric]:
        yield gauge(
            "roombot_api_backlog",
            "Posts waiting for the next journal commit",
            float(self._sink.backlog),
        )
        yield gauge(
            "roombot_api_up", "1 while the pipeline runs", 1.0 if self._sink.started else 0.0
        )
