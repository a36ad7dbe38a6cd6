"""The seat store on a real Redis: tokens that name their seat, stored only as hashes (the notifier
makes a seat's token again under a key Redis never sees), replaced at once by a re-issue; and
personal data kept beside the log, erasable."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from events import keys
from events.calls import Calls
from events.seats import NotASeat, OverAllowance, SeatError, Seats, claimed, parse, redacted
from tests.conftest import written


@pytest.fixture
def seats(redis_client) -> Seats:
    return Seats(redis_client)


def test_a_token_names_its_game_and_seat_and_is_safe_in_a_url_and_a_mail_address(seats: Seats, game_id: str):
    token = seats.issue(game_id, 2)
    assert token.startswith(f"{game_id}.2.")
    assert re.fullmatch(r"[a-z0-9.-]+", token)
    assert len(token.rsplit(".", 1)[1]) == 52  # an HMAC-SHA256 (32 bytes) in base32, no padding
    assert seats.resolve(token) == (game_id, 2)
    assert seats.resolve(token.upper()) == (game_id, 2)  # a mail system may change the case
    assert seats.resolve(f"  {token}\n") == (game_id, 2)


KELVIN = "\u212a"


def with_a_k(seats: Seats, game_id: str, seat: int) -> str:
    """A token of the seat whose secret has a 'k' (about four in five do; others are issued again)."""
    while "k" not in (token := seats.issue(game_id, seat)).rsplit(".", 1)[1]:
        pass
    return token


def look_alike(token: str) -> str:
    """`token` with the first 'k' of its secret written as the Kelvin sign (U+212A), which
    str.lower() turns into 'k'."""
    head, _, secret = token.rpartition(".")
    return head + "." + secret.replace("k", KELVIN, 1)


def test_a_token_is_ascii_only_and_a_look_alike_opens_nothing(seats: Seats, game_id: str):
    token = with_a_k(seats, game_id, 1)
    near = look_alike(token)
    assert near != token and near.lower() == token  # what reading case-insensitively let in
    assert parse(near) is None and seats.resolve(near) is None and seats.check(near, 10, 5) is None
    for spaced in (f"\u3000{token}", f"{token}\u00a0", f"\u2003{token}"):  # Unicode spaces are not stripped
        assert seats.resolve(spaced) is None, repr(spaced)
    assert seats.resolve(token.upper()) == (game_id, 1)  # ASCII case still does not matter (mail)


def test_every_form_of_a_tokens_secret_is_redacted_and_game_and_seat_stay(seats: Seats, game_id: str):
    token = with_a_k(seats, game_id, 0)
    secret = token.rsplit(".", 1)[1]
    near = look_alike(token)
    forms = {
        "as issued": token,
        "upper case": token.upper(),
        "percent-encoded": "".join(f"%{ord(char):02X}" for char in token),
        "partly percent-encoded": token[:-10] + "".join(f"%{ord(char):02x}" for char in token[-10:]),
        "a look-alike": near,
        "a look-alike, percent-encoded": quote(near),
        "cut to 30 characters of its secret": token[: -(len(secret) - 30)],
    }
    for name, form in forms.items():
        line = redacted(f"GET /play/{form}/events?seat={form} 401")
        assert "<token>" in line, name
        for stretch in range(0, len(secret) - 12, 6):  # no twelve characters of the secret in a row
            piece = secret[stretch : stretch + 12]
            assert piece not in line.lower() and quote(piece) not in line, (name, line)
    assert redacted(f"/play/{token}") == f"/play/{game_id}.0.<token>"
    assert claimed(near) == (game_id, 0) and claimed("not a token") is None
    # Text that is not a token stays as it was.
    for text in ("GET /api/me 200", "/rules/holiday-board", f"game {game_id} seat 3", "/static/pbm/0123456789ab/page.css"):
        assert redacted(text) == text


def test_redis_keeps_only_the_tokens_hash(seats: Seats, game_id: str, redis_client):
    token = seats.issue(game_id, 0)
    secret = token.rsplit(".", 1)[1]
    for key in redis_client.scan_iter(match=f"pbm:{{{game_id}}}:*"):
        kind = redis_client.type(key)
        if kind == b"hash":
            stored = b" ".join(k + b" " + v for k, v in redis_client.hgetall(key).items())
        elif kind == b"string":
            stored = redis_client.get(key)
        else:
            continue
        assert secret.encode() not in stored and token.encode() not in stored
    assert redis_client.hget(keys.seat_tokens(game_id), "0") is not None


def test_a_reissued_token_replaces_the_old_one_at_once(seats: Seats, game_id: str):
    old = seats.issue(game_id, 1)
    new = seats.issue(game_id, 1)
    assert new != old
    assert seats.resolve(old) is None
    assert seats.resolve(new) == (game_id, 1)


def test_bad_tokens_resolve_to_none_never_an_exception(seats: Seats, game_id: str, store):
    token = seats.issue(game_id, 0)
    other_game = f"{game_id}-other"
    secret = token.rsplit(".", 1)[1]
    flipped = secret[:-1] + ("a" if secret[-1] != "a" else "b")
    bad = [
        "",
        "nonsense",
        f"{game_id}.0.{flipped}",  # wrong secret
        f"{game_id}.1.{secret}",  # another seat
        f"{other_game}.0.{secret}",  # another game
        f"{game_id}.0.{secret}x",
        f"{game_id}.00.{secret}",
        f"{game_id}.-1.{secret}",
        f"{game_id}.0.{secret[:-1]}1",  # not base32
        token + "\x00",
        "é" * 80,
        None,
        12,
    ]
    before = written(seats.redis, game_id)
    for guess in bad:
        assert seats.resolve(guess) is None, guess
        check = seats.check(guess, 10, 5)
        if check is not None:
            with pytest.raises(NotASeat):
                check.run()
    assert written(seats.redis, game_id) == before  # not even a counter for a forged token


def test_revoke_leaves_the_seat_without_a_working_token(seats: Seats, game_id: str):
    token = seats.issue(game_id, 0)
    seats.issue(game_id, 1)
    seats.revoke(game_id, 0)
    assert seats.resolve(token) is None
    assert seats.issued(game_id) == {1}


def test_a_token_check_counts_per_token_and_refuses_past_the_allowance(seats: Seats, game_id: str):
    token = seats.issue(game_id, 0)
    long_window = 10**9  # no window turns over during the test

    def run(token: str) -> str:
        check = seats.check(token, long_window, 2)
        try:
            check.run()
        except OverAllowance as refused:
            return f"over {refused.allowance} every {refused.window_s} s"
        check.run()  # once run, a check is done: running it again counts nothing
        return "ok"

    assert [run(token) for _ in range(3)] == ["ok", "ok", f"over 2 every {long_window} s"]
    other = seats.issue(game_id, 1)
    assert run(other) == "ok"
    renewed = seats.issue(game_id, 0)  # a re-issued token starts afresh; the old one is refused
    assert run(renewed) == "ok"
    with pytest.raises(NotASeat):
        seats.check(token, long_window, 2).run()


def test_a_moves_seat_names_are_read_on_the_round_trip_of_the_append_that_runs_its_check(seats: Seats, games, game_id: str):
    # POST /api/me/moves names the seats in its report: the names ride on the move's append.
    games.create("holly-oak", 3, seed=1, game_id=game_id, forced_moves="ask")
    seats.set_contact(game_id, 0, name="Ann")
    seats.set_contact(game_id, 2, name="Cy")
    table = games.table(game_id)
    mover = table.to_act[0]
    check = seats.check(seats.issue(game_id, mover), 10**9, 100)
    check.reads = seats.name_reads([(game_id, 3)])
    games.submit(game_id, mover, table.legal_moves(mover)[0], check=check)
    calls = Calls(seats.redis)
    sends_after = calls.direct or calls.cluster  # else nothing rides after a script: read apart, as before
    assert check.read == ([b"Ann", None, b"Cy"] if sends_after else None)
    seats.set_contact(game_id, 0, name="Ann Later")
    # What the append read is what the answer names (no second read); without it, Redis as it is now.
    assert seats.names([(game_id, 3)], read=check)[game_id] == (["Ann", None, "Cy"] if sends_after else ["Ann Later", None, "Cy"])
    assert seats.names([(game_id, 3)])[game_id] == ["Ann Later", None, "Cy"]
    other = seats.check(seats.issue(game_id, 1), 10**9, 100)  # reads for other seats' names are not these
    other.reads, other.read = seats.name_reads([(game_id, 2)]), [b"X", b"Y"]
    assert seats.names([(game_id, 3)], read=other)[game_id] == ["Ann Later", None, "Cy"]


def test_a_game_id_a_link_cannot_carry_is_refused(seats: Seats):
    for game_id in ("Upper-Case", "dots.in.it", "", "space here"):
        with pytest.raises(SeatError):
            seats.issue(game_id, 0)


def test_contacts_are_kept_beside_the_log_and_can_be_erased(seats: Seats, games, game_id: str, store):
    games.create("holly-oak", 3, seed=1, game_id=game_id)
    seats.set_contact(game_id, 0, name="Ann", email="ann@example.org", webhook="https://93.184.215.14/h", webhook_secret="s3")
    seats.set_contact(game_id, 0, name="Annie")  # None leaves the other fields
    assert seats.contact(game_id, 0) == {
        "name": "Annie", "email": "ann@example.org", "webhook": "https://93.184.215.14/h", "webhook_secret": "s3",
    }
    raw_log = b"".join(raw for _seq, raw in store.read_raw(game_id))
    assert b"ann@example.org" not in raw_log and b"93.184.215.14/h" not in raw_log
    seats.erase_contact(game_id, 0, "email")
    assert "email" not in seats.contact(game_id, 0)
    seats.erase_contact(game_id, 0)
    assert seats.contact(game_id, 0) == {}
    with pytest.raises(SeatError):
        seats.erase_contact(game_id, 0, "phone")
    with pytest.raises(SeatError):
        seats.set_contact(game_id, 0, name="line\nbreak")


def test_parse_reads_game_and_seat(game_id: str):
    assert parse(f"{game_id}.12.{'a' * 52}") == (game_id, 12)
    assert parse(f"{game_id}.12.{'a' * 51}") is None


def test_the_notifier_makes_a_reachable_seats_token_again_from_what_redis_keeps(seats: Seats, games, game_id: str, redis_client):
    games.create("holly-oak", 3, seed=1, game_id=game_id)
    seats.set_contact(game_id, 0, name="Ann", email="ann@example.org")
    seats.set_contact(game_id, 1, name="Bob")
    ann, bob = seats.issue(game_id, 0), seats.issue(game_id, 1)
    assert seats.reach(game_id, 0)["token"] == ann and "token" not in seats.reach(game_id, 1)  # no channel
    everything = b"".join(redis_client.dump(key) or b"" for key in redis_client.scan_iter(match=f"pbm:{{{game_id}}}:*"))
    assert all(token.rsplit(".", 1)[1].encode() not in everything for token in (ann, bob))
    assert "token" not in seats.contact(game_id, 0)  # what the pages and the operator read
    assert seats.reachable(game_id, [0, 1, 2]) == {0}
    again = seats.issue(game_id, 0)
    assert seats.reach(game_id, 0)["token"] == again != ann and seats.resolve(ann) is None
    # A process under another key cannot make the link: it says so in one line, naming the setting.
    with pytest.raises(SeatError, match="PBM_SECRET_KEY") as refused:
        Seats(redis_client, key=b"another site's key").reach(game_id, 0)
    assert "\n" not in str(refused.value) and again not in str(refused.value)
    seats.erase_contact(game_id, 0, "email")  # no channel left: no token made
    assert "token" not in seats.reach(game_id, 0) and seats.reachable(game_id, [0]) == set()
    seats.set_contact(game_id, 1, webhook="https://93.184.215.14/h")
    seats.issue(game_id, 1)
    seats.revoke(game_id, 1)
    assert "token" not in seats.reach(game_id, 1) and seats.issued(game_id) == {0}


