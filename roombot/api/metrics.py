"""Counters of the report API, rendered in the Prometheus text format."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass(slots=True)
class ApiMetrics:
    responses: Counter[tuple[str, int]] = field(default_factory=Counter)  # (route, status)
    refused: Counter[tuple[str, str]] = field(default_factory=Counter)  # (source, reason)
    events: Counter[str] = field(default_factory=Counter)  # source -> events accepted
    duplicates: Counter[str] = field(default_factory=Counter)
    ack_seconds_sum: float = 0.0
    ack_count: int = 0

    def render(self, gauges: dict[str, tuple[str, float]]) -> str:
        lines: list[str] = []

        def family(name: str, kind: str, help_text: str) -> None:
            lines.append(f"# HELP {name} {help_text}")
            lines.append(f"# TYPE {name} {kind}")

        family("roombot_api_responses_total", "counter", "Responses of the report API")
        for (route, status), n in sorted(self.responses.items()):
            lines.append(f'roombot_api_responses_total{{route="{route}",status="{status}"}} {n}')
        family("roombot_api_refused_total", "counter", "Requests refused, by source and reason")
        for (source, reason), n in sorted(self.refused.items()):
            lines.append(f'roombot_api_refused_total{{source="{source}",reason="{reason}"}} {n}')
        family("roombot_api_events_total", "counter", "Events journalled, by source")
        for source, n in sorted(self.events.items()):
            lines.append(f'roombot_api_events_total{{source="{source}"}} {n}')
        family("roombot_api_duplicates_total", "counter", "Events answered as duplicates")
        for source, n in sorted(self.duplicates.items()):
            lines.append(f'roombot_api_duplicates_total{{source="{source}"}} {n}')
        family("roombot_api_ack_seconds", "summary", "Time from a post's arrival to its 202")
        lines.append(f"roombot_api_ack_seconds_sum {self.ack_seconds_sum:.6f}")
        lines.append(f"roombot_api_ack_seconds_count {self.ack_count}")
        for name, (help_text, value) in sorted(gauges.items()):
            family(name, "gauge", help_text)
            lines.append(f"{name} {int(value) if float(value).is_integer() else value}")
        return "\n".join(lines) + "\n"
