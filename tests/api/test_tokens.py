"""Bearer tokens: minted and verified exactly as docs/api.md lays them out."""

import base64
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from feltline.api.tokens import (
    LONGEST_TTL,
    ROLES,
    Caller,
    ExpiredToken,
    InvalidToken,
    TokenError,
    mint,
    verify,
)
from feltline.audit.keys import Signer
from feltline.cli import main
from feltline_client import token_claims
from feltline_protos.v1 import auth_pb2, errors_pb2

NOW = datetime(2030, 5, 17, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
SIGNER = Signer.generate()


def _player() -> str:
    return mint(SIGNER, auth_pb2.ROLE_PLAYER, now=NOW, ttl=HOUR, player_id="alice")


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_a_token_round_trips_for_every_role() -> None:
    for name, role in ROLES.items():
        player = "alice" if name == "player" else ""
        token = mint(SIGNER, role, now=NOW, ttl=HOUR, player_id=player, token_id="t-1")
        assert verify(token, SIGNER.public_key, now=NOW + HOUR / 2) == Caller(
            role, player, "t-1", NOW + HOUR
        )


def test_the_layout_is_the_documented_one_and_the_sdk_reads_it() -> None:
    token = _player()
    version, claims, signature = token.split(".")
    assert version == "v1"
    assert "=" not in token
    assert len(base64.urlsafe_b64decode(signature + "==")) == 64
    SIGNER.public_key.verify(base64.urlsafe_b64decode(signature + "=="), f"v1.{claims}".encode())
    read = token_claims(token)
    assert read.role == auth_pb2.ROLE_PLAYER
    assert read.player_id == "alice"
    assert read.issue_time.ToDatetime(tzinfo=UTC) == NOW
    assert read.expire_time.ToDatetime(tzinfo=UTC) == NOW + HOUR
    assert read.token_id  # unique per token, for logs and revocation
    assert token_claims(_player()).token_id != read.token_id


def test_an_expired_token_is_refused_as_expired() -> None:
    token = _player()
    with pytest.raises(ExpiredToken, match="expired") as caught:
        verify(token, SIGNER.public_key, now=NOW + HOUR)
    assert caught.value.reason == errors_pb2.ERROR_REASON_TOKEN_EXPIRED
    # the caller it spoke for, which the server logs with the refusal
    assert caught.value.caller == Caller(
        auth_pb2.ROLE_PLAYER, "alice", token_claims(token).token_id, NOW + HOUR
    )


def test_a_tampered_claim_or_signature_is_refused() -> None:
    version, claims, signature = _player().split(".")
    forged = auth_pb2.TokenClaims.FromString(base64.urlsafe_b64decode(claims + "=="))
    forged.role = auth_pb2.ROLE_AUDITOR
    forged.player_id = ""
    flipped = bytearray(base64.urlsafe_b64decode(signature + "=="))
    flipped[0] ^= 1
    for token in (
        f"{version}.{_b64(forged.SerializeToString())}.{signature}",
        f"{version}.{claims}.{_b64(bytes(flipped))}",
        f"{version}.{claims}.",
    ):
        with pytest.raises(InvalidToken) as caught:
            verify(token, SIGNER.public_key, now=NOW)
        assert caught.value.reason == errors_pb2.ERROR_REASON_TOKEN_INVALID


def test_a_respelled_signature_is_refused_though_its_bytes_verify() -> None:
    """86 characters carry 64 bytes with 4 bits to spare; setting them spells
    the same signature differently, and a token has one spelling only."""
    token = _player()
    last = token[-1]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    respelled = token[:-1] + alphabet[alphabet.index(last) | 1]
    assert respelled != token
    assert base64.urlsafe_b64decode(respelled.split(".")[2] + "==") == base64.urlsafe_b64decode(
        token.split(".")[2] + "=="
    )
    with pytest.raises(InvalidToken, match="canonical"):
        verify(respelled, SIGNER.public_key, now=NOW)


def test_a_token_from_another_key_is_refused() -> None:
    other = mint(Signer.generate(), auth_pb2.ROLE_ADMIN, now=NOW, ttl=HOUR)
    with pytest.raises(InvalidToken, match="signature"):
        verify(other, SIGNER.public_key, now=NOW)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "Bearer",
        "v1.abc",
        "v2.abc.def",
        "v1.a.b.c",
        "v1.!!!.abc",
        "v1.abc=.def",
        "v1.a+b/.def",
    ],
)
def test_a_malformed_token_is_refused(token: str) -> None:
    with pytest.raises(InvalidToken):
        verify(token, SIGNER.public_key, now=NOW)


