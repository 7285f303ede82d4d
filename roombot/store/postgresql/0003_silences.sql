-- Silences set from the room or the API (roombot/silence_store.py).
CREATE TABLE silences (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    command TEXT UNIQUE,
    rooms TEXT NOT NULL,
    matchers TEXT NOT NULL,
    starts DOUBLE PRECISION NOT NULL,
    ends DOUBLE PRECISION NOT NULL,
    reason TEXT NOT NULL,
    by TEXT NOT NULL,
    lifted DOUBLE PRECISION,
    lifted_by TEXT
);
