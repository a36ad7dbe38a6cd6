"""Every Redis key pbm uses, named in one place. No I/O.

A game's keys share the hash tag `{<game id>}`, so a Redis Cluster keeps a game on one shard and
the append script may touch all of them at once.
"""

PREFIX = "pbm"
GAMES = f"{PREFIX}:games"  # sorted set: game id -> creation time (ms); the list of games
# The index (events/index.py): sorted sets across games, each a superset of what it names (an entry
# is added before the game's own script runs and removed after it), checked against the game's row.
RUNNING = f"{PREFIX}:games:running"  # game id -> creation time: games not over
FINISHED = f"{PREFIX}:games:finished"  # game id -> end time: games over
BOT_GAMES = f"{PREFIX}:games:bots"  # game id -> creation time: games not over with a bot seat
UNSUMMARIZED = f"{PREFIX}:games:unsummarized"  # game id -> end time: over, summary not yet written
CLOCKED_GAMES = f"{PREFIX}:games:clocked"  # game id -> creation time: games not over with a deadline (a clock's, or the salts')


def log(game_id: str) -> str:
    """Stream: one entry per event, entry id `<seq>-1`, field `e` = the envelope's bytes."""
    return f"{PREFIX}:{{{game_id}}}:log"


def commands(game_id: str) -> str:
    """Hash: command id -> `<first seq>:<count>` of the events it appended."""
    return f"{PREFIX}:{{{game_id}}}:commands"


def seed(game_id: str) -> str:
    """String: the secret seed (decimal) until the game ends; only the command path reads it."""
    return f"{PREFIX}:{{{game_id}}}:seed"


def meta(game_id: str) -> str:
    """Hash: the game's row, what `pbm list` and recovery read instead of the log: slug, players,
    created (ms) and bots (seats, comma-separated), set once; seq (the log's length), to_act (seats),
    outcome (JSON, '' while running) and since (ms of the last append), written by the same script
    as the events; reach (the seats with an e-mail address or a webhook), kept by the seat store and
    answered by the append script, so the dispatcher knows whom to notify without a read;
    forced_moves ("auto" or "ask", set once; none: "auto"), answered by the append script too, so
    the command path knows without a read whether to play a person's only legal move; orders ("1"
    once a seat has left standing orders), answered by it as well, so a game without orders costs
    no read of them."""
    return f"{PREFIX}:{{{game_id}}}:meta"


def orders(game_id: str, seat: int) -> str:
    """Hash: a seat's standing orders (events/orders.py): order id -> the order as JSON (with its
    place in the list), and `~note:<seq>:<id>` -> why an order was dropped, for the seat's next
    report. Mutable, never replayed, never copied into the log or shown to another seat."""
    return f"{PREFIX}:{{{game_id}}}:orders:{seat}"


def disputes(game_id: str) -> str:
    """Hash: the game's disputes (events/disputes.py): dispute id -> the dispute as JSON, and
    `settled:<id>` -> the operator's settlement. Beside the log, never in it: a dispute is no move."""
    return f"{PREFIX}:{{{game_id}}}:disputes"


DISPUTED = f"{PREFIX}:games:disputed"  # sorted set: game id -> time: games with an open dispute (a superset)


def seat_tokens(game_id: str) -> str:
    """Hash: seat -> SHA-256 (hex) of its secret link token; the token itself is never stored."""
    return f"{PREFIX}:{{{game_id}}}:seat-tokens"


def contact(game_id: str, seat: int) -> str:
    """Hash: a seat's personal data (name, email, webhook, webhook_secret): mutable, erasable,
    never copied into the log."""
    return f"{PREFIX}:{{{game_id}}}:contact:{seat}"


def sent(game_id: str) -> str:
    """Hash: `<seq>:<seat>:<kind>[:<note digest>]` -> time (ms) of each notification sent (pbm/mail/notify.py), written
    right after the send and before its job is acknowledged, so a job run again sends once."""
    return f"{PREFIX}:{{{game_id}}}:sent"


def access(game_id: str) -> str:
    """Hash: who may look at a game besides its seats: `spectators` set when its creator allows."""
    return f"{PREFIX}:{{{game_id}}}:access"


def seat_rate(game_id: str, seat: int, token_digest: str, window: int, kind: str = "") -> str:
    """String with a TTL: how many moves (or, with a `kind`, other requests) one seat token sent in
    one time window (events/seats.py, events/limits.py)."""
    named = f"{kind}:" if kind else ""  # moves keep the key they always had
    return f"{PREFIX}:{{{game_id}}}:rate:{named}{seat}:{token_digest[:16]}:{window}"


def address_rate(address: str, kind: str, window: int) -> str:
    """String with a TTL: how many requests of one kind a client address sent in one time window
    (pbm/web/limits.py). The address is its own hash tag: on a Cluster its counters share a slot."""
    return f"{PREFIX}:{{addr:{address}}}:rate:{kind}:{window}"


def seat_streams(game_id: str, seat: int) -> str:
    """Sorted set with a TTL: the seat's open event streams (slot id -> lease end in ms), capped
    (events/limits.py, Slots)."""
    return f"{PREFIX}:{{{game_id}}}:streams:{seat}"