def test_a_signed_token_claiming_the_impossible_is_refused() -> None:
    def signed(claims: auth_pb2.TokenClaims) -> str:
        head = f"v1.{_b64(claims.SerializeToString())}"
        return f"{head}.{_b64(SIGNER.sign(head.encode()))}"

    expiring = auth_pb2.TokenClaims()
    expiring.expire_time.FromDatetime(NOW + HOUR)
    for claims in (
        auth_pb2.TokenClaims(role=auth_pb2.ROLE_ADMIN),  # no expiry
        auth_pb2.TokenClaims(role=auth_pb2.ROLE_PLAYER, expire_time=expiring.expire_time),
        auth_pb2.TokenClaims(
            role=auth_pb2.ROLE_SPECTATOR, player_id="bob", expire_time=expiring.expire_time
        ),
        auth_pb2.TokenClaims(role=99, expire_time=expiring.expire_time),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidToken):
            verify(signed(claims), SIGNER.public_key, now=NOW)
    not_claims = "v1." + _b64(b"\xff\xff")
    with pytest.raises(InvalidToken, match=r"^the token's claims do not decode$"):
        verify(f"{not_claims}.{_b64(SIGNER.sign(not_claims.encode()))}", SIGNER.public_key, now=NOW)


def test_minting_refuses_what_verifying_would() -> None:
    for role, player in [
        (auth_pb2.ROLE_UNSPECIFIED, ""),
        (auth_pb2.ROLE_PLAYER, ""),
        (auth_pb2.ROLE_PLAYER, "al ice"),
        (auth_pb2.ROLE_PLAYER, "a" * 65),
        (auth_pb2.ROLE_ADMIN, "alice"),
    ]:
        with pytest.raises(ValueError):  # noqa: PT011
            mint(SIGNER, role, now=NOW, ttl=HOUR, player_id=player)
    with pytest.raises(ValueError, match="live"):
        mint(SIGNER, auth_pb2.ROLE_ADMIN, now=NOW, ttl=timedelta(0))
    assert issubclass(InvalidToken, TokenError)


def test_the_command_prints_a_token_from_the_key_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    Signer.create(key)
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    assert main(["token", "--role", "player", "--player", "alice", "--ttl", "60"]) == 0
    token = capsys.readouterr().out.strip()
    caller = verify(token, Signer.load(key).public_key, now=datetime.now(UTC))
    assert (caller.role, caller.player_id) == (auth_pb2.ROLE_PLAYER, "alice")
    assert caller.expires <= datetime.now(UTC) + timedelta(seconds=60)


def test_the_command_refuses_a_bad_token_before_making_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    for argv in (
        ["token", "--role", "player"],
        ["token", "--role", "admin", "--player", "alice"],
        ["token", "--role", "admin", "--ttl", "0"],
        ["token", "--role", "root"],
    ):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
    assert "player" in capsys.readouterr().err
    assert not key.exists()


def test_the_command_says_and_keeps_its_default_lifetime_of_an_hour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["token", "--help"])
    assert caught.value.code == 0
    assert re.search(
        r"--ttl SECONDS\s+seconds it stays valid.*\(default\s+3,600", capsys.readouterr().out, re.S
    )
    key = tmp_path / "server.key"
    Signer.create(key)
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    for argv, seconds in (
        (["--role", "admin"], 3600),
        (["--role", "auditor", "--ttl", "86400"], 86400),
    ):
        before = datetime.now(UTC)
        assert main(["token", *argv]) == 0
        caller = verify(capsys.readouterr().out.strip(), Signer.load(key).public_key, now=before)
        lived = caller.expires - before
        assert timedelta(seconds=seconds - 5) < lived <= timedelta(seconds=seconds + 1)


