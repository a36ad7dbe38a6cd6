"""The clock read from a real log (events.clock): durations, settings, due times moved by pauses,
extensions and vacations, the shell's events in verify and audit, and `pbm new --deadline` /
`pbm clock` refusing bad input in one line with nothing written."""

from __future__ import annotations

import json

import attrs
import pytest

import core
from events import clock as clocks, codec, keys
from events.commands import Games, UnknownGame
from events.store import Store
from pbm import clock_control as game_clocks
from replays.audit import audit
from replays.log import from_store
from replays.verify import verify

HOUR_MS = 3_600_000
T0 = 1_800_000_000_000  # a fixed wall clock for the envelopes (2027-01-15)


class Wall:
    """The command path's clock, moved by the test: envelope times are what the clock reads."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@pytest.fixture
def wall() -> Wall:
    return Wall()


@pytest.fixture
def timed(store: Store, wall: Wall) -> Games:
    return Games(store, clock=wall)


def clock_of(store: Store, game_id: str) -> clocks.Clock:
    return clocks.Clock.read(store.read(game_id))


@pytest.mark.parametrize(("text", "seconds"), [("5s", 5), ("90m", 5400), ("48h", 172800), ("2d", 172800), (" 7D ", 604800)])
def test_durations(text: str, seconds: int) -> None:
    assert clocks.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["48x", "", "h", "1.5h", "-5s", "5 s", "0s", "400d", "1h30m", "9" * 30 + "s"])
def test_a_malformed_duration_is_one_line_naming_it(text: str) -> None:
    with pytest.raises(core.SetupError) as refused:
        clocks.parse_duration(text, "deadline")
    message = str(refused.value)
    assert message.startswith("deadline: ") and repr(text)[:20] in message and "\n" not in message


def test_settings_refuse_a_reminder_before_the_turn_begins_and_bad_numbers() -> None:
    assert clocks.settings("48h", "2h,24h").reminders_s == (86400, 7200)
    with pytest.raises(core.SetupError, match="reminders: 2h before a deadline of 1h"):
        clocks.settings("1h", "2h")
    with pytest.raises(core.SetupError, match="vacation days"):
        clocks.settings("1h", "", vacation_days=-1)
    with pytest.raises(core.SetupError, match="reminders: at most 5"):
        clocks.settings("30d", "1h,2h,3h,4h,5h,6h")


def test_a_game_without_a_deadline_has_no_clock(timed: Games, store: Store) -> None:
    game_id = timed.create("holly-oak", 3, seed=1)
    assert timed.table(game_id).clock is None
    assert clock_of(store, game_id).settings is None and clock_of(store, game_id).due_ms(0) is None
    assert game_clocks.describe(timed, game_id) is None
    with pytest.raises(core.SetupError, match="has no clock"):
        game_clocks.pause(timed, game_id)


def test_the_due_time_moves_with_pauses_extensions_and_vacations(timed: Games, store: Store, wall: Wall) -> None:
    settings = clocks.settings("1h", "10m", vacation_days=3)
    game_id = timed.create("holly-oak", 3, seed=2, clock=settings, forced_moves="ask")
    table = timed.table(game_id)
    assert table.clock == settings and store.read(game_id)[-1].kind == core.ClockSet.kind
    seat = table.to_act[0]
    assert clock_of(store, game_id).turn == table.seq - 1  # the ClockSet after the deal is nobody's move
    assert clock_of(store, game_id).due_ms(seat) == T0 + HOUR_MS
    wall.advance(10 * 60_000)
    game_clocks.pause(timed, game_id)
    assert clock_of(store, game_id).due_ms(seat) is None  # paused: no due time
    with pytest.raises(core.SetupError, match="paused already"):
        game_clocks.pause(timed, game_id)
    wall.advance(30 * 60_000)
    game_clocks.resume(timed, game_id)
    assert clock_of(store, game_id).due_ms(seat) == T0 + HOUR_MS + 30 * 60_000  # the pause does not count
    game_clocks.extend(timed, game_id, "15m")
    assert clock_of(store, game_id).due_ms(seat) == T0 + HOUR_MS + 45 * 60_000
    wall.advance(5 * 60_000)
    game_clocks.take_vacation(timed, game_id, seat, 1)
    assert clock_of(store, game_id).due_ms(seat) == T0 + HOUR_MS + 45 * 60_000 + 86_400_000
    # another seat's vacation does not move this seat's deadline
    other = (seat + 1) % 3
    game_clocks.take_vacation(timed, game_id, other, 2)
    clock = clock_of(store, game_id)
    assert clock.due_ms(seat) == T0 + HOUR_MS + 45 * 60_000 + 86_400_000
    assert clock.vacation_left(seat, wall.now) == 2 and clock.vacation_left(other, wall.now) == 1
    with pytest.raises(core.SetupError, match="has 1 vacation day left this year, not 2"):
        game_clocks.take_vacation(timed, game_id, other, 2)
    # The seat moves: the next seat's turn begins at the move's time, without the extension.
    before = store.length(game_id)
    wall.advance(60_000)
    moved_at = wall.now
    timed.submit(game_id, seat, timed.table(game_id).legal_moves(seat)[0])
    clock = clock_of(store, game_id)
    nxt = timed.table(game_id).to_act[0]
    assert clock.turn == store.length(game_id) and clock.turn > before
    assert clock.turn_started_ms == moved_at and clock.extra_s == {}
    expected = moved_at + HOUR_MS + (2 * 86_400_000 - 60_000 if nxt == other else 0)  # other is away a minute less than 2 days
    assert clock.due_ms(nxt) == expected
    # Replays treat the shell's events as nobody's move: the log verifies, the audit shows the clock.
    log = from_store(store, game_id)
    assert verify(log, seed=store.seed(game_id)).ok
    text, _report = audit(log)
    assert "## Clock" in text and "1h a move" in text and "| in time |" in text


def test_a_timeout_is_recorded_as_the_shells_and_replays_verify(timed: Games, store: Store, wall: Wall) -> None:
    game_id = timed.create("holly-oak", 3, seed=3, clock=clocks.settings("5s", autopilot_after=2), forced_moves="ask")
    table = timed.table(game_id)
    seat, turn = table.to_act[0], clock_of(store, game_id).turn
    wall.advance(6000)
    timed.record(game_id, core.TurnTimedOut(seat=seat, turn=turn), command_id=f"timed-out:{turn}:{seat}")
    again = timed.record(game_id, core.TurnTimedOut(seat=seat, turn=turn), command_id=f"timed-out:{turn}:{seat}")
    assert again.duplicate and store.length(game_id) == table.seq + 1  # a retried job records it once
    move = timed.table(game_id).legal_moves(seat)[0]
    timed.submit(game_id, seat, move, command_id=clocks.timeout_command_id(turn, seat))
    clock = clock_of(store, game_id)
    assert clock.timeouts == ((table.seq, seat, turn),) and clock.timeouts_in_a_row == {seat: 1}
    log = from_store(store, game_id)
    report = verify(log, seed=store.seed(game_id))
    assert report.ok and [r.move for r in report.rulings] == [move]
    text, _report = audit(log)
    assert "timed out: the autopilot moved" in text and f"seat {seat} at seq {table.seq}" in text
    assert "time ran out" in log.narrate(table.seq)


def test_the_shells_events_are_refused_after_the_end_and_only_the_shells_are_recorded(timed: Games) -> None:
    game_id = timed.create("holly-oak", 3, seed=4, clock=clocks.settings("1h"))
    with pytest.raises(TypeError):
        timed.record(game_id, core.SeedRevealed(seed="00"))


def test_pbm_new_and_clock_refuse_bad_input_in_one_line(pbm, store: Store) -> None:
    before = set(store.redis.scan_iter(match="pbm:*"))
    for args, named in [
        (("new", "holly-oak", "-p", "3", "--deadline", "48x"), "deadline: '48x'"),
        (("new", "holly-oak", "-p", "3", "--deadline", "1h", "--reminders", "2h"), "reminders:"),
        (("new", "holly-oak", "-p", "3", "--reminders", "2h"), "need a --deadline"),
    ]:
        result = pbm(*args, ok=False)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and named in lines[0], result.output
    assert set(store.redis.scan_iter(match="pbm:*")) == before  # nothing written
    created = pbm("new", "holly-oak", "-p", "3", "--deadline", "2d", "--reminders", "24h,2h", "--vacation-days", "5")
    game_id = created.stdout.strip()  # (stderr may warn that no worker runs: it depends on other tests)
    shown = json.loads(pbm("clock", game_id, "--json").output)
    assert shown["deadline_s"] == 172800 and shown["reminders_s"] == [86400, 7200] and not shown["paused"]
    assert json.loads(pbm("clock", game_id, "pause", "--json").output)["paused"]
    assert "paused already" in pbm("clock", game_id, "pause", ok=False).output
    assert not json.loads(pbm("clock", game_id, "resume", "--json").output)["paused"]
    result = pbm("clock", game_id, "extend", "12x", ok=False)
    assert "extend by: '12x' is not a duration" in result.output
    seat = shown["seats"][0]["seat"]
    due = shown["seats"][0]["due_ms"]
    extended = json.loads(pbm("clock", game_id, "extend", "12h", "--json").output)
    assert extended["seats"][0]["due_ms"] >= due + 12 * HOUR_MS
    away = json.loads(pbm("clock", game_id, "vacation", "2", "--seat", str(seat), "--json").output)
    assert away["seats"][0]["vacation_days_left"] == 3 and away["seats"][0]["on_vacation_until"]
    assert "3 vacation days left" in pbm("clock", game_id, "vacation", "4", "--seat", str(seat), ok=False).output
    plain = pbm("new", "holly-oak", "-p", "3").stdout.strip()
    assert "has no clock" in pbm("clock", plain, "pause", ok=False).output


def eventful(timed: Games, store: Store, wall: Wall) -> str:
    """A clocked game with every kind of the clock's events between moves: pauses, extensions,
    vacations of two seats, a timeout with the autopilot's move, and a pause left open."""
    game_id = timed.create("holly-oak", 3, seed=4, clock=clocks.settings("1h", "10m", vacation_days=5, autopilot_after=3))

    def move() -> None:
        wall.advance(60_000)
        seat = timed.table(game_id).to_act[0]
        timed.submit(game_id, seat, timed.table(game_id).legal_moves(seat)[0])

    move()
    game_clocks.pause(timed, game_id)
    wall.advance(HOUR_MS)
    game_clocks.resume(timed, game_id)
    game_clocks.extend(timed, game_id, "15m")
    move()
    seat = timed.table(game_id).to_act[0]
    game_clocks.take_vacation(timed, game_id, seat, 2)
    game_clocks.take_vacation(timed, game_id, (seat + 1) % 3, 1)
    move()
    seat, turn = timed.table(game_id).to_act[0], clock_of(store, game_id).turn
    wall.advance(2 * HOUR_MS)
    timed.record(game_id, core.TurnTimedOut(seat=seat, turn=turn), command_id=f"timed-out:{turn}:{seat}")
    timed.submit(game_id, seat, timed.table(game_id).legal_moves(seat)[0], command_id=clocks.timeout_command_id(turn, seat))
    move()
    game_clocks.pause(timed, game_id)
    return game_id


