"""The observer on recorded traffic: JSON-RPC messages in, event-format-v1 events out."""

from __future__ import annotations

from typing import Any

import pytest

from roombot.acp.lines import LineBuffer, parse_line
from roombot.acp.observer import META_KEY, Observer
from roombot.acp.rooms import RoomRules
from roombot.acp.settings import ObserverSettings, from_json, to_json
from roombot.events import TurnStarted, parse_event
from tests.acp.transcript import load, without_at

ROOM = "!team:example.org"


def observe(name: str, *, rules: RoomRules | None = None, **settings: Any) -> list[dict[str, Any]]:
    """Feeds a transcript in recorded order, one clock second per step."""
    obs = Observer(
        ObserverSettings(
            rules=rules or RoomRules(room=ROOM), command_name="python", run="r1", **settings
        )
    )
    buffers = {">": LineBuffer(), "<": LineBuffer()}
    out: list[dict[str, Any]] = []
    clock = 1000.0
    for op, data in load(name):
        if op in buffers:
            for line in buffers[op].feed(data):
                ok, value = parse_line(line)
                if ok:
                    out += obs.feed("client" if op == ">" else "agent", value, clock)
        elif op == "exit":
            out += obs.exited(int(data), "Error: socket hang up", clock)
        clock += 1
    out += obs.exited(0, "", clock)  # the end of the transcript: nothing may be left open
    for ev in out:
        parse_event(ev)  # every event is valid format v1
    return out


def test_turn_that_answers() -> None:
    turn = "acp/0b7f3c2e-5a3e-4f3b-9f0e-2d6c1b8a9e41/2"
    assert without_at(observe("end_turn")) == [
        {
            "type": "turn.started",
            "turn": turn,
            "event_id": f"{turn}/started",
            "room": ROOM,
            "harness": "claude-agent-acp",  # the agent's own name from initialize
            "session": "0b7f3c2e-5a3e-4f3b-9f0e-2d6c1b8a9e41",
            "model": "claude-sonnet-4-5",  # models.currentModelId at session/new
        },
        {
            "type": "turn.output",
            "turn": turn,
            "event_id": f"{turn}/output/0",
            # answer chunks only: no thought, no tool call, batched into one event
            "text": "It sums the prices in the cart — ünïcödé ok.",
        },
        {
            "type": "turn.ended",
            "turn": turn,
            "event_id": f"{turn}/ended",
            "stop_reason": "end_turn",
        },
    ]


def test_times_are_when_the_messages_passed() -> None:
    events = observe("end_turn")
    assert [ev["at"] for ev in events] == [1005.0, 1011.0, 1013.0]


def test_prompt_rejected_keeps_the_json_rpc_error_whole() -> None:
    events = observe("prompt_rejected", harness="claude-code", provider="anthropic")
    assert events[0]["harness"] == "claude-code"
    assert events[0]["provider"] == "anthropic"
    assert "model" not in events[0]
    assert without_at(events[1:]) == [
        {
            "type": "turn.ended",
            "turn": "acp/sess-7d1/2",
            "event_id": "acp/sess-7d1/2/ended",
            "error": {
                "acp": {
                    "code": -32603,
                    "message": "Internal error",
                    "data": {
                        "details": '429 {"type":"error","error":{"type":"rate_limit_error",'
                        '"message":"This request would exceed the rate limit for your '
                        'organization of 50 requests per minute."}}'
                    },
                }
            },
        }
    ]


def test_error_posing_as_answer_is_reported_as_the_text_it_was() -> None:
    events = observe("error_as_answer")
    assert [ev["type"] for ev in events] == ["turn.started", "turn.output", "turn.ended"]
    assert events[1]["text"].startswith("API Error: 529 ")
    assert events[2]["stop_reason"] == "end_turn"
    assert events[0]["turn"] == "acp/g-44/p-1"  # string request ids stay as they were


