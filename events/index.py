"""The index across games: which games are running, over, played by a bot, or owed a summary. It
names candidates only; each game's row (events.store, written with its events) says what is true.

On a Redis Cluster these sorted sets live in other slots than any game, so no game's script can
update them. Every change is ordered so that a crash leaves a set naming too many games, never too
few: an entry is added before the game's own script runs and removed only after it. Readers check
each entry against the game's row and drop the ones that no longer hold (`pbm reindex` rebuilds
everything from the logs, which stay the truth).
"""

from __future__ import annotations

from collections.abc import Iterable

import redis

from events import keys

WHICH = {None: keys.GAMES, "running": keys.RUNNING, "finished": keys.FINISHED}


def listed(client: redis.Redis, game_id: str, created_ms: int, bots: bool, running: bool = True, clocked: bool = False) -> None:
    """Before a game's log is created: in the list, running (unless it is a log kept only to be
    read), with a bot seat among the bot games, with a deadline among the clocked games."""
    pipe = client.pipeline(transaction=False)
    pipe.zadd(keys.GAMES, {game_id: created_ms}, nx=True)
    if running:
        pipe.zadd(keys.RUNNING, {game_id: created_ms}, nx=True)
    if bots and running:
        pipe.zadd(keys.BOT_GAMES, {game_id: created_ms}, nx=True)
    if clocked and running:
        pipe.zadd(keys.CLOCKED_GAMES, {game_id: created_ms}, nx=True)
    pipe.execute()


def ending(client: redis.Redis, game_id: str, time_ms: int) -> None:
    """Before the append that ends a game: over, and owed a summary (a conflict leaves the entries
    for a game still running, which readers skip until it really ends)."""
    pipe = client.pipeline(transaction=False)
    pipe.zadd(keys.FINISHED, {game_id: time_ms}, nx=True)
    pipe.zadd(keys.UNSUMMARIZED, {game_id: time_ms}, nx=True)
    pipe.execute()


def ended(client: redis.Redis, game_ids: Iterable[str]) -> None:
    """After a game's end is in its log: no longer running, nor waiting on a bot or a deadline."""
    game_ids = list(game_ids)
    if game_ids:
        pipe = client.pipeline(transaction=False)
        pipe.zrem(keys.RUNNING, *game_ids)
        pipe.zrem(keys.BOT_GAMES, *game_ids)
        pipe.zrem(keys.CLOCKED_GAMES, *game_ids)
        pipe.execute()


def unclocked(client: redis.Redis, game_id: str) -> None:
    """After the deal of a game without a clock that waited for salts: no deadline is left in it."""
    client.zrem(keys.CLOCKED_GAMES, game_id)


def summarized(client: redis.Redis, game_ids: Iterable[str]) -> None:
    """After a game's summary is written."""
    game_ids = list(game_ids)
    if game_ids:
        client.zrem(keys.UNSUMMARIZED, *game_ids)


def members(client: redis.Redis, key: str) -> list[str]:
    """The game ids a set names, in the order of their scores (creation or end time)."""
    return [raw.decode() for raw in client.zrange(key, 0, -1)]


def place(client: redis.Redis, game_id: str, created_ms: int, end_ms: int | None, bots: bool, summarized_too: bool, clocked: bool = False) -> None:
    """Put one game where its folded log says it belongs (pbm reindex)."""
    pipe = client.pipeline(transaction=False)
    pipe.zadd(keys.GAMES, {game_id: created_ms})
    if end_ms is None:
        pipe.zadd(keys.RUNNING, {game_id: created_ms})
        pipe.zrem(keys.FINISHED, game_id)
        pipe.zrem(keys.UNSUMMARIZED, game_id)
        (pipe.zadd(keys.BOT_GAMES, {game_id: created_ms}) if bots else pipe.zrem(keys.BOT_GAMES, game_id))
        (pipe.zadd(keys.CLOCKED_GAMES, {game_id: created_ms}) if clocked else pipe.zrem(keys.CLOCKED_GAMES, game_id))
    else:
        pipe.zrem(keys.RUNNING, game_id)
        pipe.zrem(keys.BOT_GAMES, game_id)
        pipe.zrem(keys.CLOCKED_GAMES, game_id)
        pipe.zadd(keys.FINISHED, {game_id: end_ms})
        (pipe.zrem(keys.UNSUMMARIZED, game_id) if summarized_too else pipe.zadd(keys.UNSUMMARIZED, {game_id: end_ms}))
    pipe.execute()


ALL = (keys.GAMES, keys.RUNNING, keys.FINISHED, keys.BOT_GAMES, keys.UNSUMMARIZED, keys.CLOCKED_GAMES, keys.DISPUTED)


def forget_unlogged(client: redis.Redis, logged: set[str], before_ms: int) -> list[str]:
    """Drop the entries (scored before `before_ms`) of games that have no log: left by a create
    that crashed before its script ran."""
    gone = sorted({
        raw.decode() for key in ALL for raw in client.zrangebyscore(key, "-inf", before_ms)
    } - logged)
    forget(client, gone)
    return gone


def forget(client: redis.Redis, game_ids: Iterable[str]) -> None:
    """Off every set: games that have no log."""
    game_ids = list(game_ids)
    if game_ids:
        pipe = client.pipeline(transaction=False)
        for key in ALL:
            pipe.zrem(key, *game_ids)
        pipe.execute()