def test_a_clock_read_in_two_parts_is_the_clock_read_whole_and_its_cache_entry_holds_it(timed: Games, store: Store, wall: Wall) -> None:
    envelopes = store.read(eventful(timed, store, wall))
    whole = clocks.Clock.read(envelopes)
    assert whole.stops and whole.vacations and whole.extra_s == {} and whole.timeouts and whole.paused_since_ms is not None
    for split in range(len(envelopes) + 1):
        part = clocks.Clock.read(envelopes[:split])
        assert part.advanced(envelopes[split:]) == whole, split
        if split:  # a turn begins at the last event that is nobody's shell event
            assert part.turn_started_ms == envelopes[part.turn - 1].time_ms and envelopes[part.turn - 1].kind not in clocks.SHELL_KINDS
            entry = clocks.cache_entry(part, split, envelopes[split - 1].hash)
            assert clocks.from_cache_entry(entry) == (split, envelopes[split - 1].hash, part), split
    for junk in (None, b"", b"\xc1", codec.pack([clocks.CACHE_SCHEMA + 1]), codec.pack([clocks.CACHE_SCHEMA, "1", b"", None, 1, 0, None, [], [], [], [], []])):
        assert clocks.from_cache_entry(junk) is None


def test_store_clocks_reads_only_the_envelopes_after_each_games_cached_clock(timed: Games, store: Store, wall: Wall) -> None:
    first, second = eventful(timed, store, wall), timed.create("holly-oak", 3, seed=5, clock=clocks.settings("2h"))
    assert store.clocks([first, second, "no-such-game"]) == {first: clock_of(store, first), second: clock_of(store, second)}

    def cache(game_id: str) -> tuple[int, bytes, clocks.Clock] | None:
        return clocks.from_cache_entry(store.redis.get(keys.clock(game_id)))

    assert cache(first)[0] == store.length(first) and cache(second)[0] == store.length(second)
    assert 0 < store.redis.ttl(keys.clock(first)) <= clocks.CACHE_TTL_S  # a game no listing shows any more lets it go
    game_clocks.resume(timed, first)
    wall.advance(60_000)
    seat = timed.table(first).to_act[0]
    timed.submit(first, seat, timed.table(first).legal_moves(seat)[0])
    assert store.clocks([first]) == {first: clock_of(store, first)} and cache(first)[0] == store.length(first)
    # What is read is the cache and the envelopes after it: a cached clock planted with the log's
    # hash at its seq is what comes back, and one with another hash (another log's) is ignored.
    seq, last_hash, clock = cache(first)
    planted = attrs.evolve(clock, extra_s={seat: 999})
    store.redis.set(keys.clock(first), clocks.cache_entry(planted, seq, last_hash))
    assert store.clocks([first]) == {first: planted}
    store.redis.set(keys.clock(first), clocks.cache_entry(planted, seq, b"\x01" * 32))
    assert store.clocks([first]) == {first: clock_of(store, first)} and cache(first)[1] == last_hash
    store.redis.set(keys.clock(second), b"not a cache entry")
    assert store.clocks([second]) == {second: clock_of(store, second)}
    # A log that does not decode is left out; the others are not.
    # (\xc1 is no msgpack; its end links it to the log's last event, as the append checks)
    last = store.read(second, store.length(second) - 1)[0].hash
    store.append(second, store.length(second), [b"\xc1\xc4\x20" + last + b"\xc4\x20" + bytes(32)])
    assert store.clocks([first, second]) == {first: clock_of(store, first)}


