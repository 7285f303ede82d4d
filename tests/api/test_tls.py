"""The report API over TLS, with a throwaway CA made here (trustme).

Every client delivers through it (the report client, `roombot report`, the ACP proxy,
the Pi and OpenClaw reporters under node); a wrong CA, an expired certificate, another host's
certificate and plain http:// to a host other than loopback are each refused in words
that say which; SIGHUP serves a renewed certificate; no log line holds the token.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from lab import setups
from roombot.acp.spool import Spool
from roombot.api.server import serve_api
from roombot.api.settings import ApiSettings, parse_api_settings
from roombot.config import ConfigError
from roombot.observe import JsonFormatter
from roombot.pipeline import Pipeline
from roombot.report_client import CannotSend, ReportClient, ReportError, Untrusted
from roombot.report_tls import is_loopback
from tests.acp.transcript import TRANSCRIPTS, run_proxy
from tests.api.conftest import ROOM, TOKENS, sources, started
from tests.api.pki import Pki, make_pki, served_sha256, sha256_of

ROOT = Path(__file__).resolve().parents[2]
TOKEN = TOKENS["hub"]
FAR = "roombot.example.org"  # never resolved: every URL naming it is refused before that


@pytest.fixture
def pki(tmp_path: Path) -> Pki:
    return make_pki(tmp_path / "pki")


@pytest.fixture
def other_ca(tmp_path: Path) -> Path:
    """The CA file of a CA that signed none of the server's certificates."""
    return make_pki(tmp_path / "other").ca_file


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    return path


@asynccontextmanager
async def https_api(pipeline: Pipeline, cert: Path, key: Path) -> AsyncIterator[str]:
    settings = ApiSettings(
        host="127.0.0.1", sources=sources(), tls_cert_file=cert, tls_key_file=key
    )
    runner = await serve_api(settings, pipeline, reload_on_sighup=False)
    try:
        yield f"https://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def plain_api(pipeline: Pipeline) -> AsyncIterator[str]:
    settings = ApiSettings(host="127.0.0.1", sources=sources())
    runner = await serve_api(settings, pipeline, reload_on_sighup=False)
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


# --- the server's side ---------------------------------------------------------------------


def test_the_settings_take_a_matching_pair_and_say_what_is_wrong(pki: Pki) -> None:
    cert, key = pki.leaf("api", "127.0.0.1")
    other_cert, other_key = pki.leaf("other", "127.0.0.1")

    def parse(**tls: str) -> ApiSettings:
        return parse_api_settings(tls, base=pki.dir, state_dir=pki.dir)

    ok = parse(tls_cert_file="api.crt", tls_key_file=str(key))  # relative to the config file
    assert (ok.tls_cert_file, ok.tls_key_file, ok.scheme) == (cert, key, "https")
    assert parse().scheme == "http"

    def refused(where: str, words: str, **tls: str) -> None:
        with pytest.raises(ConfigError) as err:
            parse(**tls)
        assert err.value.key == where and words in err.value.problem, str(err.value)

    refused("api.tls_key_file", "set both or neither", tls_cert_file=str(cert))
    refused("api.tls_cert_file", "set both or neither", tls_key_file=str(key))
    refused(
        "api.tls_cert_file",
        "cannot read the certificate file",
        tls_cert_file=str(pki.dir / "missing.crt"),
        tls_key_file=str(key),
    )
    refused(
        "api.tls_key_file",
        "cannot read the key file",
        tls_cert_file=str(cert),
        tls_key_file=str(pki.dir / "missing.key"),
    )
    refused(
        "api.tls_key_file",
        f"the key {other_key} does not match the certificate {cert}",
        tls_cert_file=str(cert),
        tls_key_file=str(other_key),
    )
    refused(
        "api.tls_cert_file",
        "holds no PEM certificate",
        tls_cert_file=str(key),
        tls_key_file=str(key),
    )
    refused(
        "api.tls_key_file",
        "holds no PEM private key",
        tls_cert_file=str(other_cert),
        tls_key_file=str(other_cert),
    )
    refused("api.tls_cert_file", "non-empty string", tls_cert_file="", tls_key_file=str(key))


