"""Where the bot's durable state lives: SQLite files (the embedded default) or PostgreSQL.

`roombot.store.db` is the seam: a `Database` runs the SQL the outbox, the journal
and the silences write once, in the subset both engines speak (`?` parameters,
`INSERT ... ON CONFLICT DO NOTHING`). Each engine keeps its own schema: SQLite's is
created in place by each part as before; PostgreSQL's is a list of numbered files in
`roombot/store/postgresql/`, applied by `roombot.store.migrations`.
"""
