"""The replay file: a game's log as one msgpack stream, and its import into Redis.

Format (version 1, or 2 for a game with disputes), a concatenation of msgpack objects:

    "pbm-replay"                     the magic string (always the same 11 bytes)
    {"version": 1, "game_id": str, "game": slug, "rules_version": int,
     "events": count, "last_hash": bytes}                     the header
                                     (version 2 adds "disputes": count)
    envelope 0, envelope 1, ...      each exactly the bytes Redis stores (events.envelope)
    dispute 0, dispute 1, ...        version 2: {"id", "seat", "seq", "reason", "raised_ms",
                                     "note", "settled_ms"}, by the time raised (events.disputes;
                                     note and settled_ms nil while open)

The envelopes are copied, never re-encoded, so export -> import -> export gives the same bytes.
The disputes are beside the log, as in Redis: no hash covers them (a dispute questions the log,
it is no part of it), and a file without any is a version 1 file, which an older pbm reads.
A dispute's command id (a mail's Message-ID, an Idempotency-Key) is not in the file.
Reading refuses, with one line naming the file, the seq and the problem: another magic, a header
that does not match its envelopes, a truncated or bit-flipped file, an unknown event tag, an event
of another game. Only `restore` writes, and it writes a whole verified log or nothing.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import msgpack
import redis

from events import codec, index, keys
from events.commands import Games
from events.codec import DecodeError
from events.disputes import Dispute, Disputes
from events.envelope import from_value
from events.server import owner_only
from events.store import Store
from replays.log import BadLog, Log, from_store
from replays.verify import FAIL, Report, verify

MAGIC = "pbm-replay"
VERSION = 1
WITH_DISPUTES = 2  # the version of a file that holds disputes
DISPUTE_FIELDS = {"id": (str,), "seat": (int,), "seq": (int,), "reason": (str,), "raised_ms": (int,), "note": (str, type(None)), "settled_ms": (int, type(None))}
MAGIC_BYTES = codec.pack(MAGIC)
SUFFIX = ".pbmlog"  # the usual name ending of a replay file (nothing depends on it)


# RENAME as a script: redis-py refuses RENAME in a Redis Cluster's pipeline, a script it routes by
# its keys (both under the game's hash tag, so in one slot).
_RENAME = "return redis.call('RENAME', KEYS[1], KEYS[2])"


class Refused(ValueError):
    """An import refused (a log that fails verification, a taken id, events it would drop);
    nothing was written."""


def header(log: Log) -> dict[str, Any]:
    head = {
        "version": WITH_DISPUTES if log.disputes else VERSION,
        "game_id": log.game_id,
        "game": log.game.slug,
        "rules_version": log.started.rules_version,
        "events": len(log.envelopes),
        "last_hash": log.envelopes[-1].hash,
    }
    return head | ({"disputes": len(log.disputes)} if log.disputes else {})


def dumps(log: Log) -> bytes:
    raw = log.raw if log.raw is not None else [env.encode() for env in log.envelopes]
    disputes = [codec.pack({name: getattr(dispute, name) for name in DISPUTE_FIELDS}) for dispute in log.disputes]
    return MAGIC_BYTES + codec.pack(header(log)) + b"".join(raw) + b"".join(disputes)


def exported(store: Store, game_id: str) -> Log:
    """A game as its replay file holds it: the stored log and the disputes beside it. Every export
    (the operator's, a seat's, `pbm replay export`) writes this, so they are the same bytes."""
    log = from_store(store, game_id)
    return Log(log.source, log.envelopes, log.raw, Disputes(store).all(game_id))


def export(store: Store, game_id: str, path: str | Path) -> Log:
    """Write a game's log and disputes to `path` (mode 0600 if it creates it); returns the log written."""
    log = exported(store, game_id)
    # The file holds every hidden card: readable by its owner only, like Redis's own files.
    with open(path, "wb", opener=owner_only) as file:
        file.write(dumps(log))
    return log


def read(path: str | Path) -> Log:
    """The log in a replay file, its integrity checked (BadLog otherwise)."""
    return read_unchecked(path).check_integrity()