def test_store_clocks_upto_a_seq_is_the_clock_of_the_log_up_to_it(timed: Games, store: Store, wall: Wall) -> None:
    game_id = eventful(timed, store, wall)
    envelopes = store.read(game_id)
    key = keys.clock(game_id)
    for seq in range(1, len(envelopes)):
        expected = clocks.Clock.read(envelopes[: seq + 1])
        store.redis.delete(key)  # no cache: the log up to seq, and a cache of it written
        assert store.clocks([game_id], upto={game_id: seq}) == {game_id: expected}
        assert clocks.from_cache_entry(store.redis.get(key))[0] == seq + 1
        head = clocks.cache_entry(clocks.Clock.read(envelopes), len(envelopes), envelopes[-1].hash)
        store.redis.set(key, head)  # a cache ahead of seq is not used, and kept as it is
        assert store.clocks([game_id], upto={game_id: seq}) == {game_id: expected}
        assert store.redis.get(key) == head
    # A cache behind the bound: the events after it, up to the bound only.
    store.redis.set(key, clocks.cache_entry(clocks.Clock.read(envelopes[:3]), 3, envelopes[2].hash))
    assert store.clocks([game_id], upto={game_id: len(envelopes) - 2}) == {game_id: clocks.Clock.read(envelopes[:-1])}


def test_a_table_with_its_clock_is_read_at_one_length_of_the_log(timed: Games, store: Store, wall: Wall) -> None:
    game_id = eventful(timed, store, wall)
    table, clock = Games(store).table_with_clock(game_id)  # cold: a table from its snapshot or log
    assert table.seq == store.length(game_id) and clock == clock_of(store, game_id)
    with pytest.raises(UnknownGame):
        timed.table_with_clock("no-such-game")
