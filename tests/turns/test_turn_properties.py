"""Properties over random streams: interleaved turns, duplicated and delayed events.

Each scenario is first written in the order things happened (`at`), then
delivered late (up to `MAX_DELAY`, less than the settle window), duplicated
(same event_id) and interleaved with other turns and with harness exits and
node losses. Whatever the arrival order, the rules must hold.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from roombot.events import Event, parse_event
from roombot.turns import Decision, Post, Retract, TurnMachine, TurnRules

RULES = TurnRules(grace=2.0, settle=1.0, turn_timeout=200.0, retract_window=1000.0)
MAX_DELAY = 0.9  # strictly less than RULES.settle
MODELS = [("anthropic", "claude-opus-4"), ("openai", "gpt-5"), ("google", "gemini-2.5-pro")]
ENDINGS = [
    "end_turn",
    "max_tokens",
    "max_turn_requests",
    "refusal",
    "cancelled",
    "error",
    "never",
]


@dataclasses.dataclass
class Scenario:
    turn: str
    tries: list[tuple[str, str]]
    ending: str
    answered: bool
    events: list[dict[str, Any]]  # in the order they happened

    @property
    def ended_well(self) -> bool:
        return self.ending == "end_turn" and self.answered

    @property
    def failed(self) -> bool:
        return not self.ended_well and self.ending != "cancelled"


@st.composite
def scenarios(draw: st.DrawFn, turn: str, start: float) -> Scenario:
    tries = draw(st.permutations(MODELS))[: draw(st.integers(1, 3))]
    harness = draw(st.sampled_from(["claude-code", "codex"]))
    node = draw(st.sampled_from(["n1", "n2"]))
    clock = [start]

    def at() -> float:
        clock[0] += draw(st.floats(0.05, 3.0))
        return round(clock[0], 3)

    ids = iter(range(1000))

    def event(type_: str, **fields: Any) -> dict[str, Any]:
        return {
            "type": type_,
            "turn": turn,
            "at": at(),
            "event_id": f"{turn}-{next(ids)}",
            **fields,
        }

    provider, model = tries[0]
    events = [
        event(
            "turn.started",
            room=f"!{turn}:x",
            harness=harness,
            provider=provider,
            model=model,
            node=node,
        )
    ]
    report_before = draw(st.booleans())
    for i, (p, m) in enumerate(tries):
        if i > 0:
            events.append(event("turn.attempt", provider=p, model=m))
        # every try but the last failed (that is why there is a next one)
        if i < len(tries) - 1 or draw(st.booleans()):
            events.append(
                event("turn.failed_attempt", provider=p, model=m, error={"text": f"{m} failed"})
            )
    if report_before and draw(st.booleans()):
        events.append(event("turn.report", source="hook", error={"text": "reported"}))
    chunks = draw(st.integers(0, 3))
    for k in range(chunks):
        events.append(event("turn.output", text=f"Answer part {k}. "))
    ending = draw(st.sampled_from(ENDINGS))
    if ending == "error":
        events.append(event("turn.ended", error={"text": "prompt rejected"}))
    elif ending != "never":
        events.append(event("turn.ended", stop_reason=ending))
    if not report_before and draw(st.booleans()):
        events.append(event("turn.report", source="hook", error={"text": "reported late"}))
    return Scenario(turn, list(tries), ending, chunks > 0, events)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[Scenario], list[tuple[float, dict[str, Any]]]]:
    count = draw(st.integers(1, 4))
    found = [draw(scenarios(f"t{i}", draw(st.floats(0, 10)))) for i in range(count)]
    happened = [e for s in found for e in s.events]
    for _ in range(draw(st.integers(0, 2))):
        when = round(draw(st.floats(0, 40)), 3)
        if draw(st.booleans()):
            gone = {
                "type": "harness.exited",
                "harness": draw(st.sampled_from(["claude-code", "codex"])),
            }
        else:
            gone = {"type": "node.offline", "node": draw(st.sampled_from(["n1", "n2"]))}
        happened.append({**gone, "at": when, "event_id": f"gone-{when}"})
    arrivals = [(e["at"] + draw(st.floats(0, MAX_DELAY)), e) for e in happened]
    for e in draw(st.lists(st.sampled_from(happened), max_size=4)):  # duplicates
        arrivals.append((e["at"] + draw(st.floats(0, 50)), e))
    arrivals.sort(key=lambda pair: pair[0])
    return found, arrivals


def deliver(
    arrivals: list[tuple[float, dict[str, Any]]],
    ticks: list[float] = (),  # type: ignore[assignment]
) -> list[Decision]:
    machine = TurnMachine(RULES)
    out: list[Decision] = []
    pending = sorted(ticks)
    for now, obj in arrivals:
        while pending and pending[0] <= now:
            out += machine.tick(pending.pop(0))
        event: Event = parse_event(obj)
        out += machine.feed(event, now)
    while (deadline := machine.next_deadline()) is not None:
        out += machine.tick(deadline)
    return out


@settings(max_examples=1000, deadline=None)
@given(streams())
def test_the_rules_hold_whatever_the_arrival_order(
    stream: tuple[list[Scenario], list[tuple[float, dict[str, Any]]]],
) -> None:
    found, arrivals = stream
    decisions = deliver(arrivals)
    for s in found:
        mine = [d for d in decisions if d.turn == s.turn]
        post = [d for d in mine if isinstance(d, Post)]
        retract = [d for d in mine if isinstance(d, Retract)]
        # never more than one card per turn; a retract only follows its card
        assert len(post) <= 1 and len(retract) <= 1, mine
        if retract:
            assert mine.index(retract[0]) > mine.index(post[0])
            assert retract[0].error == dataclasses.replace(post[0].error, recovered=True)
        # never a card (left standing) for a turn that ended with an answer and a normal stop
        if s.ended_well:
            assert len(post) == len(retract), (s, mine)
        # every failed turn gets its card
        if s.failed:
            assert len(post) == 1, (s, mine)
        for p in post:
            card = p.error
            # led by the requested provider and model
            assert (card.provider, card.model) == s.tries[0]
            assert card.turn == s.turn and card.harness == s.events[0]["harness"]
            # attempts keep the order of the tries
            order = [s.tries.index((a.provider, a.model)) for a in card.attempts]  # type: ignore[arg-type]
            assert order == sorted(set(order)), (s.tries, card.attempts)
            assert card.attempts, card


@settings(max_examples=150, deadline=None)
@given(streams(), st.lists(st.floats(0, 60), max_size=8))
def test_decisions_do_not_depend_on_when_tick_is_called(
    stream: tuple[list[Scenario], list[tuple[float, dict[str, Any]]]], ticks: list[float]
) -> None:
    _, arrivals = stream
    assert deliver(arrivals, ticks) == deliver(arrivals)


event_objects = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "turn.started",
                "turn.attempt",
                "turn.failed_attempt",
                "turn.output",
                "turn.ended",
                "turn.report",
                "harness.exited",
                "node.offline",
            ]
        ),
        "turn": st.sampled_from(["a", "b"]),
        "room": st.just("!r:x"),
        "harness": st.sampled_from(["h1", "h2"]),
        "node": st.sampled_from(["n1", "n2"]),
        "source": st.just("s"),
        "text": st.sampled_from(["", " ", "answer", "x" * 20]),
        "error": st.sampled_from([{"text": "e"}, {"status": 429}, {"exit": {"code": 1}}]),
        "stop_reason": st.sampled_from(
            ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
        ),
        "provider": st.sampled_from(["p1", "p2"]),
        "model": st.sampled_from(["m1", "m2"]),
    },
    optional={
        "at": st.floats(0, 100),
        "event_id": st.sampled_from(["e1", "e2", "e3"]),
    },
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(event_objects, st.floats(0, 100), st.booleans()), max_size=30),
    st.booleans(),
    st.booleans(),
)
def test_the_machine_never_raises_and_posts_at_most_once(
    steps: list[tuple[dict[str, Any], float, bool]], cancelled: bool, small: bool
) -> None:
    # small: memory bounds so tight that closed turns are forgotten (ids may then repeat)
    machine = TurnMachine(
        TurnRules(
            grace=1,
            settle=0.5,
            turn_timeout=20,
            retract_window=10,
            post_cancelled=cancelled,
            max_remembered=2 if small else 1000,
            answer_keep=8,
            max_signals=3,
        )
    )
    keys: list[str] = []
    for obj, now, ended_only in steps:
        if obj["type"] == "turn.ended":
            obj.pop("error" if ended_only else "stop_reason")
        decisions = machine.feed(parse_event(obj), now)
        decisions += machine.tick(now + 1)
        keys += [d.key for d in decisions]
        machine.next_deadline()
        machine.state(obj["turn"])
    if not small:
        assert len(keys) == len(set(keys)), keys
    assert machine.open_turns <= 2
