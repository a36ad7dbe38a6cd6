"""`pbm games`, `new`, `show`, `play`, `log` and `demo`: a game's life at the terminal. This
module only parses, calls the command path (events.commands) and renders (pbm.view_text); it
writes nothing itself.
"""

from __future__ import annotations

import random
from typing import Any

import click
from rich.table import Table as RichTable

import core
from core import bounds
from pbm.cli import PathParam, console, emit_json, open_games, say
from pbm.rules import option_text
from pbm.rules import options as options_of
from pbm import turn_report
from pbm.names import Names
from pbm.result import result_lines, result_text
from pbm.view_text import moves_lines, names_text, view_lines
from workers.analytics import players_text
from workers.bots import bot_seats, parse_seats


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def games(as_json: bool) -> None:
    """List the games pbm can play, with their options (pbm rules GAME for the rules)."""
    rows = [
        {
            "slug": g.slug,
            "title": g.title,
            "players": [g.min_players, g.max_players],
            "description": g.description,
            "options": dict(g.options),
            "option_help": dict(g.option_help),
            "rules_version": g.rules_version,
        }
        for g in core.GAMES.values()
    ]
    if as_json:
        return emit_json(rows)
    table = RichTable("game", "title", "players", "", box=None)
    for row in rows:
        table.add_row(row["slug"], row["title"], "{}-{}".format(*row["players"]), row["description"])
    console.print(table, highlight=False)
    console.print("\n[bold]options[/] (pbm new GAME --option NAME=VALUE):", highlight=False)
    for g in core.GAMES.values():
        for option in options_of(g):
            console.print(f"  {g.slug}: {option_text(option)}", highlight=False, markup=False)
    console.print("rules, notation and example moves: [bold]pbm rules GAME[/]", highlight=False)


def parse_options(game: core.Game, pairs: tuple[str, ...]) -> dict[str, Any]:
    """NAME=VALUE pairs, typed by the option's default; a text value `@FILE` is read from FILE."""
    chosen: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep:
            raise core.SetupError(f"--option takes NAME=VALUE, not {pair!r}")
        default = game.options.get(name)
        if default is None:
            known = ", ".join(game.options) or "none"
            raise core.SetupError(f"{game.slug} has no option {name!r} (options: {known})")
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                raise core.SetupError(f"option {name} is true or false, not {text!r}")
            chosen[name] = text.lower() in ("true", "yes", "1", "on")
        elif isinstance(default, int):
            chosen[name] = bounds.parse_int(text, f"option {name}")
        else:
            chosen[name] = read_text(text[1:], f"option {name}") if text.startswith("@") else text
    return chosen


def read_file(path: str, what: str) -> bytes:
    """A file's bytes, up to one byte past the size limit (so bounds can refuse it)."""
    try:
        with open(path, "rb") as file:
            return file.read(bounds.MAX_DOCUMENT_BYTES + 1)
    except OSError as error:
        raise core.SetupError(f"{what}: cannot read {path}: {error.strerror}") from None


def read_text(path: str, what: str) -> str:
    return bounds.text_of(read_file(path, what), f"{what}: {path}")


def read_deal(path: str) -> dict[str, Any]:
    deal = bounds.parse_json(read_file(path, "--deal"), f"--deal {path}")
    if not isinstance(deal, dict):
        raise core.SetupError(f"--deal {path}: a deal is a JSON object")
    return deal


