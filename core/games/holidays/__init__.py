"""Holidays, the destination card game (2-4 players): the package `core.GAMES["holidays"]` registers.

Rules: the seed rulebook 000_af023c822be98d67.txt, decisions and notation: pbm/rules/holidays.md.
Pure: no I/O, clock, randomness or logging.

House decisions (each lives in one named place in rules.py):
- 90 travellers: 3 suits x values 3-8 x 5 copies (COPIES_PER_TRAVELLER).
- The first dealer is seat 0, so seat 1 proposes first in hand 1 (FIRST_DEALER).
- A hand with no winner: the player to the left of its first proposer proposes first next
  (next_first_proposer); the refill then starts with that hand's first proposer.
- Discards at set-off are shown to everyone, as the move names them (DISCARDS_SHOWN).
- A discarded pot (no winner) goes to the discard pile unseen: its face-down cards stay hidden
  (rules._cleared).
- A player who can only accept (or only confirm) still sends that move: nothing is automatic
  (rules.legal_moves).
- Reshuffle: when a card must be drawn from an empty draw pile, the whole discard pile is shuffled
  (rng in decide) into the new draw pile, recorded in DrawPileReshuffled; a refill or a pot split
  by it is recorded as two draws.

View (besides the common keys): hand, hand_sizes, win_points, hand_number, phase (propose,
choose, setoff, over), first_proposer, proposer, destination, destinations_played (per seat, in
order), pot_face_down (shown once won), pot_face_down_count, pot_face_up, pot_paid,
holiday_value (face-up card + paid cards), set_off (this hand's plays in order), draw_pile,
discard_pile (sizes), discarded_face_up (the discard pile's seen cards).
"""

from core.contract import game_from_rules
from core.games.holidays import conditions, moves, rules
from core.games.holidays.events import EVENT_TYPES

GAME = game_from_rules(
    rules,
    conditions=conditions,
    moves=moves,
    slug="holidays",
    title="Holidays",
    min_players=2,
    max_players=4,
    rules_version=1,
    options={},
    event_types=EVENT_TYPES,
    description="Propose holidays, raise the pot by changing destination, then set off with the best party.",
)
