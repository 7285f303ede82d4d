-- The journal (roombot/pipeline.py): every accepted event and clock tick, replayed
-- into the turn rules at start; the event ids seen (duplicates are acknowledged, not
-- journalled twice); and the nodes' last heartbeats.
CREATE TABLE journal (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'tick')),
    now DOUBLE PRECISION NOT NULL,
    turn TEXT,
    body TEXT
);
CREATE INDEX journal_turn ON journal (turn);
CREATE TABLE seen (
    event_id TEXT PRIMARY KEY,
    now DOUBLE PRECISION NOT NULL
);
CREATE INDEX seen_now ON seen (now);
CREATE TABLE nodes (
    node TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    rooms TEXT,
    info TEXT NOT NULL,
    last_seen DOUBLE PRECISION NOT NULL,
    online INTEGER NOT NULL,
    since DOUBLE PRECISION NOT NULL
);