def read_unchecked(path: str | Path) -> Log:
    """The log in a replay file, decoded but not checked against its hash chain (verify reports)."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise BadLog(source, f"cannot read: {error.strerror}") from None
    return loads(data, source)


def loads(data: bytes, source: str = "replay file") -> Log:
    if not data.startswith(MAGIC_BYTES):
        raise BadLog(source, f"not a pbm replay file (it does not start with {MAGIC!r})")
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=True, max_buffer_size=max(len(data), 1 << 20))
    unpacker.feed(data)
    unpacker.skip()  # the magic, checked above
    head = _next(unpacker, source, "the header")
    if head is None:
        raise BadLog(source, "truncated: the header is missing")
    expected = _check_header(head, source)
    envelopes, raw = [], []
    start = unpacker.tell()
    for index in range(expected):
        value = _next(unpacker, source, "an envelope", index)
        if value is None:
            raise BadLog(source, f"truncated: the header promises {expected} events, the file ends before this one", index)
        try:
            env = from_value(value)
        except DecodeError as error:
            raise BadLog(source, str(error), index) from None
        if env.game_id != head["game_id"]:
            raise BadLog(source, f"an event of game {env.game_id!r} in the file of game {head['game_id']!r}", index)
        end = unpacker.tell()
        envelopes.append(env)
        raw.append(data[start:end])
        start = end
    disputes = [_dispute(_next(unpacker, source, "a dispute"), source, index, expected) for index in range(head.get("disputes", 0))]
    start = unpacker.tell()
    if start != len(data):
        raise BadLog(source, f"{len(data) - start} bytes after the last {'dispute' if disputes else 'event'} ({expected} events, {len(disputes)} disputes promised)", expected)
    if not envelopes:
        raise BadLog(source, "no events: a log starts with GameStarted")
    log = Log(source, envelopes, raw, disputes)
    if log.game.slug != head["game"] or log.started.rules_version != head["rules_version"]:
        raise BadLog(source, f"the header says {head['game']!r} version {head['rules_version']!r}, the log is {log.game.slug} version {log.started.rules_version}", 0)
    if envelopes[-1].hash != head["last_hash"]:
        raise BadLog(source, "the last event's hash is not the one the header names", expected - 1)
    return log


def _next(unpacker: msgpack.Unpacker, source: str, what: str, seq: int | None = None) -> Any:
    """The next object, None at the end of the data; BadLog for bytes that are not msgpack."""
    try:
        return unpacker.unpack()
    except msgpack.OutOfData:
        return None
    except (ValueError, TypeError, msgpack.UnpackException) as error:  # flipped bits: any of these
        raise BadLog(source, f"{what} is not valid msgpack ({type(error).__name__})", seq) from None


def _check_header(head: Any, source: str) -> int:
    fields = {"version": int, "game_id": str, "game": str, "rules_version": int, "events": int, "last_hash": bytes}
    if isinstance(head, dict) and head.get("version") == WITH_DISPUTES:
        fields["disputes"] = int
    if not isinstance(head, dict) or set(head) != set(fields):
        raise BadLog(source, "the header is not a pbm replay header")
    for name, kind in fields.items():
        if type(head[name]) is not kind:
            raise BadLog(source, f"the header's {name} is not a {kind.__name__}")
    if head["version"] not in (VERSION, WITH_DISPUTES):
        raise BadLog(source, f"replay file version {head['version']}; this pbm reads versions {VERSION} and {WITH_DISPUTES}")
    if head["events"] < 1:
        raise BadLog(source, "the header promises no events")
    if head.get("disputes", 1) < 1:
        raise BadLog(source, "the header of a version 2 file promises no disputes")
    return head["events"]


def _dispute(value: Any, source: str, index: int, events: int) -> Dispute:
    """A dispute of the file (its fields and their types checked); BadLog, naming which, if not."""
    if value is None:
        raise BadLog(source, f"truncated: the header promises more disputes, the file ends before dispute {index}")
    if not isinstance(value, dict) or set(value) != set(DISPUTE_FIELDS):
        raise BadLog(source, f"dispute {index} is not a dispute (fields {', '.join(DISPUTE_FIELDS)})")
    for name, kinds in DISPUTE_FIELDS.items():
        if type(value[name]) not in kinds:
            raise BadLog(source, f"dispute {index}'s {name} is {type(value[name]).__name__}, not {' or '.join(k.__name__ for k in kinds if k is not type(None))}")
    if not 0 <= value["seq"] < events:
        raise BadLog(source, f"dispute {index} names seq {value['seq']}: the file's log holds seq 0 to {events - 1}")
    if (value["note"] is None) != (value["settled_ms"] is None):
        raise BadLog(source, f"dispute {index} has a note without a time settled, or a time without a note")
    return Dispute(**value)


def restore(client: redis.Redis, log: Log, replace: bool = False, force: bool = False, unverified: bool = False) -> str | None:
    """Write `log` into Redis as game `log.game_id`, with its command ids, its list entry, its
    disputes (added to any the game has) and, once revealed, its seed: all or nothing, and only
    once `replays.verify` passes it.

    Refused (Refused, nothing written): a log verify rejects, unless `unverified` (then it is kept
    for forensics, marked, and never played); a taken id, unless `replace`; a replace that would
    drop events the stored game has and the file lacks, unless `force` (then the old log and seed
    are kept under other keys). Returns what was kept aside, as a sentence, or None."""
    report = verify(log)
    failure = None if report.ok else _first_failure(report)
    if failure is not None and not unverified:
        first = "" if report.first_bad_seq is None else f" at seq {report.first_bad_seq}"
        raise Refused(f"{log.source}: not imported: it fails verification{first} ({failure}); `pbm replay verify` tells all, --unverified keeps it for forensics, never played")
    game_id = log.game_id
    raw = log.raw if log.raw is not None else [env.encode() for env in log.envelopes]
    log_key, seed_key = keys.log(game_id), keys.seed(game_id)
    created = log.envelopes[0].time_ms
    # Listed first, placed after (events.index: a crash between leaves an entry too many); a log
    # kept unverified is never played, so it is only listed.
    index.listed(client, game_id, created, bots=True, running=failure is None)
    Disputes.listed(client, game_id, log.disputes)
    with client.pipeline(transaction=True) as pipe:
        # WATCH: a write to the game between this look and the import makes the transaction fail.
        pipe.watch(log_key, seed_key)
        stored = {keys.seq_of(entry): fields[b"e"] for entry, fields in pipe.xrange(log_key)}
        if stored and not replace:
            raise Refused(f"game {game_id} exists already: nothing imported (--replace overwrites it)")
        dropped = _first_dropped(stored, raw)
        if dropped is not None and not force:
            raise Refused(
                f"game {game_id} in Redis has events from seq {dropped} on that this file lacks: nothing imported "
                "(--force replaces it all the same and keeps the old log under another key)"
            )
        had_seed = bool(pipe.exists(seed_key))
        pipe.multi()
        kept = None
        if dropped is not None:
            stamp = time.time_ns() // 1_000_000
            kept_keys = [keys.replaced(game_id, "log", stamp)]
            pipe.execute_command("EVAL", _RENAME, 2, log_key, kept_keys[0])
            if had_seed:
                kept_keys.append(keys.replaced(game_id, "seed", stamp))
                pipe.execute_command("EVAL", _RENAME, 2, seed_key, kept_keys[1])
            kept = f"the old log of {game_id} ({len(stored)} events) is kept under {' and its seed under '.join(kept_keys)}"
            pipe.delete(keys.seat_tokens(game_id))  # the old game's seat links do not open this one
        # A replace that only adds events keeps the running game's secret seed: its log is a
        # prefix of this one, so the seed matches the same commitment.
        pipe.delete(log_key, keys.commands(game_id), keys.meta(game_id), keys.unverified(game_id), keys.snapshot(game_id), keys.clock(game_id))
        if dropped is not None or log.revealed_seed is not None:
            pipe.delete(seed_key)
        for seq, data in enumerate(raw):
            pipe.xadd(log_key, {"e": data}, id=keys.entry_id(seq))
        done = {
            log.envelopes[first].command_id: f"{first}:{count}"
            for first, count in log.commands()
            if log.envelopes[first].command_id is not None
        }
        if done:
            pipe.hset(keys.commands(game_id), mapping=done)
        Disputes.restore(pipe, game_id, log.disputes)
        pipe.hset(keys.meta(game_id), mapping={"slug": log.game.slug, "players": log.started.players, "created": created})
        if log.revealed_seed is not None:
            pipe.set(seed_key, str(log.revealed_seed))
        if failure is not None:
            pipe.set(keys.unverified(game_id), failure)
            pipe.hset(keys.meta(game_id), "unverified", failure)  # the list's copy
        try:
            pipe.execute()
        except redis.WatchError:
            raise Refused(f"game {game_id} was written to while importing: nothing imported") from None
    if failure is None:  # a verified log folds: its row and index entries come from it
        Games(Store(client)).reindex_game(game_id)
    return kept


def _first_failure(report: Report) -> str:
    """The failing finding at the first bad seq, as a line without its status."""
    failed = [f for f in report.findings if f.status == FAIL]
    first = min(failed, key=lambda f: (f.seq is None, f.seq or 0))
    return first.line().removeprefix(FAIL).strip()


def _first_dropped(stored: dict[int, bytes], raw: list[bytes]) -> int | None:
    """The first seq of the stored log whose event the file does not have there, byte for byte;
    None if the file holds every stored event."""
    return next((seq for seq, data in stored.items() if seq >= len(raw) or raw[seq] != data), None)
