"""The bot's cross-signing identity (Matrix spec, MSC4153 era): keys, state, bootstrap, checks.

- `keys`: key pairs, the spec's key objects, signing and verifying (pure).
- `recovery`: the master seed as a recovery key (pure).
- `assess`: a `/keys/query` answer held against the stored keys (pure).
- `store`: the private keys and the recovery file under the state directory (0700, 0600).
- `api`: the three key endpoints over aiohttp, user-interactive auth included.
- `manage`: bootstrap and check, never replacing an identity unasked.
- `startup`: what the bot does at start.

See docs/cross-signing.md.
"""