def test_harness_dying_mid_turn_fails_the_open_turn() -> None:
    events = observe("dies_mid_turn")
    assert without_at(events) == [
        {
            "type": "turn.started",
            "turn": "acp/pi-1/2",
            "event_id": "acp/pi-1/2/started",
            "room": ROOM,
            "harness": "pi-acp",
            "session": "pi-1",
        },
        {
            "type": "turn.output",
            "turn": "acp/pi-1/2",
            "event_id": "acp/pi-1/2/output/0",
            "text": "Working on it",
        },
        {
            "type": "harness.exited",
            "turn": "acp/pi-1/2",
            "event_id": "acp/pi-1/2/exited",
            "harness": "pi-acp",
            "session": "pi-1",
            "error": {"exit": {"code": 3, "stderr": "Error: socket hang up"}},
        },
    ]


def test_malformed_traffic_around_a_turn_is_ignored_and_the_turn_still_seen() -> None:
    events = observe("malformed")
    assert without_at(events) == [
        {
            "type": "turn.started",
            "turn": "acp/oc-9/2",
            "event_id": "acp/oc-9/2/started",
            "room": ROOM,
            "harness": "opencode",
            "session": "oc-9",
        },
        # the image chunk, the unknown update and the text-less chunk are no text;
        # the client's answer to the agent's request id 2 does not end prompt 2
        {
            "type": "turn.output",
            "turn": "acp/oc-9/2",
            "event_id": "acp/oc-9/2/output/0",
            "text": "done \U0001f600",
        },
        # ended by the CRLF-terminated response; the response to id 99 matches nothing
        {
            "type": "turn.ended",
            "turn": "acp/oc-9/2",
            "event_id": "acp/oc-9/2/ended",
            "stop_reason": "end_turn",
        },
    ]


def test_model_follows_the_session_and_loaded_sessions_get_the_run_id() -> None:
    events = observe("models")
    started = [ev for ev in events if ev["type"] == "turn.started"]
    assert [(ev["turn"], ev.get("model")) for ev in started] == [
        ("acp/cx-1/2", "gpt-5-codex"),  # configOptions select of category "model"
        ("acp/cx-1/5", "gpt-5-mini"),  # accepted set_config_option; rejected set_model ignored
        ("acp/old-42@r1/7", "gpt-5"),  # session/load: ids may repeat across runs
    ]
    ended = [ev.get("stop_reason") for ev in events if ev["type"] == "turn.ended"]
    assert ended == ["max_tokens", "refusal", "cancelled"]
    # the history session/load replays is not an answer
    assert not [ev for ev in events if ev["type"] == "turn.output"]


def test_model_option_names_the_harness_model_unless_the_client_switched() -> None:
    events = observe("models", model="gpt-5.1-codex")
    started = [ev.get("model") for ev in events if ev["type"] == "turn.started"]
    assert started == ["gpt-5.1-codex", "gpt-5-mini", "gpt-5.1-codex"]


def test_room_from_the_session_working_directory() -> None:
    rules = RoomRules(
        room="!default:example.org",
        by_cwd=(("/home/ana/src/web", "!web:example.org"),),
        by_harness={"codex-acp": "!codex:example.org"},
    )
    events = observe("models", rules=rules)
    rooms = [ev["room"] for ev in events if ev["type"] == "turn.started"]
    # cwd /home/ana/src/web/frontend matches; /home/ana/src/api falls back to the harness
    assert rooms == ["!web:example.org", "!web:example.org", "!codex:example.org"]


def settings() -> ObserverSettings:
    return ObserverSettings(rules=RoomRules(room=ROOM), command_name="agent", run="r1")