async def test_the_api_speaks_https_only_and_the_report_client_delivers_through_it(
    pki: Pki, other_ca: Path, pipeline: Pipeline
) -> None:
    cert, key = pki.leaf("api", "127.0.0.1", "localhost")
    async with https_api(pipeline, cert, key) as url:
        client = ReportClient(url, TOKEN, ca_file=pki.ca_file, tries=1)
        answer = await asyncio.to_thread(client.send_event, started("tls-1"))
        assert answer["accepted"] == 1
        state = await asyncio.to_thread(client.turn, "tls-1")
        assert state["turn"] == "tls-1" and state["room"] == ROOM
        assert await pipeline.journal_size() == 1
        # the same API by name: the certificate names localhost too
        by_name = ReportClient(url.replace("127.0.0.1", "localhost"), TOKEN, ca_file=pki.ca_file)
        assert (await asyncio.to_thread(by_name.turn, "tls-1"))["turn"] == "tls-1"

        # plain HTTP to the same port is not answered
        plain = ReportClient(url.replace("https:", "http:"), TOKEN, tries=1, timeout=5)
        with pytest.raises(ReportError):
            await asyncio.to_thread(plain.send_event, started("tls-plain"))
        # a CA that did not sign it, and the system's CAs (which know nothing of ours)
        for ca_file in (other_ca, None):
            untrusting = ReportClient(url, TOKEN, ca_file=ca_file, tries=3)
            t0 = time.monotonic()
            with pytest.raises(Untrusted, match=r"unknown issuer") as err:
                await asyncio.to_thread(untrusting.send_event, started("tls-2"))
            assert time.monotonic() - t0 < 2  # refused at once, not retried with backoff
            assert TOKEN not in str(err.value)
    assert await pipeline.journal_size() == 1


async def test_the_report_client_names_each_certificate_refusal(
    pki: Pki, pipeline: Pipeline
) -> None:
    expired = pki.expired("expired", "127.0.0.1")
    elsewhere = pki.leaf("elsewhere", FAR)
    ip_only = pki.leaf("ip-only", "127.0.0.1")
    cases = (
        (expired, "127.0.0.1", r"127\.0\.0\.1: the server's certificate has expired"),
        (elsewhere, "127.0.0.1", r"is for another host \(host name mismatch\)"),
        (ip_only, "localhost", r"localhost: the certificate is for another host \(host name"),
    )
    for (cert, key), host, words in cases:
        async with https_api(pipeline, cert, key) as url:
            client = ReportClient(url.replace("127.0.0.1", host), TOKEN, ca_file=pki.ca_file)
            with pytest.raises(Untrusted, match=words) as err:
                await asyncio.to_thread(client.send_event, started("tls-x"))
            assert TOKEN not in str(err.value)
    # https:// to an API that speaks plain HTTP
    async with plain_api(pipeline) as plain:
        client = ReportClient(plain.replace("http:", "https:"), TOKEN, ca_file=pki.ca_file)
        with pytest.raises(Untrusted, match=r"does not speak TLS on this port"):
            await asyncio.to_thread(client.send_event, started("tls-x"))
    assert await pipeline.journal_size() == 0


# --- the URL rule, before any packet ---------------------------------------------------------

_NET_EVENTS = frozenset({"socket.getaddrinfo", "socket.connect", "socket.sendto", "socket.sendmsg"})
_seen_net: list[tuple[str, Any]] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _seen_net is not None and event in _NET_EVENTS:
        _seen_net.append((event, args))


sys.addaudithook(_audit)  # records only while a test holds _seen_net


@pytest.fixture
def network_calls() -> Iterator[list[tuple[str, Any]]]:
    global _seen_net
    _seen_net = []
    try:
        yield _seen_net
    finally:
        _seen_net = None


