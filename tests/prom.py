"""Reading /metrics back with prometheus_client's own parser, as Prometheus would."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample


def samples(text: str) -> list[Sample]:
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def value(text: str, name: str, **labels: str) -> float:
    """The one sample called `name` whose labels include `labels` (an error if not one)."""
    found = [
        s.value
        for s in samples(text)
        if s.name == name and all(s.labels.get(k) == v for k, v in labels.items())
    ]
    assert len(found) == 1, f"{name}{labels}: {len(found)} samples"
    return found[0]