def opened(obs: Observer, session: str = "s1") -> None:
    obs.feed("client", {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}, 1.0)
    obs.feed("agent", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": session}}, 1.0)


def prompt(rid: object, session: str = "s1") -> dict[str, Any]:
    params = {"sessionId": session, "prompt": []}
    return {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params}


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        ({"stopReason": "weird_new_reason"}, "stopReason 'weird_new_reason'"),
        ({}, "no stopReason"),
        (None, "no stopReason: null"),
    ],
)
def test_a_prompt_response_without_a_known_stop_reason_is_an_error(
    result: object, expected: str
) -> None:
    obs = Observer(settings())
    opened(obs)
    obs.feed("client", prompt(2), 2.0)
    events = obs.feed("agent", {"jsonrpc": "2.0", "id": 2, "result": result}, 3.0)
    assert events[-1]["type"] == "turn.ended"
    assert expected in events[-1]["error"]["text"]
    parse_event(events[-1])


@pytest.mark.parametrize(
    "error",
    [{"code": "E42", "message": "bad"}, {"message": "no code"}, "just a string", {"code": 1}],
)
def test_an_error_that_is_not_json_rpc_shaped_is_kept_as_text(error: object) -> None:
    obs = Observer(settings())
    opened(obs)
    obs.feed("client", prompt(2), 2.0)
    events = obs.feed("agent", {"jsonrpc": "2.0", "id": 2, "error": error}, 3.0)
    parse_event(events[-1])
    assert events[-1]["error"]["text"].startswith("session/prompt failed: ")


def test_turn_started_waits_for_the_session_to_be_known() -> None:
    # The client's copies can reach the observer before the agent's answers.
    obs = Observer(settings())
    new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}}
    assert obs.feed("client", new, 1.0) == []
    assert obs.feed("client", prompt(2), 1.1) == []
    events = obs.feed("agent", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}, 1.2)
    assert [(ev["type"], ev["turn"], ev["at"]) for ev in events] == [
        ("turn.started", "acp/s1/2", 1.1)
    ]


def test_a_prompt_on_a_session_never_seen_is_announced_after_a_wait() -> None:
    obs = Observer(settings())
    assert obs.feed("client", prompt(5, "lost"), 10.0) == []
    assert obs.tick(10.5) == []
    events = obs.tick(11.0)
    assert [ev["turn"] for ev in events] == ["acp/lost@r1/5"]


def test_answer_text_is_batched_by_size_and_by_time() -> None:
    obs = Observer(settings())
    opened(obs)
    assert [ev["type"] for ev in obs.feed("client", prompt(2), 2.0)] == ["turn.started"]

    def chunk(text: str, at: float) -> list[dict[str, Any]]:
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        msg = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s1", "update": update},
        }
        return obs.feed("agent", msg, at)

    assert chunk("a" * 10, 2.1) == []
    assert chunk("b" * 10, 2.2) == []
    assert obs.tick(3.0) == []
    flushed = obs.tick(3.1)  # one second after the first held chunk
    assert [(ev["text"], ev["at"], ev["event_id"]) for ev in flushed] == [
        ("a" * 10 + "b" * 10, 2.1, "acp/s1/2/output/0")
    ]
    big = chunk("c" * 20_000, 4.0)  # past 16 KiB: out at once
    assert [ev["event_id"] for ev in big] == ["acp/s1/2/output/1"]


