"""/metrics of a running bot, read with prometheus_client's own parser, and the Grafana
dashboard in docs/ held to the names that /metrics really has."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.bot import Bot
from roombot.config import load_config
from roombot.devserver import DevServer, free_port
from roombot.metrics import render
from tests.bot.helpers import Post, make_team, running, turn_error
from tests.bot.test_end_to_end import turn_events
from tests.prom import value

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json"
TOKEN = "metrics-test-token-0123456789abc"
# The sample names each family type exposes (the parser strips the suffixes off families).
_SUFFIXES = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
    "summary": ("", "_sum", "_count", "_created"),
}
_PROMQL_WORDS = {"and", "or", "unless", "offset", "bool", "group_left", "group_right", "inf", "nan"}


def exposed_names(families: list[Metric]) -> set[str]:
    """Every series name a query may use: sample names, also of families with no sample yet."""
    names = {s.name for f in families for s in f.samples}
    for f in families:
        names.update(f.name + suffix for suffix in _SUFFIXES.get(f.type, ("",)))
    return names


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression (or a Grafana `label_values(...)`) reads."""
    label_values = re.fullmatch(r"\s*label_values\((.*),\s*\w+\s*\)\s*", expr, re.S)
    if label_values:
        expr = label_values.group(1)
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings: label values, formats
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # range and subquery windows
    # label lists of aggregations and vector matching
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    names = set()
    for m in re.finditer(r"\$?[A-Za-z_:][A-Za-z0-9_:]*|\d[\w.]*", expr):
        word = m.group()
        if word[0] in "$0123456789" or word.lower() in _PROMQL_WORDS:
            continue  # a Grafana variable, a number, an operator
        if expr[m.end() :].lstrip().startswith("("):
            continue  # a function
        names.add(word)
    return names


