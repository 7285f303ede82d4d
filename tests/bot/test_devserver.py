"""The Synapse helper itself: starts, registers, survives a kill and a restart."""

from __future__ import annotations

from collections.abc import Callable

from tests.conftest import unique_name
from tests.synapse import DevServer, DevServerError


def test_register_and_whoami(synapse: DevServer) -> None:
    user = synapse.register_user(unique_name("alice"))
    assert user.user_id == synapse.user_id(user.localpart)
    me = synapse.request("GET", "/_matrix/client/v3/account/whoami", token=user.access_token)
    assert me["user_id"] == user.user_id


def test_wrong_secret_is_refused(synapse: DevServer) -> None:
    impostor = DevServer(synapse.directory, port=synapse.port, shared_secret="wrong")
    try:
        impostor.register_user(unique_name("mallory"))
    except DevServerError as e:
        assert "403" in str(e) or "401" in str(e)
    else:
        raise AssertionError("registration with a wrong shared secret succeeded")


def test_kill_and_restart_keep_data(synapse_factory: Callable[..., DevServer]) -> None:
    hs = synapse_factory()
    user = hs.register_user("bob")
    pid = hs.pid
    hs.kill()
    assert not hs.running
    hs.start()
    assert hs.pid != pid
    me = hs.request("GET", "/_matrix/client/v3/account/whoami", token=user.access_token)
    assert me["user_id"] == user.user_id
