"""Holly Oak (Tom Lehmann, Rio Grande Games, 2023): a seasonal trick-taking game for 3-5 players.

Rules: the seed rulebook (003_defc90ab667db91b.txt) with the precisions of pbm/rules/holly-oak.md.
Notation: cards `0Sp`, `7Su`, `10Fa`, `9Wi` and `SR` (Season Retreats); the only move is
`play <card>` (`play 7Su`, `play SR`).

House decisions, each in one named place in rules.py:
- KING_POINTS: the six kings and their points (the printed list was not found): 0Sp 2, 7Sp 1,
  9Su 1, 0Fa 2, 7Fa 1, 9Wi 1. 0Wi is not a king.
- REMOVED_CARDS: with 4 players the 0 Winter goes back to the box (hands 15 / 11 / 9).
- FIRST_LEAD, FIRST_SEASON: every round's first trick is led in Spring by the holder of 1Sp, who
  must lead it.
- The season persists from one trick to the next.
- Season Retreats has no season in hand; played, it moves the season back one step and counts as
  rank 1/2 (RETREAT_STRENGTH, ranks compared doubled) in that season for the rest of the trick,
  even if later cards bring the season round to it again.
- Lead passing: a leader with no current-season card, next-season card or SR passes the lead
  clockwise to the first player who can lead; the players passed over still play to that trick,
  clockwise after the new leader, by the following rules. If nobody can lead, the round ends out
  of season: cards left in hands are set aside, and the round is scored from the tricks won.
- Scoring: kings in tricks won; a player who won no trick scores NO_TRICK_BONUS (8 / 5 / 3).
- End: after a round in which someone has WINNING_SCORE (15 / 13 / 10); most points wins, ties go
  to the most points in the final round, then the win is shared.
- Next round: all cards reshuffled and dealt from the seed in decide, recorded in HandsDealt.

The view (besides the Table's keys): hand, round, season, leader, trick (seat, card, season it
counts in), tricks_won, kings_taken, scores, round_points (last round), hand_sizes,
winning_score, no_trick_bonus.
"""

from core.contract import game_from_rules
from core.games.holly_oak import conditions, moves, rules
from core.games.holly_oak.events import EVENT_TYPES

GAME = game_from_rules(
    rules,
    conditions=conditions,
    moves=moves,
    slug="holly-oak",
    title="Holly Oak",
    min_players=3,
    max_players=5,
    rules_version=1,
    options={},
    event_types=EVENT_TYPES,
    description=(
        "Seasonal trick taking: follow the season or move it on; "
        "take the Oak and Holly kings, or no tricks at all."
    ),
)
