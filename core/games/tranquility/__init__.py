"""Tranquility (James Emmerson): a cooperative card game for 1-5 players. Fill the 6x6 sea with
Islands in ascending order, play a Start and then a Finish card: everyone wins or everyone loses.

Rules: the seed rulebook (004_69b602372d6b0b5b.txt, Czech) with the precisions of
pbm/rules/tranquility.md. Notation: cards `1`..`80`, `start`, `finish`; cells `a1`..`f6` (column a-f
left to right, row 1-6 bottom to top; the sequence runs a1..f1, a2..f2, ..., f6). Moves:
`play <n> <cell>` (+ ` discard <card> ...` when it costs cards, e.g. `play 23 c2 discard 5 17`),
`play start`, `play finish`, `discard <card> <card>`, and during a Start's discard
`discard [<card> ...]` (0 or more cards). Cards in a move: numbers ascending, then start, finish.

House decisions, each in one named place in rules.py:
- pile_sizes: the 85 cards (81 with Galateia) are split as evenly as possible, lower seats taking
  the extra cards; every player shuffles one Start into their own pile; the other Starts leave
  the game. An exact deal must have these pile sizes.
- GALATEIA_SET_ASIDE: option `galateia` removes 4 random Islands, face down, before the deal.
- FIRST_SEAT: seat 0 starts, then clockwise. HAND_SIZE 5: everyone draws back to five after
  each turn from their own pile; an empty pile means playing on with fewer cards.
- The Start's discard of START_DISCARD (8), for asynchronous play (no negotiation in the engine):
  clockwise from the Start's player (who takes part with the cards left, without drawing first),
  each discards 0 or more cards, never more than still owed (FIRST_CIRCLE_MINIMUM), at least one
  from the second circle on (LATER_CIRCLE_MINIMUM); empty hands are skipped, their turn counted;
  circles count from the Start's player straight through any refill. If every hand is empty
  while cards are owed, everyone draws back to five and no circle is a first circle again; if
  that brings no card at all, everyone loses (LossReason.NO_CARDS). When all 8 are discarded,
  everyone draws back to five (from the Start's player on) and seat_after_start plays next.
- Dead Starts (once one is in the frame) and Finish cards count as ordinary cards for paying a
  placement's cost and for discards.
- A Finish card can be played only on a full grid with a Start in the frame; then it is the only
  legal move of the player to act, and everyone loses if that player holds none (NO_FINISH).
- Everyone loses as soon as the player to act can neither play a card nor discard two (STUCK).
- No communication: views show only the seat's own hand, the grid, the frame, and the sizes of
  piles, hands, discards and the set-aside. Discards are face down for everyone (turn reports
  remind a seat of its own discards' faces); determinize keeps a seat's own discards, as it
  remembers them.
- Outcome: every seat scores the number of filled grid cells; all seats win or none.

The view (besides the Table's keys): hand, grid (cell -> number, filled cells only), filled,
frame ({start, finish}), piles, hands, discarded (sizes by seat), set_aside (count),
start_discard (null, or {starter, owed, circle, at_least}), result (null, "won", "lost: <reason>").
"""

from core.contract import game_from_rules
from core.games.tranquility import conditions, moves, rules
from core.games.tranquility.events import EVENT_TYPES

GAME = game_from_rules(
    rules,
    conditions=conditions,
    moves=moves,
    slug="tranquility",
    title="Tranquility",
    min_players=1,
    max_players=5,
    rules_version=1,
    options={"galateia": False},
    cooperative=True,
    option_help={"galateia": "the rulebook's Galateia variant: 4 random Islands leave the game, unseen, before the deal"},
    event_types=EVENT_TYPES,
    description="Cooperative and silent: fill the sea with Islands in ascending order, then sail from Start to Finish.",
)
