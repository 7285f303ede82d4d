"""`roombot crypto bootstrap|status -c config.toml`: the bot's cross-signing identity.

Both use the device the bot logged in with (`<state_dir>/credentials.json`),
so the bot must have started once. `status` also says whether the recovery
file is still in the state directory; `bootstrap` shows a new recovery key
only on a terminal, and otherwise names the file that holds it. Exit status:
0 when the device ends up cross-signed, 1 when it is not (the reason and the
repair are printed), 2 for a bad configuration or missing credentials.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

HELP = "the bot's cross-signing identity: bootstrap it, or show its status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="crypto_command", metavar="ACTION", required=True)
    boot = sub.add_parser(
        "bootstrap",
        help="create or repair the identity and sign the bot's device",
        description="Create the cross-signing identity (first time), publish it, and sign the "
        "bot's device. Never replaces an identity on the server unless --replace-identity.",
    )
    boot.add_argument("-c", "--config", required=True, help="the TOML configuration file")
    boot.add_argument(
        "--replace-identity",
        action="store_true",
        help="give the bot a new identity even though the server holds another; everyone "
        "who verified the bot must verify it again",
    )
    boot.add_argument(
        "--recovery-key-file",
        metavar="FILE",
        help="restore the master key from the recovery key in FILE, such as the recovery file "
        "the bot wrote ('-' reads standard input; lines starting with '#' are skipped)",
    )
    status = sub.add_parser(
        "status",
        help="show the device, its signatures, the identity's fingerprints and the recovery file",
        description="Show the device, its signatures, the identity's fingerprints, and whether "
        "the recovery key file is still in the state directory.",
    )
    status.add_argument("-c", "--config", required=True, help="the TOML configuration file")
    status.add_argument("--json", action="store_true", help="one JSON object instead of text")


def _fail(message: str, code: int) -> int:
    print(f"roombot crypto: {message}", file=sys.stderr)
    return code


def _credentials(state_dir: Path, user_id: str) -> dict[str, str] | str:
    path = state_dir / "credentials.json"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return f"{path} does not exist: start the bot once (roombot run -c CONFIG) to log in"
    except (OSError, ValueError) as e:
        return f"cannot read {path}: {e}"
    if not isinstance(data, dict) or not all(
        isinstance(data.get(k), str) for k in ("user_id", "device_id", "access_token")
    ):
        return f"{path} lacks user_id, device_id or access_token"
    if data["user_id"] != user_id:
        return f"{path} is for {data['user_id']}, but matrix.user_id is {user_id}"
    return data


def run(args: argparse.Namespace) -> int:
    from roombot.config import ConfigError, load_config

    try:
        config = load_config(args.config)
    except ConfigError as e:
        return _fail(f"configuration error in {args.config}: {e}", 2)
    creds = _credentials(config.state_dir, config.matrix.user_id)
    if isinstance(creds, str):
        return _fail(creds, 2)
    seed = None
    if getattr(args, "recovery_key_file", None):
        from roombot.crosssign.recovery import RecoveryKeyError, key_from_file_text

        src = args.recovery_key_file
        try:
            text = sys.stdin.read() if src == "-" else Path(src).read_text()
            seed = key_from_file_text(text)
        except OSError as e:
            return _fail(f"cannot read the recovery key: {e}", 2)
        except RecoveryKeyError as e:
            return _fail(f"{src}: not a valid recovery key: {e}", 2)
    return asyncio.run(_main(args, config, creds, seed))


async def _main(
    args: argparse.Namespace, config: Any, creds: dict[str, str], seed: bytes | None
) -> int:
    from roombot.crosssign.api import CrossSigningApiError, KeysApi
    from roombot.crosssign.manage import Bootstrapper, Mode, RefusedError, advice
    from roombot.crosssign.startup import on_a_terminal, recovery_key_text
    from roombot.crosssign.store import KeyStore, KeyStoreError

    m = config.matrix
    hint = args.config
    async with KeysApi(
        creds.get("homeserver") or m.homeserver,
        creds["user_id"],
        creds["device_id"],
        creds["access_token"],
        timeout=m.request_timeout,
    ) as api:
        store = KeyStore(config.state_dir)
        boot = Bootstrapper(api, store, m.password.get)
        try:
            if args.crypto_command == "status":
                a = await boot.check()
                found = recovery_file_status(store, a)
                if args.json:
                    print(json.dumps({**status_json(a), "recovery_file": found}))
                else:
                    print(status_text(a, hint) + "\n" + recovery_file_text(found, hint))
                return 0 if a.ok else 1
            result = await boot.run(
                Mode.ON_DEMAND, replace_identity=args.replace_identity, recovery_seed=seed
            )
        except RefusedError as e:
            try:
                a = await boot.check()
                more = advice(a, hint)
            except (CrossSigningApiError, KeyStoreError):
                more = ""
            return _fail(f"{e}. {more}".strip(), 1)
        except (CrossSigningApiError, KeyStoreError) as e:
            return _fail(str(e), 1)
    for action in result.actions or ["nothing to do: the identity and the device were in order"]:
        print(f"- {action}")
    written = result.recovery_file
    if result.recovery_key is not None and written is not None and result.after.local is not None:
        master = result.after.local.master.public
        if on_a_terminal(sys.stdout):
            print(recovery_key_text(result.recovery_key, api.user_id, master, written))
        else:  # piped or captured: the key stays in its file
            print(f"- wrote the recovery key to {written} (mode 0600): move it offline")
    print(status_text(result.after, hint))
    return 0 if result.after.ok else 1


def status_text(a: Any, hint: str = "CONFIG") -> str:
    from roombot.crosssign.keys import Usage, fingerprint
    from roombot.crosssign.manage import advice

    lines = [f"user          {a.user_id}"]
    device = fingerprint(a.device_key) if a.device_key else "(no keys on the homeserver)"
    lines.append(f"device        {a.device_id}  ed25519 {device}")
    for s in a.signatures:
        verdict = "valid" if s.valid else "NOT VALID"
        lines.append(f"  signed by {s.by} ({s.signer} {s.key_id}): {verdict}")
    if not a.signatures:
        lines.append("  no signatures")
    lines.append("identity on the homeserver (compare the master key when you verify the bot):")
    for usage in Usage:
        public = a.server_public(usage)
        name = usage.value.replace("_", "-")
        if public is None:
            shown = "(none)" if usage is not Usage.USER_SIGNING else "(none, or not shown)"
        else:
            shown = fingerprint(public)
        stored = a.local.pair(usage).public if a.local is not None else None
        mark = ""
        if stored is not None:
            mark = "  [stored here]" if stored == public else "  [stored here: a DIFFERENT key]"
        lines.append(f"  {name:<13} {shown}{mark}")
    if a.local is None:
        lines.append("  (no private keys in the state directory)")
    if a.ok:
        lines.append("state         ok: the device is cross-signed by the bot's identity")
    else:
        lines.append(f"state         {a.state.value}: {a.problem}")
        lines.append(f"repair        {advice(a, hint)}")
    return "\n".join(lines)


def recovery_file_status(store: Any, a: Any) -> dict[str, Any] | None:
    """The recovery file, if it is still in the state directory: where, and whose key it holds."""
    from roombot.crosssign.keys import KeyPair, Usage
    from roombot.crosssign.recovery import RecoveryKeyError, key_from_file_text

    path = store.recovery_path
    try:
        seed = key_from_file_text(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, RecoveryKeyError) as e:
        return {"path": str(path), "master_key": None, "matches": None, "error": str(e)}
    master = KeyPair(Usage.MASTER, seed).public
    ours = a.local.master.public if a.local is not None else a.server_public(Usage.MASTER)
    return {"path": str(path), "master_key": master, "matches": master == ours, "error": None}


def recovery_file_text(found: dict[str, Any] | None, hint: str = "CONFIG") -> str:
    if found is None:
        return "recovery file none in the state directory (keep the one you moved offline)"
    path = found["path"]
    lines = [f"recovery file {path}: still in the state directory"]
    if found["error"]:
        lines.append(f"  unreadable as a recovery key: {found['error']}")
    elif found["matches"]:
        lines.append("  it holds the recovery key of this identity")
    else:
        lines.append(f"  it holds the key of ANOTHER identity (master key {found['master_key']})")
    lines.append(
        "  Move it offline (a password manager, a safe), then delete it here: it is lost "
        "with the state directory it should back up."
    )
    lines.append(f"  Restore from it: roombot crypto bootstrap -c {hint} --recovery-key-file FILE")
    return "\n".join(lines)


def status_json(a: Any) -> dict[str, Any]:
    from roombot.crosssign.keys import Usage

    return {
        "user_id": a.user_id,
        "device_id": a.device_id,
        "device_ed25519": a.device_key,
        "state": a.state.value,
        "problem": a.problem or None,
        "signatures": [
            {"signer": s.signer, "key_id": s.key_id, "by": s.by, "valid": s.valid}
            for s in a.signatures
        ],
        "server": {u.value: a.server_public(u) for u in Usage},
        "stored": {u.value: a.local.pair(u).public for u in Usage} if a.local else None,
    }
