-- Leases (roombot/store/lease.py): which process may deliver from this store. The
-- token grows by one each time another holder takes a lease, so a holder that lost
-- it can tell; times are the database's clock (seconds since the epoch).
CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    token BIGINT NOT NULL,
    acquired_at DOUBLE PRECISION NOT NULL,
    renewed_at DOUBLE PRECISION NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL
);