@pytest.mark.parametrize("ttl", ["0", "-5", "abc", "1.5", "", " ", "١٢", "31622401", "9" * 30])
def test_the_command_refuses_a_bad_lifetime_in_one_line(
    ttl: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    with pytest.raises(SystemExit) as caught:
        main(["token", "--role", "admin", f"--ttl={ttl}"])
    assert caught.value.code == 2
    out, err = capsys.readouterr()
    assert not out
    assert err.splitlines() == [
        f"feltline token: --ttl is a whole number of seconds from 1 to 31622400 (a year), "
        f"not {ttl!r}"
    ]
    assert not key.exists()


def _signed_claims(claims: auth_pb2.TokenClaims) -> str:
    head = f"v1.{_b64(claims.SerializeToString())}"
    return f"{head}.{_b64(SIGNER.sign(head.encode()))}"


def test_each_refusal_says_why_word_for_word() -> None:
    expiry = auth_pb2.TokenClaims()
    expiry.expire_time.FromDatetime(NOW + HOUR)
    good = mint(SIGNER, auth_pb2.ROLE_ADMIN, now=NOW, ttl=HOUR)
    head, claims, signature = good.split(".")
    refusals = {
        "v1.abc": "not a Feltline token: expected v1.<claims>.<signature>",
        "v1.a!c.def": "the token is not base64url",
        "v1.a.def": "the token is not base64url",  # one character is no byte
        "v1.abd.def": "the token is not canonical base64url",  # 'abd' respells 'abc'
        f"{head}.{claims}.{_b64(b'x' * 64)}": "the token's signature does not verify",
        _signed_claims(auth_pb2.TokenClaims(role=auth_pb2.ROLE_ADMIN)): "the token has no expiry",
        _signed_claims(
            auth_pb2.TokenClaims(role=99, expire_time=expiry.expire_time)  # type: ignore[arg-type]
        ): "the token claims what no token may: no such role 99",
        _signed_claims(
            auth_pb2.TokenClaims(role=auth_pb2.ROLE_PLAYER, expire_time=expiry.expire_time)
        ): "the token claims what no token may: a player's token names the player: "
        "1 to 64 of A-Z a-z 0-9 _ . -, not ''",
        _signed_claims(
            auth_pb2.TokenClaims(
                role=auth_pb2.ROLE_ADMIN, player_id="bob", expire_time=expiry.expire_time
            )
        ): "the token claims what no token may: only a player's token names a player",
    }
    for token, why in refusals.items():
        with pytest.raises(InvalidToken) as refused:
            verify(token, SIGNER.public_key, now=NOW)
        assert str(refused.value) == why, token
    assert signature  # the good token's parts, reused above


def test_a_token_is_its_claims_deterministically_serialised_and_signed() -> None:
    token = mint(SIGNER, auth_pb2.ROLE_PLAYER, now=NOW, ttl=HOUR, player_id="alice", token_id="t")
    head, claims, signature = token.split(".")
    decoded = auth_pb2.TokenClaims.FromString(base64.urlsafe_b64decode(claims + "=="))
    assert f"{head}.{claims}" == f"v1.{_b64(decoded.SerializeToString(deterministic=True))}"
    assert "=" not in token
    SIGNER.public_key.verify(
        base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)),
        f"{head}.{claims}".encode(),
    )


def test_the_invite_command_prints_a_link_for_a_player_or_a_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "server.key"
    monkeypatch.setenv("FELTLINE_KEY_FILE", str(key))
    for argv in (
        ["invite"],  # a player's link names the player
        ["invite", "alice", "--role", "admin"],
        ["invite", "alice", "--url", "ftp://tables.example.com"],
        ["invite", "alice", "--url", "https://tables.example.com/#/table"],
    ):
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2, argv
    assert not key.exists()
    Signer.create(key)
    for argv, role, player in (
        (["invite", "alice"], auth_pb2.ROLE_PLAYER, "alice"),
        (["invite", "--role", "admin", "--url", "https://t.example.com/"], auth_pb2.ROLE_ADMIN, ""),
        (["invite", "--role", "auditor"], auth_pb2.ROLE_AUDITOR, ""),
    ):
        assert main(argv) == 0
        link = capsys.readouterr().out.strip()
        base, _, token = link.partition("/#token=")
        assert base in ("http://127.0.0.1:8080", "https://t.example.com")
        caller = verify(token, Signer.load(key).public_key, now=datetime.now(UTC))
        assert (caller.role, caller.player_id) == (role, player)


def test_an_invite_s_token_says_so_and_lives_at_most_a_year() -> None:
    year = timedelta(seconds=LONGEST_TTL)
    token = mint(SIGNER, auth_pb2.ROLE_PLAYER, now=NOW, ttl=year, player_id="al", invite=True)
    assert verify(token, SIGNER.public_key, now=NOW).invite
    assert not verify(_player(), SIGNER.public_key, now=NOW).invite
    with pytest.raises(ValueError, match="at most a year"):
        mint(SIGNER, auth_pb2.ROLE_ADMIN, now=NOW, ttl=year + timedelta(seconds=1))


def test_a_token_verifies_whatever_letter_its_base64_ends_in() -> None:
    """Only the padding is dropped: claims whose base64 ends in X keep it."""
    ends = set()
    for token_id in ("W", "tW", "ttW", "tttW"):
        token = mint(SIGNER, auth_pb2.ROLE_ADMIN, now=NOW, ttl=HOUR, token_id=token_id)
        assert verify(token, SIGNER.public_key, now=NOW).token_id == token_id
        ends.add(token.split(".")[1][-1])
    assert "X" in ends