def page_note(game_id: str, seat: int, note_id: str) -> str:
    """String with a TTL: what a seat's form post left for the page it redirects to (a move played
    or refused, and why), read once (pbm/web/notes.py): kept out of the URL, which a browser's
    history and an access log keep."""
    return f"{PREFIX}:{{{game_id}}}:note:{seat}:{note_id}"


def unverified(game_id: str) -> str:
    """String: why an imported log failed verification. A game with one was kept for forensics
    (`pbm replay import --unverified`) and is never played: the append script refuses it."""
    return f"{PREFIX}:{{{game_id}}}:unverified"


def replaced(game_id: str, what: str, time_ms: int) -> str:
    """The log (or seed) a forced import replaced, kept under this key (same hash tag)."""
    return f"{PREFIX}:{{{game_id}}}:{what}:replaced:{time_ms}"


def game_of_log(key: bytes | str) -> str:
    """The game id in a log's key (what `pbm reindex` finds by scanning)."""
    text = key.decode() if isinstance(key, bytes) else key
    return text[len(PREFIX) + 2 : -len("}:log")]


LOG_PATTERN = f"{PREFIX}:{{*}}:log"


def snapshot(game_id: str) -> str:
    """String: the latest snapshot of the game's state, a disposable cache (events/snapshots.py)."""
    return f"{PREFIX}:{{{game_id}}}:snapshot"


def clock(game_id: str) -> str:
    """String: the game's clock at some seq, a disposable cache for the readers of its clock
    (Store.clocks, events/clock.py)."""
    return f"{PREFIX}:{{{game_id}}}:clock"


def of_game(game_id: str, players: int) -> list[str]:
    """Every key a game owns, for `pbm delete`: a key added for a game belongs here too (a test
    plays, summarizes and seats a game, deletes it and finds none of its keys left). Not listed:
    the seat rate windows, stream slots and page notes, which expire by themselves, and a forced
    import's replaced logs."""
    fixed = [log, commands, seed, meta, summary, seat_tokens, access, unverified, snapshot, clock, sent, seat_people, open_seats, disputes, rematch]
    return [key(game_id) for key in fixed] + [per(game_id, seat) for per in (contact, orders) for seat in range(players)]


def seat_people(game_id: str) -> str:
    """Hash: seat -> id of the person who holds it (events/people.py); the game's side of a
    person's seats, which their own index (person_seats) names as candidates."""
    return f"{PREFIX}:{{{game_id}}}:people"


def open_seats(game_id: str) -> str:
    """Hash: a game's join link and its open seats (events/joining.py): `link` the SHA-256 of its
    join token and `nonce` what it is made from, `open:<seat>` for each seat nobody holds yet."""
    return f"{PREFIX}:{{{game_id}}}:open"


def rematch(game_id: str) -> str:
    """Hash: a finished game's rematch (events/rematch.py): `game` the new game's id, drawn by the
    first request, and `accepted:<seat>` for each seat that asked for it or accepted."""
    return f"{PREFIX}:{{{game_id}}}:rematch"


OPEN_GAMES = f"{PREFIX}:games:open"  # sorted set: game id -> creation time: games with open seats (a superset)

# A person's keys share their own hash tag `{person:<id>}`: on a Redis Cluster a person is one
# slot, as a game is, and no game's script ever touches them (nor they a game's).
PEOPLE = f"{PREFIX}:people"  # sorted set: person id -> creation time (ms)
PEOPLE_BY_EMAIL = f"{PREFIX}:people:by-email"  # hash: SHA-256 of a lowercased address -> person id


def person(person_id: str) -> str:
    """Hash: a person's data (name, email, tz, created) and their token's SHA-256 and nonce:
    mutable, erasable, never copied into a log."""
    return f"{PREFIX}:{{person:{person_id}}}:person"


def person_seats(person_id: str) -> str:
    """Sorted set: `<game id>/<seat>` -> time (ms) seated: every seat a person holds, an index
    across games like events/index.py's (a superset: each entry is checked against the game's
    seat_people before it is believed)."""
    return f"{PREFIX}:{{person:{person_id}}}:seats"


def console_session(digest: str) -> str:
    """String with a TTL: one signed-in session of the operator's console (pbm/web/console_session.py),
    by the SHA-256 of its id; its value is the session's CSRF token. Gone at sign-out or expiry."""
    return f"{PREFIX}:console:session:{digest}"


def web_secret() -> str:
    """String: the web front end's key for signing its forms (CSRF tokens), shared by replicas."""
    return f"{PREFIX}:web-secret"


def entry_id(seq: int) -> str:
    return f"{seq}-1"


def seq_of(entry: bytes | str) -> int:
    text = entry.decode() if isinstance(entry, bytes) else entry
    return int(text.split("-", 1)[0])


def summary(game_id: str) -> str:
    """String: the finished game's summary as JSON (workers.analytics writes it from the log)."""
    return f"{PREFIX}:{{{game_id}}}:summary"


def summaries(slug: str) -> str:
    """Sorted set: game id -> end time (ms) of every summarized game of one game type."""
    return f"{PREFIX}:summaries:{slug}"


RECOVERY_LOCK = f"{PREFIX}:recovery-lock"  # String with a TTL: a worker is running the periodic recovery