def test_plain_http_to_a_non_loopback_host_is_refused_before_any_packet(
    network_calls: list[tuple[str, Any]], caplog: pytest.LogCaptureFixture
) -> None:
    for url in (f"http://{FAR}:8450", "http://10.1.2.3:8450", "http://[2001:db8::1]:8450"):
        with pytest.raises(CannotSend, match=r"plain http:// to a non-loopback host \(") as err:
            ReportClient(url, TOKEN).send_event(started("never"))
        assert "--insecure" in str(err.value) and TOKEN not in str(err.value)
    with pytest.raises(CannotSend, match="holds credentials") as err:
        ReportClient(f"https://hub:{TOKEN}@{FAR}", TOKEN)
    assert TOKEN not in str(err.value)
    with pytest.raises(CannotSend, match="expected an https://"):
        ReportClient(f"ftp://{FAR}", TOKEN)
    with pytest.raises(CannotSend, match="cannot read the CA file"):
        ReportClient(f"https://{FAR}", TOKEN, ca_file="/nonexistent/ca.pem")
    assert network_calls == []  # nothing was looked up, nothing was sent

    # told --insecure: allowed, with one warning naming the host (and not the token)
    caplog.set_level(logging.DEBUG)
    ReportClient(f"http://{FAR}:8450", TOKEN, insecure=True)
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and f"non-loopback host ({FAR})" in warned[0].getMessage()
    # loopback needs no permission and gets no warning
    caplog.clear()
    for url in (
        "http://127.0.0.1:1",
        "http://127.8.9.10:1",
        "http://[::1]:1",
        "http://localhost:1",
    ):
        ReportClient(url, TOKEN)
    assert caplog.records == []
    assert network_calls == []
    for host in ("localhost", "LocalHost.", "127.0.0.1", "127.255.0.9", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in (FAR, "10.0.0.1", "128.0.0.1", "::2", "localhost.example.org", "0.0.0.0"):
        assert not is_loopback(host), host


# --- `roombot report` --------------------------------------------------------------------------


async def roombot_report(*args: str) -> tuple[int, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "roombot",
        "report",
        "--turn",
        "cli-1",
        "--room",
        ROOM,
        "--harness",
        "ironflow",
        "--message",
        "529 overloaded",
        "--tries",
        "2",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "ROOMBOT_API_TOKEN": TOKEN, "PYTHONPATH": str(ROOT)},
    )
    out, err = await proc.communicate()
    assert proc.returncode is not None
    text = out.decode() + err.decode()
    assert TOKEN not in text
    return proc.returncode, text


async def test_roombot_report_verifies_and_says_which_refusal(
    pki: Pki, other_ca: Path, pipeline: Pipeline
) -> None:
    cert, key = pki.leaf("api", "127.0.0.1")
    async with https_api(pipeline, cert, key) as url:
        code, text = await roombot_report("--url", url, "--ca-file", str(pki.ca_file))
        assert code == 0, text
        assert json.loads(text)["accepted"] == 2  # a one-shot report: started and ended
        code, text = await roombot_report("--url", url, "--ca-file", str(other_ca))
        assert code == 3 and "TLS refused: 127.0.0.1: " in text and "unknown issuer" in text
    expired = pki.expired("expired", "127.0.0.1")
    async with https_api(pipeline, *expired) as url:
        code, text = await roombot_report("--url", url, "--ca-file", str(pki.ca_file))
        assert code == 3 and "certificate has expired" in text, text
    async with https_api(pipeline, *pki.leaf("elsewhere", FAR)) as url:
        code, text = await roombot_report("--url", url, "--ca-file", str(pki.ca_file))
        assert code == 3 and "(host name mismatch)" in text, text
    code, text = await roombot_report("--url", f"http://{FAR}:8450")
    assert code == 2 and f"plain http:// to a non-loopback host ({FAR})" in text, text
    assert await pipeline.journal_size() == 2


# --- the ACP proxy -----------------------------------------------------------------------------


def proxy(tmp: Path, *args: str) -> tuple[int, str, bool]:
    """The proxy around the fake agent: exit status, stderr, whether the agent ran."""
    run = run_proxy(
        TRANSCRIPTS / "prompt_rejected.acp", tmp, "--room", ROOM, "--drain-seconds", "2", *args
    )
    stderr = run.stderr.decode()
    assert TOKEN not in stderr
    return run.status, stderr, bool(run.received)


async def test_the_acp_proxy_delivers_over_https_and_says_when_it_cannot(
    pki: Pki, other_ca: Path, pipeline: Pipeline, token_file: Path, tmp_path: Path
) -> None:
    cert, key = pki.leaf("api", "127.0.0.1")
    spool = tmp_path / "spool.sqlite"
    base = ("--token-file", str(token_file), "--spool", str(spool))
    async with https_api(pipeline, cert, key) as url:
        # the wrong CA: said at once, the events kept for the next run
        status, stderr, ran = await asyncio.to_thread(
            proxy, tmp_path, "--url", url, "--ca-file", str(other_ca), *base
        )
        assert status == 0 and ran
        assert "roombot acp-proxy: TLS refused: 127.0.0.1: " in stderr
        assert "unknown issuer" in stderr and "kept in the spool" in stderr
        kept = Spool(spool)
        assert [e["type"] for _, e in kept.batch()] == ["turn.started", "turn.ended"]
        kept.close()
        assert await pipeline.journal_size() == 0
        # the right CA: the kept events go first, then this run's
        status, stderr, ran = await asyncio.to_thread(
            proxy, tmp_path, "--url", url, "--ca-file", str(pki.ca_file), *base
        )
        assert status == 0 and ran, stderr
        left = Spool(spool)
        assert len(left) == 0
        left.close()
        assert await pipeline.journal_size() == 2  # the two runs report the same turn
        assert pipeline.status("acp/sess-7d1/2") is not None
    # plain http to another host: refused before the harness starts
    status, stderr, ran = await asyncio.to_thread(proxy, tmp_path, "--url", f"http://{FAR}", *base)
    assert status == 2 and not ran
    assert f"--url: plain http:// to a non-loopback host ({FAR})" in stderr
    status, stderr, ran = await asyncio.to_thread(
        proxy, tmp_path, "--url", url, "--ca-file", str(tmp_path / "none.pem"), *base
    )
    assert status == 2 and not ran and "cannot read the CA file" in stderr


