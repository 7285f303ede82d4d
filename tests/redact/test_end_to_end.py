"""A failure that holds a full API key and a ?key= URL, the whole way to an encrypted room:
the second client finds neither, in the body, the HTML, the card or the attachment, and no
file the bot wrote holds either (searched byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

from cards.codec import CARD_KEY, read_payload
from cards.shape import TurnError
from roombot.devserver import DevServer
from roombot.events import parse_event
from roombot.store.db import connect
from tests.bot.helpers import make_team, running, wait_sent

# Made-up keys of the real shapes (OpenAI project key; Google API key).
OPENAI = "sk-proj-" + "Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx2Cv4Bn6Mq8Wd0Ee" + "T9w2"
GOOGLE = "AIza" + "SyD4" * 8 + "q_1"  # 39 letters, as Google issues them
# The provider's 401 as OpenAI words it, then a long trace that ends with the request a
# Gemini fallback made: long enough that the card shows a preview and the whole message
# travels as an attachment, so the attachment is searched too.
BODY = json.dumps(
    {
        "error": {
            "message": f"Incorrect API key provided: {OPENAI}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
)
SAID = "Error code: 401 - " + json.loads(BODY)["error"]["message"]
TRACE = "retrying with the fallback provider\n" * 2500 + (
    "POST https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:"
    f"generateContent?key={GOOGLE}&alt=sse failed: 403"
)


def _events(room: str, turn: str) -> list[dict[str, object]]:
    error = {"text": f"{SAID}\n{TRACE}"}
    return [
        {"type": "turn.started", "turn": turn, "room": room, "harness": "codex",
         "provider": "openai", "model": "gpt-5", "event_id": f"{turn}-s"},
        {"type": "turn.failed_attempt", "turn": turn, "provider": "openai", "model": "gpt-5",
         "error": error, "event_id": f"{turn}-f"},
        {"type": "turn.ended", "turn": turn, "error": error, "event_id": f"{turn}-e"},
    ]  # fmt: skip


def _no_secret(data: bytes, where: str) -> None:
    for secret in (OPENAI, GOOGLE):
        assert secret.encode() not in data, f"{secret[:12]}... in {where}"


async def test_keys_never_reach_the_room_the_journal_or_the_outbox(
    synapse: DevServer, tmp_path: Path
) -> None:
    team = await make_team(synapse, tmp_path, encrypted=True, extra="[turns]\nsettle = 0.2\n")
    config = team.config()
    try:
        async with running(config) as bot:
            await bot.pipeline.accept([parse_event(e) for e in _events(team.room_id, "leak")])
            await wait_sent(bot, 1, timeout=90)
        # The card, then the whole text as an m.file reply to it.
        seen, file_event = await team.member.wait_for(team.room_id, 2, sender=team.bot.user_id)
        assert seen.encrypted and file_event.content["msgtype"] == "m.file"
        content = seen.content
        card = read_payload(content.get(CARD_KEY))
        assert isinstance(card, TurnError) and card.kind.value == "auth"
        assert card.message_file and card.message_truncated
        attachment = await team.member.read_file(file_event.content, card.message_file)
        shown = {
            "body": content["body"],
            "formatted_body": content["formatted_body"],
            "card": json.dumps(content[CARD_KEY], ensure_ascii=False),
        }
        for where, text in shown.items():
            _no_secret(text.encode(), where)
            assert "sk-proj-...T9w2 [redacted]" in text, where
        _no_secret(attachment, "the attachment")
        assert b"key=AIza...4q_1 [redacted]&alt=sse" in attachment
        assert b"sk-proj-...T9w2 [redacted]" in attachment
        # Every file the bot keeps: journal, outbox, their WAL files, the crypto store...
        files = [p for p in config.state_dir.rglob("*") if p.is_file()]
        files += [p for p in config.api.journal.parent.glob("*") if p.is_file()]
        assert any("crypto" in str(p) for p in files)
        for path in files:
            _no_secret(path.read_bytes(), str(path))
        # ...and every row of every table the store holds (SQLite or PostgreSQL).
        tables = {"notices": 0, "journal": 0}
        for where in {config.outbox_at, config.journal_at}:
            db = connect(where)
            try:
                for table in tables:
                    try:
                        rows = db.execute(f"SELECT * FROM {table}").fetchall()
                    except Exception:  # this SQLite file holds the other table
                        continue
                    tables[table] += len(rows)
                    _no_secret(repr(rows).encode(), f"{where} {table}")
            finally:
                db.close()
        assert tables["notices"] >= 1 and tables["journal"] >= 2
    finally:
        await team.member.close()