@click.command()
@click.argument("game")
@click.option("--players", "-p", type=int, required=True, help="How many seats.")
@click.option("--seed", type=click.IntRange(0, 2**256 - 1), help="Fix the secret seed (tests, puzzles).")
@click.option("--deal", "deal_file", type=PathParam(dir_okay=False), help="JSON file with an exact deal.")
@click.option("--option", "-o", "option_pairs", multiple=True, metavar="NAME=VALUE", help="A game option.")
@click.option("--bot", "bot_pairs", multiple=True, metavar="SEAT=KIND", help="A seat a bot plays: random, heuristic, ismcts[:ITERATIONS|:SECONDSs].")
@click.option("--salt", "salts", multiple=True, metavar="TEXT", help="A player's salt, mixed with the seed into every deal.")
@click.option("--salts", "late_salts", is_flag=True, help="The opening deal waits for a salt from each person's seat (`pbm salt`), given after the seed's commitment.")
@click.option("--deadline", metavar="DURATION", help="Each move's time: 5s, 90m, 48h, 2d (default: no clock). `pbm worker` acts on it.")
@click.option("--reminders", metavar="DURATIONS", default="", help="Reminders before the deadline, e.g. 24h,2h.")
@click.option("--vacation-days", type=int, default=0, show_default=True, help="Days a seat may stop its clock each year.")
@click.option("--autopilot-after", type=int, default=3, show_default=True, help="Timeouts in a row before the autopilot plays the seat until its player moves (0: never).")
@click.option("--forced-moves", type=click.Choice(["auto", "ask"]), default="auto", show_default=True, help="A person's only legal move: played for them, or left to them (docs/orders.md).")
@click.option("--open", "open_seats", multiple=True, type=int, metavar="SEAT", help="A seat nobody holds yet: prints the game's join link; its clock starts when every open seat is taken.")
@click.option("--url", "base_url", metavar="URL", help="The server's public address, for the join link (default: PBM_PUBLIC_URL).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def new(
    game: str,
    players: int,
    seed: int | None,
    deal_file: str | None,
    option_pairs: tuple[str, ...],
    bot_pairs: tuple[str, ...],
    salts: tuple[str, ...],
    late_salts: bool,
    deadline: str | None,
    reminders: str,
    vacation_days: int,
    autopilot_after: int,
    forced_moves: str,
    open_seats: tuple[int, ...],
    base_url: str | None,
    as_json: bool,
) -> None:
    """Start a game; prints its id. Bot seats (and deadlines) are played by `pbm worker`."""
    spec = core.get_game(game)
    options = parse_options(spec, option_pairs)
    deal = read_deal(deal_file) if deal_file else None
    bots = parse_seats(bot_pairs, players)
    clock = None
    if deadline is not None:
        from events.clock import settings

        clock = settings(deadline, reminders, vacation_days, autopilot_after)
    elif reminders or vacation_days:
        raise core.SetupError("--reminders and --vacation-days need a --deadline")
    from pbm import joining

    joining.check_open(players, list(open_seats), bots)
    games_ = open_games()
    salt_seats = [seat for seat in range(players) if seat not in bots] if late_salts else []
    game_id = games_.create(game, players, seed=seed, deal=deal, options=options, bots=bots, salts=salts, clock=clock, forced_moves=forced_moves, paused=bool(open_seats), salt_seats=salt_seats)
    join_url = None
    if open_seats:
        from events.joining import Joins

        join_url = joining.link(base_url, joining.open_up(games_, Joins(games_.store.redis), game_id, list(open_seats)))
    no_worker = (bool(bots) or clock is not None) and not workers_running(games_)
    if no_worker:
        warn("no worker is running: " + ("the bots will not move" if bots else "deadlines will pass unnoticed") + " until `pbm worker` runs")
    if as_json:
        clock_json = None if clock is None else {"deadline_s": clock.deadline_s, "reminders_s": list(clock.reminders_s), "vacation_days": clock.vacation_days, "autopilot_after": clock.autopilot_after}
        return emit_json({"game_id": game_id, "game": game, "players": players, "bots": {str(s): k for s, k in bots.items()}, "clock": clock_json, "forced_moves": forced_moves, "workers_running": not no_worker, "join_url": join_url})
    click.echo(game_id)
    if join_url:
        click.echo(f"join link: {join_url}")


def workers_running(games_: Any) -> bool:
    from workers.worker import running_workers  # rq: only for games with bots

    return running_workers(games_.dispatch.connection) > 0  # rq's Redis, where workers register


def warn(message: str) -> None:
    from pbm.cli import errors

    errors.print(f"warning: {message}", highlight=False, markup=False, soft_wrap=True)