def dashboard_queries(dashboard: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, query) for every panel target and every query variable."""

    def panels(items: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
        for p in items:
            yield p
            yield from panels(p.get("panels", []))  # rows hold panels

    for p in panels(dashboard["panels"]):
        for t in p.get("targets", []):
            yield f"panel {p['title']!r} target {t['refId']}", t["expr"]
    for v in dashboard["templating"]["list"]:
        if v["type"] == "query":
            query = v["query"]
            yield f"variable {v['name']!r}", query if isinstance(query, str) else query["query"]


def test_the_name_reader_finds_names_and_only_names() -> None:
    expr = (
        'histogram_quantile(0.95, sum by (le) (rate(roombot_x_bucket{room=~"$room"}'
        "[$__rate_interval]))) / on(instance) group_left up_ish offset 5m > bool 1e3"
    )
    assert metric_names(expr) == {"roombot_x_bucket", "up_ish"}
    assert metric_names('label_values(roombot_y{instance=~"$instance"}, room)') == {"roombot_y"}


async def test_metrics_of_a_running_bot_parse_and_hold_the_histograms(
    synapse: DevServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bot_store: str
) -> None:
    api_port, metrics_port = free_port(), free_port()
    extra = (
        f'[api]\nport = {api_port}\n[[api.sources]]\nname = "ci"\n'
        f'token_env = "ROOMBOT_METRICS_TOKEN"\nrooms = ["*"]\n'
        f"[metrics]\nport = {metrics_port}\n[turns]\nsettle = 0.2\n"
    )
    team = await make_team(synapse, tmp_path, encrypted=True, extra=extra)
    # A room the bot was never invited to: its notice is owed, and the room is parked.
    closed = await team.member.create_room(encrypted=False, name="closed")
    monkeypatch.setenv("ROOMBOT_METRICS_TOKEN", TOKEN)
    try:
        async with (
            running(team.config()) as bot,
            aiohttp.ClientSession(headers={"Authorization": f"Bearer {TOKEN}"}) as http,
        ):
            body = {"events": turn_events(team.room_id, "metrics-1")}
            async with http.post(f"http://127.0.0.1:{api_port}/v1/batch", json=body) as r:
                assert r.status == 202, await r.text()
            seen = await team.member.wait_for(team.room_id, 1, sender=team.bot.user_id)
            assert isinstance(read_payload(seen[0].content.get(CARD_KEY)), TurnError)
            bot.outbox.enqueue(Post(closed, "owed-1", turn_error("owed-1")))
            for _ in range(200):
                if bot.outbox.is_parked(closed):
                    break
                await asyncio.sleep(0.05)
            assert bot.outbox.is_parked(closed)
            async with http.get(f"http://127.0.0.1:{metrics_port}/metrics") as r:
                assert r.status == 200
                assert r.headers["Content-Type"].startswith("text/plain")
                text = await r.text()
            async with http.get(f"http://127.0.0.1:{api_port}/metrics") as r:
                api_text = await r.text()
    finally:
        await team.member.close()

    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families["roombot_api_ack_seconds"].type == "histogram"
    assert families["roombot_notice_delivery_seconds"].type == "histogram"
    assert value(text, "roombot_api_ack_seconds_count") == 1  # one batch, one 202
    assert value(text, "roombot_notice_delivery_seconds_count") == 1
    assert value(text, "roombot_notice_delivery_seconds_bucket", le="+Inf") == 1
    assert 0 < value(text, "roombot_notice_delivery_seconds_sum") < 60
    assert value(text, "roombot_api_events_total", source="ci") == 3
    assert value(text, "roombot_outbox_room_backlog", room=team.room_id) == 0
    assert value(text, "roombot_outbox_oldest_owed_age_seconds", room=team.room_id) == 0
    assert value(text, "roombot_outbox_room_backlog", room=closed) == 1
    assert value(text, "roombot_outbox_oldest_owed_age_seconds", room=closed) > 0
    assert value(text, "roombot_outbox_parked") == 1
    assert value(text, "roombot_journal_rows") >= 3  # the batch's events, until pruned
    assert value(text, "roombot_store_info", engine=bot_store) == 1
    if bot_store == "postgresql":  # SQLite has no lease (one state directory, one bot)
        assert value(text, "roombot_store_lease_valid") == 1
    assert value(text, "process_resident_memory_bytes") > 0
    assert "python_gc_objects_collected" in families
    # One registry behind both ports: the API's /metrics has the bot's families too.
    assert set(families) == {f.name for f in text_string_to_metric_families(api_text)}

    dashboard = json.loads(DASHBOARD.read_text())
    exposed = exposed_names(list(families.values()))
    used: set[str] = set()
    for where, query in dashboard_queries(dashboard):
        names = metric_names(query)
        assert names, f"{where}: no metric in {query!r}"
        missing = names - exposed
        assert not missing, f"{where}: {sorted(missing)} not in /metrics"
        used |= names
    # The dashboard shows the distributions and the per-room backlog it was made for.
    for name in (
        "roombot_api_ack_seconds_bucket",
        "roombot_notice_delivery_seconds_bucket",
        "roombot_outbox_room_backlog",
        "roombot_outbox_oldest_owed_age_seconds",
    ):
        assert name in used, name


async def test_a_drained_room_keeps_its_series_at_zero(tmp_path: Path) -> None:
    # No homeserver is needed: the bot's registry is read without running it.
    (tmp_path / "c.toml").write_text(
        'state_dir = "state"\n[matrix]\nhomeserver = "http://127.0.0.1:9"\n'
        'user_id = "@bot:localhost"\npassword_env = "ROOMBOT_METRICS_UNSET"\n'
        '[[rooms]]\nroom = "!configured:localhost"\n'
    )
    bot = Bot(load_config(tmp_path / "c.toml"))
    try:
        bot.outbox.enqueue(Post("!busy:localhost", "k1", turn_error("k1")))
        await asyncio.sleep(0.01)
        text = render(bot.registry).decode()
        assert value(text, "roombot_outbox_room_backlog", room="!busy:localhost") == 1
        assert value(text, "roombot_outbox_oldest_owed_age_seconds", room="!busy:localhost") > 0
        assert value(text, "roombot_outbox_room_backlog", room="!configured:localhost") == 0
        notice = bot.outbox.head("!busy:localhost")
        assert notice is not None
        bot.outbox.mark_sent(notice.seq, "$sent")
        text = render(bot.registry).decode()
        assert value(text, "roombot_outbox_room_backlog", room="!busy:localhost") == 0
        assert value(text, "roombot_outbox_oldest_owed_age_seconds", room="!busy:localhost") == 0
    finally:
        await bot.shell.close()
        bot.outbox.close()


@pytest.mark.parametrize("name", ["roombot_redactions_total", "roombot_api_refused_total"])
def test_a_family_without_samples_still_names_its_series(name: str) -> None:
    text = f"# HELP {name} x\n# TYPE {name} counter\n"
    assert name in exposed_names(list(text_string_to_metric_families(text)))