# --- the JS reporters, under node ---------------------------------------------------------


REPORTER_TOKEN = TOKENS["ops"]  # a reporter names sessions, not rooms: its source has every room


def js_reporter(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    node = setups.NODE24_BIN / "node"
    if not node.exists():
        pytest.fail("node 24 not installed: run `make harnesses` (lab/install.sh)")
    res = subprocess.run(
        [str(node), str(ROOT / "tests" / "api" / "js_reporter.mjs"), name, json.dumps(settings)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert res.returncode == 0, res.stderr
    assert REPORTER_TOKEN not in res.stdout + res.stderr
    out: dict[str, Any] = json.loads(res.stdout)
    return out


@pytest.mark.parametrize("name", ["pi", "openclaw"])
async def test_a_js_reporter_delivers_over_https_and_says_which_refusal(
    name: str, pki: Pki, other_ca: Path, pipeline: Pipeline, tmp_path: Path
) -> None:
    token_file = tmp_path / "reporter-token"
    token_file.write_text(REPORTER_TOKEN)
    base = {"tokenFile": str(token_file)}
    cert, key = pki.leaf("api", "127.0.0.1")
    async with https_api(pipeline, cert, key) as url:
        sent = await asyncio.to_thread(
            js_reporter, name, {**base, "url": url, "caFile": str(pki.ca_file)}
        )
        assert sent["counts"]["sent"] == 1 and sent["lines"] == [], json.dumps(sent)
        assert await pipeline.journal_size() == 1
        wrong = await asyncio.to_thread(
            js_reporter, name, {**base, "url": url, "caFile": str(other_ca)}
        )
        assert wrong["counts"] == {"sent": 0, "dropped": 1, "retries": 0}, wrong
        assert "TLS refused: 127.0.0.1: " in wrong["lines"][0]
        assert "unknown issuer" in wrong["lines"][0]
    expired = pki.expired("expired", "127.0.0.1")
    for (c, k), words in (
        (expired, "certificate has expired"),
        (pki.leaf("elsewhere", FAR), "(host name mismatch)"),
    ):
        async with https_api(pipeline, c, k) as url:
            out = await asyncio.to_thread(
                js_reporter, name, {**base, "url": url, "caFile": str(pki.ca_file)}
            )
            assert out["counts"]["dropped"] == 1 and words in out["lines"][0], out
    async with plain_api(pipeline) as plain:
        https_to_plain = {
            **base,
            "url": plain.replace("http:", "https:"),
            "caFile": str(pki.ca_file),
        }
        out = await asyncio.to_thread(js_reporter, name, https_to_plain)
        assert out["counts"]["dropped"] == 1, out
        assert "does not speak TLS on this port" in out["lines"][0], out
    far = await asyncio.to_thread(js_reporter, name, {**base, "url": f"http://{FAR}:8450"})
    assert far["counts"] is None  # not configured: nothing is ever sent
    assert f"plain http:// to a non-loopback host ({FAR})" in far["lines"][0]
    assert await pipeline.journal_size() == 1


# --- SIGHUP ----------------------------------------------------------------------------------


class ApiProcess:
    """tests/api/serve_tls.py in its own process: its port and its JSON log lines."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.api.serve_tls", str(state)],
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
        )
        self.lines: list[str] = []
        deadline = time.monotonic() + 30
        while not (state / "port").exists():
            assert self.proc.poll() is None, "the API process died"
            assert time.monotonic() < deadline, "the API process never listened"
            time.sleep(0.05)
        self.port = int((state / "port").read_text())

    def hup_and_wait(self, words: str) -> dict[str, Any]:
        self.proc.send_signal(signal.SIGHUP)
        assert self.proc.stderr is not None
        while line := self.proc.stderr.readline().decode():
            self.lines.append(line)
            record = json.loads(line)
            if words in record["msg"]:
                return dict(record)
        raise AssertionError(f"no log line with {words!r}: {self.lines}")

    def stop(self) -> str:
        self.proc.terminate()
        _, rest = self.proc.communicate(timeout=10)
        self.lines += rest.decode().splitlines(keepends=True)
        return "".join(self.lines)


def test_sighup_serves_a_renewed_certificate_and_keeps_the_old_one_on_failure(
    pki: Pki, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    first, first_key = pki.leaf("first", "127.0.0.1")
    renewed, renewed_key = pki.leaf("renewed", "127.0.0.1")
    _, stranger_key = pki.leaf("stranger", "127.0.0.1")
    shutil.copy(first, state / "cert.pem")
    shutil.copy(first_key, state / "key.pem")
    api = ApiProcess(state)
    try:
        assert served_sha256(api.port, pki.ca_file) == sha256_of(first)
        client = ReportClient(f"https://127.0.0.1:{api.port}", TOKEN, ca_file=pki.ca_file)
        held = socket.create_connection(("127.0.0.1", api.port))  # opened before the renewal
        ctx = ssl.create_default_context(cafile=str(pki.ca_file))
        held_tls = ctx.wrap_socket(held, server_hostname="127.0.0.1")

        # renewed in place, as certbot or a secret mount does
        shutil.copy(renewed, state / "cert.pem")
        shutil.copy(renewed_key, state / "key.pem")
        line = api.hup_and_wait("certificate reloaded")
        assert line["level"] == "info" and line["sha256"] == sha256_of(renewed)
        assert served_sha256(api.port, pki.ca_file) == sha256_of(renewed)
        assert client.send_event(started("hup-1"))["accepted"] == 1
        # a connection made before keeps the certificate it was given
        old = held_tls.getpeercert(binary_form=True)
        assert old is not None and hashlib.sha256(old).hexdigest() == sha256_of(first)
        held_tls.close()

        # a key that does not match: the renewed certificate goes on being served
        shutil.copy(stranger_key, state / "key.pem")
        line = api.hup_and_wait("not reloaded")
        assert line["level"] == "error" and "does not match the certificate" in line["reason"]
        assert served_sha256(api.port, pki.ca_file) == sha256_of(renewed)
        # and a file that went away
        (state / "cert.pem").unlink()
        line = api.hup_and_wait("not reloaded")
        assert "cannot read the certificate file" in line["reason"]
        assert served_sha256(api.port, pki.ca_file) == sha256_of(renewed)
        assert client.turn("hup-1")["turn"] == "hup-1"
        with pytest.raises(ReportError, match="401"):
            ReportClient(client.url, TOKENS["ops"][::-1], ca_file=pki.ca_file).turn("hup-1")
    finally:
        log = api.stop()
    # the server's log at debug level: JSON lines only, and no token, good or bad, in any
    for text in log.splitlines():
        json.loads(text)
    assert TOKEN not in log and TOKENS["ops"][::-1] not in log


# --- the token in logs -----------------------------------------------------------------------


async def test_no_log_line_of_server_or_client_holds_the_token(
    pki: Pki, other_ca: Path, pipeline: Pipeline, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "not-a-source-token-0123456789"
    cert, key = pki.leaf("api", "127.0.0.1")
    async with https_api(pipeline, cert, key) as url:
        good = ReportClient(url, TOKEN, ca_file=pki.ca_file)
        await asyncio.to_thread(good.send_event, started("log-1"))
        for client in (
            ReportClient(url, wrong, ca_file=pki.ca_file),
            ReportClient(url, TOKEN, ca_file=other_ca),
            ReportClient(url.replace("https:", "http:"), TOKEN, tries=1, timeout=5),
        ):
            with pytest.raises(ReportError) as err:
                await asyncio.to_thread(client.send_event, started("log-2"))
            assert TOKEN not in str(err.value) and wrong not in str(err.value)
        ReportClient(f"http://{FAR}", TOKEN, insecure=True)
    assert caplog.records, "nothing was logged: the check would prove nothing"
    formatter = JsonFormatter()
    for record in caplog.records:
        line = formatter.format(record)
        assert TOKEN not in line and wrong not in line, line
