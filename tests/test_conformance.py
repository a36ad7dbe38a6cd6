"""The conformance suite: every game in core.GAMES, every player count, the same properties.

Random legal playouts (choices drawn from a hypothesis-chosen chooser seed) end with an outcome;
along the way moves outside legal_moves are refused with nothing changed, move texts are
canonical, and a seat's view does not change when the cards hidden from it are dealt anew. At the
end the replay equals the live table and every event round-trips through the codec byte for byte.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import core
from core.rng import Rng, seed_hex
from core.contract import LIFECYCLE_EVENTS
from core.table import MARK_EVERY, Table, apply, fold
from events import codec, envelope

EXAMPLES = int(os.environ.get("PBM_CONFORMANCE_EXAMPLES", "25"))
MAX_STEPS = 20_000
SEEDS = st.integers(min_value=0, max_value=2**256 - 1)
GAME_COUNTS = [
    pytest.param(slug, n, id=f"{slug}-{n}p")
    for slug, game in sorted(core.GAMES.items())
    for n in range(game.min_players, game.max_players + 1)
]
playout_settings = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def garbled(text: str, pick: Rng) -> list[str]:
    """Texts near a legal one: most are malformed, some are other real moves."""
    words = text.split()
    return [
        text + " x",
        text[:-1],
        " ".join(reversed(words)),
        words[0],
        words[0] + " " + "9" * (1 + pick.below(4)),
        "",
        "\x00" + text,
    ]


def assert_refused(table: Table, seat: int, text: str) -> None:
    before_state, before_seq = table.state, table.seq
    with pytest.raises(core.IllegalMove) as refusal:
        table.play(seat, text)
    message = str(refusal.value)
    assert message and "\n" not in message and "Traceback" not in message
    assert table.state is before_state and table.seq == before_seq


def is_legal(table: Table, seat: int, text: str, legal: list[str]) -> bool:
    if seat not in table.to_act:
        return False
    try:
        return str(table.game.parse_move(text)) in legal
    except core.IllegalMove:
        return False


def check_refusals(table: Table, seat: int, legal: list[str], pick: Rng) -> None:
    others = [m for s in range(table.players) if s != seat for m in table.legal_moves(s)]
    candidates = garbled(legal[pick.below(len(legal))], pick) + others[:5]
    for text in candidates:
        if not is_legal(table, seat, text, legal):
            assert_refused(table, seat, text)
    idle = [s for s in range(table.players) if s not in table.to_act]
    for other in idle[:2]:
        assert_refused(table, other, legal[0])
    assert_refused(table, table.players, legal[0])


def check_canonical(table: Table, legal: list[str]) -> None:
    assert len(set(legal)) == len(legal), "legal_moves lists a move twice"
    parse = table.game.parse_move
    for text in legal:
        assert str(parse(text)) == text
        assert str(parse("  " + text.upper().replace(" ", "   ") + " ")) == text


def check_views_hide(table: Table, pick: Rng) -> bool:
    """Every seat's view survives a redeal of what it cannot see; True if any redeal changed state."""
    changed = False
    for seat in [None, *range(table.players)]:
        view = table.view(seat)
        json.dumps(view)
        if seat is None:
            continue
        redealt = table.game.determinize(table.state, seat, Rng(pick.below(2**32), seat))
        changed |= redealt != table.state
        twin = Table(table.game, list(table.events), redealt, table.seed)
        assert twin.view(seat) == view, f"seat {seat}'s view shows cards hidden from it"
    return changed


def check_codec(table: Table) -> None:
    prev = envelope.GENESIS
    for seq, event in enumerate(table.events):
        raw = codec.encode_event(event)
        assert codec.decode_event(raw) == event
        assert codec.encode_event(codec.decode_event(raw)) == raw
        sealed, wire = envelope.sealed("g", seq, event, prev, actor=seq % 3 or None, command="x" if seq % 2 else None,
                                       command_id=None, time_ms=seq * 1_000_003)
        again = envelope.decode(wire)
        # The wire form the writer builds from the hashed body is the one encode() packs.
        assert wire == sealed.encode() and sealed.hash == sealed.expected_hash()
        assert again == sealed and again.encode() == wire and again.event == event
        prev = sealed.hash


@pytest.mark.parametrize(("slug", "players"), GAME_COUNTS)
@playout_settings
@given(seed=SEEDS, chooser=st.integers(min_value=0, max_value=2**64))
def test_random_playout(slug: str, players: int, seed: int, chooser: int) -> None:
    table = core.new_table(slug, players=players, seed=seed)
    pick = Rng(chooser, 0)
    hidden_somewhere = check_views_hide(table, pick)
    for _ in range(MAX_STEPS):
        if not table.to_act:
            break
        seat = table.to_act[pick.below(len(table.to_act))]
        legal = table.legal_moves(seat)
        assert legal, f"seat {seat} must act but has no legal move"
        if pick.below(6) == 0:
            check_canonical(table, legal)
            check_refusals(table, seat, legal, pick)
            hidden_somewhere |= check_views_hide(table, pick)
        table.play(seat, legal[pick.below(len(legal))])
    else:
        pytest.fail(f"no outcome after {MAX_STEPS} moves")

    assert table.outcome is not None
    assert set(table.outcome.winners) <= set(range(players)) and len(table.outcome.scores) == players
    assert table.events[-1] == core.SeedRevealed(seed_hex(seed))
    assert hidden_somewhere, "determinize never changed anything: the hiding test proved nothing"
    check_views_hide(table, pick)
    check_codec(table)
    check_fold(table, pick)
    # Rebuilt from the stored bytes, the table must be the same to every reader, not merely equal
    # as objects (a str where an enum was compares equal but breaks a view).
    stored = [codec.decode_event(codec.encode_event(event)) for event in table.events]
    replayed = core.replay_table(slug, stored)
    assert replayed.state == table.state and replayed.events == table.events
    for seat in [None, *range(players)]:
        assert replayed.view(seat) == table.view(seat)
        assert replayed.narrate(seat) == table.narrate(seat)
    check_narration_from_marks(table, replayed, pick)