ALL_MOVES = click.option("--all", "all_moves", is_flag=True, help="Every legal move, not a summary.")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--as", "seat", type=int, help="Whose view (default: a spectator's).")
@ALL_MOVES
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (every legal move).")
def show(game_id: str, seat: int | None, all_moves: bool, as_json: bool) -> None:
    """Show a game as a seat sees it: the state, whose turn it is, the legal moves."""
    games_ = open_games()
    table = games_.table(game_id)
    view = table.view(seat)
    if as_json:
        return emit_json(view)
    say(*view_lines(view, game_id, bot_seats(table.events), all_moves, name=names_of(games_, game_id, table, seat), options=dict(table.started.options)))


def names_of(games_: Any, game_id: str, table: core.Table, viewer: int | None) -> Names:
    """How `viewer` reads the seats: their names from the seat store (pbm.names)."""
    from events.seats import Seats
    from pbm import seating  # here: it loads the command path, which `pbm games` does without

    return seating.names(Seats(games_.store.redis), game_id, table, viewer)


HELP_MOVES = ("help", "?")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("move")
@click.option("--as", "seat", type=int, required=True, help="The seat you play.")
@click.option("--command-id", help="Makes a retried command safe: the same id never plays twice.")
@click.option("--expect-seq", type=int, metavar="N", help="Refuse the move if the game moved on from the view you saw (its seq N).")
@click.option("--force", is_flag=True, help="Play a seat a bot plays.")
@ALL_MOVES
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def play(game_id: str, move: str, seat: int, command_id: str | None, expect_seq: int | None, force: bool, all_moves: bool, as_json: bool) -> None:
    """Play MOVE for a seat, e.g. pbm play GAME --as 1 "play 7Su" (MOVE `help` or `?` lists the moves)."""
    games_ = open_games()
    table = games_.table(game_id)
    table.check_seat(seat)
    if move.strip().lower() in HELP_MOVES:
        return show_moves(table, seat, all_moves or as_json, as_json)
    kind = bot_seats(table.events).get(seat)
    if kind is not None and not force:
        raise core.IllegalMove(f"seat {seat} is played by a bot ({kind}): --force plays it yourself")
    submitted = games_.submit(game_id, seat, move, command_id=command_id, expected_seq=expect_seq)
    table = games_.table(game_id)
    story = [(seq, line) for seq, line in table.narrate(seat, start=submitted.seq) if seq < submitted.seq + len(submitted.events)]
    view = table.view(seat)
    if as_json:  # a machine's form: the story as core tells it, seats by number
        events = [{"seq": seq, "text": text} for seq, text in story]
        return emit_json({"seq": submitted.seq, "duplicate": submitted.duplicate, "events": events, "view": view})
    name = names_of(games_, game_id, table, seat)
    if submitted.duplicate:
        say("(already played: this command was recorded before, nothing new was written)")
    say(*(f"{seq:>4} {name.text(line)}" for seq, line in story))
    if view["outcome"] is not None:
        first, *ranking = result_lines(view["game"], view["outcome"], view.get("loss") and name.text(view["loss"]), name)
        say(f"game over: {first}", *(f"  {line}" for line in ranking))
    elif seat in view["to_act"]:
        say("Your turn again.", *moves_lines(view, all_moves))
    else:
        say(f"now waiting for {names_text(view['to_act'], name)}")


def show_moves(table: core.Table, seat: int, all_moves: bool, as_json: bool) -> None:
    """`pbm play G --as S help`: the seat's moves, and where the notation is explained."""
    view = table.view(seat)
    moves = view["legal_moves"]
    if as_json:
        return emit_json({"seat": seat, "to_act": list(table.to_act), "legal_moves": moves})
    if moves:
        say(*moves_lines(view, all_moves))
    else:
        say("the game is over: no seat has a move" if table.outcome is not None else f"seat {seat} has no move now: waiting for {names_text(list(table.to_act), Names(bots=frozenset(table.bots)))}")
    say(f"notation and examples: pbm rules {table.game.slug}")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--as", "seat", type=int, help="Whose turn report (default: a spectator's).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def log(game_id: str, seat: int | None, as_json: bool) -> None:
    """The story of a game so far, as a seat may see it; each event with its seq."""
    games_ = open_games()
    table = games_.table(game_id)
    if seat is not None:
        table.check_seat(seat)
    if as_json:  # a machine's form: seats by number
        return emit_json([{"seq": seq, "text": text} for seq, text in table.narrate(seat)])
    story = turn_report.story(table, seat, names_of(games_, game_id, table, seat))
    say(*(f"{line['seq']:>4} {line['text']}" for line in story))


@click.command()
@click.argument("game", default="holly-oak")
@click.option("--players", "-p", type=int, help="How many seats (default: the game's fewest).")
@click.option("--seed", type=click.IntRange(0, 2**256 - 1), help="Fix the seed (and the players' choices).")
@click.option("--quiet", "-q", is_flag=True, help="Only the result.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output: the game id, its events and outcome.")
def demo(game: str, players: int | None, seed: int | None, quiet: bool, as_json: bool) -> None:
    """Play a whole game between random players, through the real log, and show the result."""
    spec = core.get_game(game)
    players = players or spec.min_players
    games_ = open_games()
    game_id = games_.create(game, players, seed=seed)
    chooser = random.Random(seed)
    table = games_.table(game_id)
    live, shown = not (quiet or as_json), 0
    if live:
        say(f"{spec.title}, {players_text(['random'] * players)}: game {game_id}")
    while True:
        if live:  # each command's events as it is played
            say(*(f"{seq:>4} {line}" for seq, line in table.narrate(None, start=shown)))
        shown = table.seq
        if not table.to_act:
            break
        seat = chooser.choice(table.to_act)
        games_.submit(game_id, seat, chooser.choice(table.legal_moves(seat)))
        table = games_.table(game_id)
    outcome = table.outcome.to_dict()
    if as_json:
        story = [{"seq": seq, "text": text} for seq, text in table.narrate(None)]
        return emit_json({"game_id": game_id, "game": game, "players": players, "outcome": outcome, "events": story})
    if quiet:
        say(f"{spec.title}, {players_text(['random'] * players)}: game {game_id}")
    say(f"game over after {table.seq} events: {result_text(game, outcome, table.view(None).get('loss'))}", f"replay it: pbm log {game_id}")
