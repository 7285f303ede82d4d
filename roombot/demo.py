"""`roombot demo`: the whole product on a throwaway homeserver, in one command.

Starts Synapse on 127.0.0.1 (SQLite, temporary directory), registers the bot
and a viewer, the viewer creates an end-to-end encrypted room and invites the
bot, then realistic failed turns go through the real pipeline (journal ->
normalise -> turn rules -> outbox -> Matrix). The viewer reads the room back,
decrypting, prints every card with the reference plain renderer and writes
the HTML page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from roombot.events import parse_event

# -- the turns --------------------------------------------------------------------------


def _anthropic(kind: str, message: str) -> str:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}})


def _openai(message: str, kind: str, code: str | None) -> str:
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


@dataclass(frozen=True, slots=True)
class Scenario:
    turn: str
    title: str
    events: tuple[dict[str, Any], ...]
    expect_post: bool = True


def scenarios(room: str) -> list[Scenario]:
    """One turn per kind, a three-attempt fallback chain, a recovered fallback (posts
    nothing), an error posing as the answer, and a dropped error recovered by a report."""
    out: list[Scenario] = []

    def started(turn: str, harness: str, provider: str, model: str, **kw: Any) -> dict[str, Any]:
        return {
            "type": "turn.started",
            "turn": turn,
            "room": room,
            "harness": harness,
            "provider": provider,
            "model": model,
            "event_id": f"{turn}-start",
            **kw,
        }

    def failed(turn: str, provider: str, model: str, error: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "turn.failed_attempt",
            "turn": turn,
            "provider": provider,
            "model": model,
            "error": error,
            "event_id": f"{turn}-fail-{model}",
        }

    def ended(turn: str, **kw: Any) -> dict[str, Any]:
        return {"type": "turn.ended", "turn": turn, "event_id": f"{turn}-end", **kw}

    def http_failure(
        turn: str,
        title: str,
        harness: str,
        provider: str,
        model: str,
        status: int,
        body: str,
        headers: dict[str, str] | None = None,
    ) -> Scenario:
        error = {"status": status, "body": body, "headers": headers or {}}
        return Scenario(
            turn,
            title,
            (
                started(turn, harness, provider, model),
                failed(turn, provider, model, error),
                ended(turn, error=error),
            ),
        )

    out.append(
        http_failure(
            "demo-quota",
            "quota: the billing limit",
            "codex",
            "openai",
            "gpt-5",
            429,
            _openai(
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota",
                "insufficient_quota",
            ),
        )
    )
    out.append(
        http_failure(
            "demo-rate-limit",
            "rate_limit: per-minute throttling",
            "claude-code",
            "anthropic",
            "claude-sonnet-4-5",
            429,
            _anthropic(
                "rate_limit_error",
                "This request would exceed the rate limit for your organization of 50 "
                "requests per minute. Please try again later.",
            ),
            {"retry-after": "23"},
        )
    )
    out.append(
        http_failure(
            "demo-auth",
            "auth: a revoked key",
            "claude-code",
            "anthropic",
            "claude-sonnet-4-5",
            401,
            _anthropic("authentication_error", "invalid x-api-key"),
        )
    )
    out.append(
        http_failure(
            "demo-bad-request",
            "bad_request: a parameter the model does not take",
            "codex",
            "openai",
            "o3",
            400,
            _openai(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "invalid_request_error",
                "unsupported_parameter",
            ),
        )
    )
    out.append(
        http_failure(
            "demo-context",
            "context_exhausted: the prompt is over the window",
            "claude-code",
            "anthropic",
            "claude-opus-4-1",
            400,
            _anthropic(
                "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum"
            ),
        )
    )
    out.append(
        http_failure(
            "demo-timeout",
            "timeout: no answer in time",
            "opencode",
            "openrouter",
            "deepseek/deepseek-r1",
            0,
            "ReadTimeout: the provider did not answer within 600 s",
        )
    )
    out.append(
        http_failure(
            "demo-unavailable",
            "provider_unavailable: overloaded",
            "claude-code",
            "anthropic",
            "claude-sonnet-4-5",
            529,
            _anthropic("overloaded_error", "Overloaded"),
        )
    )
    for turn, title, reason, harness, provider, model in (
        (
            "demo-refusal",
            "refusal: a safety stop",
            "refusal",
            "claude-code",
            "anthropic",
            "claude-opus-4-1",
        ),
        (
            "demo-max-tokens",
            "max_tokens: the answer was cut",
            "max_tokens",
            "gemini-cli",
            "google",
            "gemini-2.5-pro",
        ),
        (
            "demo-cancelled",
            "cancelled: someone pressed stop",
            "cancelled",
            "codex",
            "openai",
            "gpt-5",
        ),
    ):
        out.append(
            Scenario(
                turn,
                title,
                (started(turn, harness, provider, model), ended(turn, stop_reason=reason)),
            )
        )
    out.append(
        Scenario(
            "demo-node-offline",
            "node_offline: the machine running the agent went away",
            (
                started(
                    "demo-node-offline",
                    "openclaw",
                    "anthropic",
                    "claude-sonnet-4-5",
                    node="gpu-box-3",
                ),
                {
                    "type": "node.offline",
                    "node": "gpu-box-3",
                    "error": {
                        "text": "node gpu-box-3 stopped answering heartbeats (last seen 95 s ago)"
                    },
                    "event_id": "demo-node-offline-gone",
                },
            ),
        )
    )
    out.append(
        Scenario(
            "demo-exited",
            "harness_exited: the agent process died",
            (
                started("demo-exited", "hermes", "openai", "gpt-5-mini"),
                {
                    "type": "harness.exited",
                    "harness": "hermes",
                    "error": {"exit": {"code": 137, "stderr": "Killed (out of memory)"}},
                    "event_id": "demo-exited-gone",
                },
            ),
        )
    )
    out.append(
        http_failure(
            "demo-unknown",
            "unknown: a failure that fits no kind",
            "pi",
            "mistral",
            "mistral-large-latest",
            418,
            "I'm a teapot: the gateway returned something nobody expected",
        )
    )
    # A fallback chain: three tries, three failures, one card listing all three.
    chain = "demo-fallback-chain"
    out.append(
        Scenario(
            chain,
            "a three-attempt fallback chain",
            (
                started(chain, "openclaw", "anthropic", "claude-sonnet-4-5"),
                failed(
                    chain,
                    "anthropic",
                    "claude-sonnet-4-5",
                    {"status": 529, "body": _anthropic("overloaded_error", "Overloaded")},
                ),
                {
                    "type": "turn.attempt",
                    "turn": chain,
                    "provider": "openai",
                    "model": "gpt-5",
                    "event_id": f"{chain}-try2",
                },
                failed(
                    chain,
                    "openai",
                    "gpt-5",
                    {
                        "status": 429,
                        "body": _openai(
                            "You exceeded your current quota, please check your plan and "
                            "billing details.",
                            "insufficient_quota",
                            "insufficient_quota",
                        ),
                    },
                ),
                {
                    "type": "turn.attempt",
                    "turn": chain,
                    "provider": "google",
                    "model": "gemini-2.5-pro",
                    "event_id": f"{chain}-try3",
                },
                failed(
                    chain,
                    "google",
                    "gemini-2.5-pro",
                    {
                        "status": 503,
                        "body": json.dumps(
                            {
                                "error": {
                                    "code": 503,
                                    "message": "The model is overloaded. Please try again later.",
                                    "status": "UNAVAILABLE",
                                }
                            }
                        ),
                    },
                ),
                ended(chain, error={"status": 503, "body": "all fallbacks failed"}),
            ),
        )
    )
    # A recovered fallback: the first provider failed, the second answered. No card.
    rec = "demo-recovered-fallback"
    out.append(
        Scenario(
            rec,
            "a recovered fallback (must post nothing)",
            (
                started(rec, "openclaw", "anthropic", "claude-sonnet-4-5"),
                failed(
                    rec,
                    "anthropic",
                    "claude-sonnet-4-5",
                    {"status": 529, "body": _anthropic("overloaded_error", "Overloaded")},
                ),
                {
                    "type": "turn.attempt",
                    "turn": rec,
                    "provider": "openai",
                    "model": "gpt-5",
                    "event_id": f"{rec}-try2",
                },
                {
                    "type": "turn.output",
                    "turn": rec,
                    "text": "Here is the refactored function.",
                    "event_id": f"{rec}-out",
                },
                ended(rec, stop_reason="end_turn"),
            ),
            expect_post=False,
        )
    )
    # An error posing as the answer: the harness printed the API error as its reply.
    posing = "demo-posing-answer"
    out.append(
        Scenario(
            posing,
            "an error posing as the answer",
            (
                started(posing, "claude-code", "anthropic", "claude-sonnet-4-5"),
                {
                    "type": "turn.output",
                    "turn": posing,
                    "event_id": f"{posing}-out",
                    "text": "API Error: 529 " + _anthropic("overloaded_error", "Overloaded"),
                },
                ended(posing, stop_reason="end_turn"),
            ),
        )
    )
    # A dropped error: the harness ended with nothing; its reporter recovered why.
    dropped = "demo-dropped-reported"
    out.append(
        Scenario(
            dropped,
            "a dropped error recovered by a report",
            (
                started(dropped, "openclaw", "openrouter", "anthropic/claude-sonnet-4.5"),
                ended(dropped, stop_reason="end_turn"),
                {
                    "type": "turn.report",
                    "turn": dropped,
                    "source": "openclaw-hook",
                    "event_id": f"{dropped}-report",
                    "error": {
                        "status": 402,
                        "body": json.dumps(
                            {
                                "error": {
                                    "message": "Insufficient credits. Add more using https://openrouter.ai/credits",
                                    "code": 402,
                                }
                            }
                        ),
                    },
                },
            ),
        )
    )
    return out


# -- progress ------------------------------------------------------------------------------


class Progress:
    """One line per step, with its time; a spinner-free display that works in any terminal."""

    def __init__(self, out: TextIO, total: int) -> None:
        self.out = out
        self.total = total
        self.n = 0

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        self.n += 1
        t0 = time.monotonic()
        self.out.write(f"[{self.n}/{self.total}] {what} ... ")
        self.out.flush()
        try:
            yield
        except BaseException:
            self.out.write("failed\n")
            raise
        self.out.write(f"done ({time.monotonic() - t0:.1f} s)\n")
        self.out.flush()

    def note(self, text: str) -> None:
        self.out.write(f"      {text}\n")
        self.out.flush()


# -- the run -------------------------------------------------------------------------------


async def run_demo(out_html: Path, *, keep: bool = False, stream: TextIO = sys.stderr) -> int:
    from cards.codec import CARD_KEY, read_payload
    from cards.render import render_html_page, render_plain
    from cards.shape import TurnError
    from roombot.bot import Bot
    from roombot.config import parse_config
    from roombot.devserver import DevServer, synapse_available
    from roombot.viewer import Viewer

    if not synapse_available():
        print(
            "roombot demo needs Synapse in this environment: pip install 'roombot[test]' "
            "(or `make demo`, which does)",
            file=sys.stderr,
        )
        return 1
    p = Progress(stream, 7)
    work = Path(tempfile.mkdtemp(prefix="roombot-demo-"))
    hs = DevServer(work / "synapse")
    viewer: Viewer | None = None
    bot: Bot | None = None
    bot_task: asyncio.Task[None] | None = None
    try:
        with p.step("starting a throwaway Synapse on 127.0.0.1 (SQLite)"):
            await asyncio.to_thread(hs.start)
        p.note(f"{hs.url}, data in {hs.directory}")
        with p.step("registering the bot and a viewer"):
            bot_user = await asyncio.to_thread(hs.register_user, "roombot")
            viewer_user = await asyncio.to_thread(hs.register_user, "viewer")
            viewer = Viewer(hs.url, viewer_user.user_id, viewer_user.password, work / "viewer")
            await viewer.login()
        with p.step("creating an end-to-end encrypted team room"):
            room_id = await viewer.create_room(
                encrypted=True, invite=(bot_user.user_id,), name="agents"
            )
        p.note(f"{room_id} (megolm), the bot invited")
        with p.step("starting the bot (login, crypto store, initial sync, join)"):
            (work / "bot").mkdir()
            (work / "bot" / "password").write_text(bot_user.password)
            config = parse_config(
                {
                    "state_dir": "state",
                    "matrix": {
                        "homeserver": hs.url,
                        "user_id": bot_user.user_id,
                        "password_file": "password",
                        "sync_timeout_ms": 2000,
                    },
                    "rooms": [{"room": room_id}],
                    "outbox": {"backoff_initial": 0.2, "backoff_max": 2.0, "poll_interval": 0.2},
                    "turns": {"post_cancelled": True},  # so every kind shows up once
                    "log": {"format": "text"},
                },
                base=work / "bot",
            )
            logging.basicConfig(filename=work / "bot.log", level=logging.INFO, force=True)
            bot = Bot(config)
            bot_task = asyncio.create_task(bot.run(handle_signals=False))
            started = asyncio.create_task(bot.started.wait())
            await asyncio.wait({bot_task, started}, timeout=60, return_when="FIRST_COMPLETED")
            if bot_task.done():
                bot_task.result()
            if not bot.started.is_set():
                raise TimeoutError("the bot did not start within 60 s")
        turns = scenarios(room_id)
        with p.step(f"driving {len(turns)} failed turns through the pipeline"):
            for s in turns:
                await bot.pipeline.accept([parse_event(e) for e in s.events])
            deadline = time.monotonic() + 30
            while True:
                statuses = [bot.pipeline.status(s.turn) for s in turns]
                decided = all(st is not None and st.state == "decided" for st in statuses)
                posts = sum(1 for st in statuses if st is not None and st.notice == "post")
                counts = bot.outbox.counts()
                if (
                    decided
                    and counts["pending"] == 0
                    and counts["sent"] + counts["failed"] >= posts
                ):
                    break
                if time.monotonic() > deadline:
                    open_turns = [
                        s.turn
                        for s, st in zip(turns, statuses, strict=True)
                        if st is None or st.state != "decided"
                    ]
                    raise TimeoutError(f"not all delivered in 30 s: {counts}, open: {open_turns}")
                await asyncio.sleep(0.2)
        for s, st in zip(turns, statuses, strict=True):
            verdict = st.notice if st and st.notice else "nothing posted"
            mark = "ok" if (verdict == "post") == s.expect_post else "UNEXPECTED"
            p.note(f"{s.title:<55} -> {verdict} [{mark}]")
        with p.step("reading the room back as the viewer (decrypting)"):
            seen = await viewer.wait_for(room_id, posts, sender=bot_user.user_id, timeout=60)
            current = viewer.current(room_id, bot_user.user_id)
        errors: list[TurnError] = []
        encrypted = sum(1 for ev in seen if ev.encrypted)
        p.note(
            f"{len(seen)} events from the bot, {encrypted} decrypted, "
            f"{len(viewer.undecryptable)} undecryptable"
        )
        with p.step("rendering every card and writing the HTML page"):
            for ev in current:
                card = read_payload(ev.content.get(CARD_KEY))
                if isinstance(card, TurnError):
                    errors.append(card)
            out_html.write_text(render_html_page(errors))
        print()
        for i, err in enumerate(errors, 1):
            print(f"--- card {i} of {len(errors)} " + "-" * 40)
            print(render_plain(err))
            print()
        print(f"HTML page: {out_html.resolve()}")
        return 0
    finally:
        if bot is not None and bot_task is not None:
            bot.stop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bot_task, 30)
        if viewer is not None:
            await viewer.close()
        hs.stop()
        if keep:
            print(f"kept: {work}", file=stream)
        else:
            import shutil

            shutil.rmtree(work, ignore_errors=True)