def test_exit_with_no_open_turn_says_nothing() -> None:
    obs = Observer(settings())
    opened(obs)
    obs.feed("client", prompt(2), 2.0)
    obs.feed("agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}, 3.0)
    assert obs.exited(1, "bye", 4.0) == []


def test_batches_and_non_objects_are_tolerated() -> None:
    obs = Observer(settings())
    opened(obs)
    events = obs.feed("client", [prompt(2), 7, None, "x"], 2.0)
    assert [ev["type"] for ev in events] == ["turn.started"]
    assert obs.stats["not_jsonrpc"] == 3


def test_a_turn_whose_end_may_be_lost_is_not_claimed_as_failed() -> None:
    obs = Observer(settings())
    opened(obs)
    obs.feed("client", prompt(2), 2.0)
    obs.gap("agent")  # the agent's answer to prompt 2 may have been in the lost copies
    assert obs.exited(1, "", 3.0) == []
    assert obs.stats["uncertain"] == 1


def test_a_lost_end_is_forgotten_when_the_session_prompts_again() -> None:
    obs = Observer(settings())
    opened(obs)
    obs.feed("client", prompt(2), 2.0)
    obs.gap("agent")
    obs.feed("client", prompt(3), 4.0)
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    chunk = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": update},
    }
    obs.feed("agent", chunk, 4.1)
    events = obs.exited(1, "boom", 5.0)
    assert [(ev["type"], ev["turn"]) for ev in events] == [
        ("turn.output", "acp/s1/3"),
        ("harness.exited", "acp/s1/3"),
    ]


def test_turns_carry_the_node_the_proxy_runs_on() -> None:
    """The node's name in turn.started is what node.offline matches (roombot.node_name)."""
    started = [e for e in observe("end_turn", node="gpu-1") if e["type"] == "turn.started"]
    assert started and all(e["node"] == "gpu-1" for e in started)
    json_settings = from_json(to_json(ObserverSettings(RoomRules(room=ROOM), "a", node="n"), {}, 1))
    assert json_settings.node == "n"


def with_meta(rid: object, meta: object) -> dict[str, Any]:
    msg = prompt(rid)
    msg["params"]["_meta"] = {"traceparent": "00-ab-cd-01", META_KEY: meta}
    return msg


TRIGGER = "$Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg"


def test_the_prompt_names_the_room_message_that_started_the_turn() -> None:
    obs = Observer(settings())
    opened(obs)
    [started] = obs.feed("client", with_meta(2, {"trigger": TRIGGER, "thread": "$root:x"}), 2.0)
    assert (started["trigger"], started["thread"]) == (TRIGGER, "$root:x")
    event = parse_event(started)
    assert isinstance(event, TurnStarted) and event.thread == "$root:x"
    [plain] = obs.feed("client", with_meta(3, {"trigger": TRIGGER}), 3.0)
    assert plain["trigger"] == TRIGGER and "thread" not in plain
    # other keys of _meta, and of ours, are not ours to judge
    [other] = obs.feed("client", with_meta(4, {"room": "!r:x", "trigger": None}), 4.0)
    assert "trigger" not in other and "thread" not in other
    assert obs.notes == []


@pytest.mark.parametrize(
    ("meta", "kept", "said"),
    [
        ("$abc", {}, "all of it (not an object)"),
        ({"trigger": "abc"}, {}, 'trigger (not a Matrix event id: "abc")'),
        ({"trigger": 7, "thread": "$r"}, {}, "trigger (not a Matrix event id: 7), thread (no"),
        (
            {"trigger": TRIGGER, "thread": "$a\nb"},
            {"trigger": TRIGGER},
            r'thread (not a Matrix event id: "$a\nb")',
        ),
        ({"thread": "$root"}, {}, "thread (no trigger beside it)"),
        ({"trigger": ["$a"]}, {}, "trigger (not a Matrix event id: an array)"),
        ({"trigger": "$" + "a" * 300}, {}, '"$aaaaa'),
    ],
)
def test_bad_room_message_ids_are_dropped_with_one_line_and_the_turn_goes_on(
    meta: object, kept: dict[str, str], said: str
) -> None:
    obs = Observer(settings())
    opened(obs)
    [started] = obs.feed("client", with_meta(2, meta), 2.0)
    parse_event(started)
    assert {k: started[k] for k in ("trigger", "thread") if k in started} == kept
    [note] = obs.notes
    assert note.startswith('session/prompt 2: _meta["dev.roombot"]: dropped ')
    assert said in note and "\n" not in note and len(note) < 200
    ended = obs.feed("agent", {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}, 3)
    assert [ev["type"] for ev in ended] == ["turn.ended"]