def check_narration_from_marks(table: Table, replayed: Table, pick: Rng) -> None:
    """Narrated from a recent seq, a table folds from the latest state it marked at or before it:
    the lines are those of the narration from the start, for a table marked move by move (played)
    and one marked in a single long fold (replayed), and for a copy of each."""
    for seat in [None, *range(table.players)]:
        whole = table.narrate(seat)
        starts = {len(whole) - 1, len(whole) - 1 - pick.below(min(len(whole), 4 * MARK_EVERY)), pick.below(len(whole))}
        for start in starts:
            for reader in (table, replayed, table.copy(), replayed.copy()):
                assert reader.narrate(seat, start) == whole[start:], f"{table.game.slug}: narrated from {start}"


def check_fold(table: Table, pick: Rng) -> None:
    """A game's fold (evolve over many events at once) gives the state evolve gives event by
    event, from any point, in runs of any length, also from a state decoded as a snapshot is."""
    game = table.game
    if game.fold is None:
        return
    states = [None]
    for event in table.events:
        states.append(apply(game, states[-1], event))
    start = 1 + pick.below(len(table.events) - 1)  # after GameStarted: the fold continues a state
    state = states[start]
    if pick.below(2):  # a state read back from a snapshot holds equal, not identical, parts
        state = codec.converter.structure(codec.converter.unstructure(state), type(state))
    seq = start
    while seq < len(table.events):
        end = min(len(table.events), seq + 1 + pick.below(80))
        state = fold(game, state, table.events[seq:end])
        assert state == states[end], f"{game.slug}: the fold of events {seq}..{end - 1} differs from evolve's"
        seq = end


@pytest.mark.parametrize(("slug", "players"), GAME_COUNTS)
def test_same_seed_same_game(slug: str, players: int) -> None:
    def playout(seed: int) -> list:
        table = core.new_table(slug, players=players, seed=seed)
        for _ in range(60):
            if not table.to_act:
                break
            seat = table.to_act[0]
            table.play(seat, table.legal_moves(seat)[-1])
        return table.events

    assert playout(11) == playout(11)
    assert playout(11) != playout(12)


@pytest.mark.parametrize("slug", sorted(core.GAMES))
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40) | st.from_regex(r"[a-z]{2,8}( [a-z0-9@]{1,6}){0,4}", fullmatch=True))
def test_fuzzed_move_texts_never_crash(slug: str, text: str) -> None:
    game = core.GAMES[slug]
    table = core.new_table(slug, players=game.min_players, seed=5)
    seat = table.to_act[0]
    legal = table.legal_moves(seat)
    if not is_legal(table, seat, text, legal):
        assert_refused(table, seat, text)


@pytest.mark.parametrize("slug", sorted(core.GAMES))
def test_setup_errors_are_clear(slug: str) -> None:
    game = core.GAMES[slug]
    for players in (game.min_players - 1, game.max_players + 1):
        with pytest.raises(core.SetupError, match=str(players)):
            core.new_table(slug, players=players, seed=1)
    with pytest.raises(core.SetupError, match="no option"):
        core.new_table(slug, players=game.min_players, seed=1, options={"no-such-option": 1})
    with pytest.raises(core.SetupError):
        core.new_table(slug, players=game.min_players, seed=1, deal={"nonsense": []})


def test_a_forged_event_is_named_by_its_seq_when_the_game_folds_many_at_once() -> None:
    from core.games.holly_oak.events import CardPlayed, Season

    table = core.new_table("holly-oak", players=4, seed=3)
    for _ in range(30):
        seat = table.to_act[0]
        table.play(seat, table.legal_moves(seat)[0])
    events = list(table.events)
    forged = 17
    events[forged] = CardPlayed(seat=9, card="7Su", season=Season.SUMMER)  # no seat 9: evolve trips
    assert table.game.fold is not None
    with pytest.raises(core.BrokenLog) as broken:
        core.replay_table("holly-oak", events)
    assert broken.value.seq == forged
    before = core.replay_table("holly-oak", events[:forged])
    with pytest.raises(core.BrokenLog):
        before.extend(events[forged:])
    assert before.seq == forged and before.state == core.replay_table("holly-oak", events[:forged]).state


def test_a_games_fold_is_given_only_its_own_events() -> None:
    """The lifecycle events between a game's own are the table's (`apply` has them): a game's
    fold never sees one, and the runs around them fold to the state evolve gives."""
    import attrs

    from core.table import replay_table

    table = core.new_table("holly-oak", players=4, seed=8)
    for _ in range(25):
        seat = table.to_act[0]
        table.play(seat, table.legal_moves(seat)[0])
    events = list(table.events)
    events[12:12] = [core.BotsSeated(bots=((1, "random"),))]
    given = []

    def recording_fold(state, run):
        given.extend(run)
        return table.game.fold(state, run)

    replayed = replay_table(attrs.evolve(table.game, fold=recording_fold), events)
    assert given and not any(isinstance(event, LIFECYCLE_EVENTS) for event in given)
    assert len(given) == len(events) - sum(isinstance(event, LIFECYCLE_EVENTS) for event in events)
    assert replayed.state == table.state and replayed.bots == {1: "random"}
