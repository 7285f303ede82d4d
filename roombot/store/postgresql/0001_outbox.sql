-- The outbox (roombot/outbox.py): every notice owed to a room, commands read from
-- rooms, the outbox's own settings, and rooms whose notices are held.
-- Timestamps are wall-clock seconds as DOUBLE PRECISION (SQLite's REAL is a double;
-- PostgreSQL's REAL is not).
CREATE TABLE notices (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    room TEXT NOT NULL,
    turn TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('post', 'retract', 'answer', 'group_edit',
                                          'react', 'unreact', 'summary')),
    error TEXT NOT NULL,
    txn_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending',
    tries INTEGER NOT NULL DEFAULT 0,
    next_try DOUBLE PRECISION NOT NULL DEFAULT 0,
    event_id TEXT,
    attachment TEXT,
    last_error TEXT,
    enqueued_at DOUBLE PRECISION NOT NULL,
    sent_at DOUBLE PRECISION,
    file_event_id TEXT,
    place TEXT,
    lane TEXT NOT NULL DEFAULT 'cards'
);
CREATE INDEX notices_pending ON notices (state, room, seq);
CREATE INDEX notices_lane ON notices (state, room, lane, seq);
CREATE TABLE commands (
    event_id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    claimed_at DOUBLE PRECISION NOT NULL,
    answered INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE parked (
    room TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    since DOUBLE PRECISION NOT NULL
);
