"""Holiday! (Sid Sackson, 1973): bid to charter the plane, fly around the world, see sights on their
best day. 2-8 players. Rules: the seed rulebook 001_fff7a1ed9e8e2c3a.txt and pbm/rules/holiday-board.md.

House decisions (each in one named place):
- The board (board data, `holiday-board.json`): the links among the eleven cities after Lima in the
  connection chart (the chart is cut off; listed under `house_links`), the 64 cards (3 sights a
  city, 4 for Rome) and their best days. Option `board` replaces the whole board with another
  board's JSON text (format: board.py's docstring).
- Money and cards (rules.py: STARTING_MONEY, HAND_SIZE_BY_PLAYERS / DEFAULT_HAND_SIZE, BID_STEP):
  $10,000 each; 10 cards with 2-6 players, 9 with 7, 8 with 8; undealt cards are out of the game.
- The auction, played by turns (rules.py: FIRST_OPENER, next_bidder, check_bid, auction_result):
  the first auction starts with seat 0, each later one with the seat after the previous charterer;
  in turn a player bids (a multiple of $100 above the high bid) or passes, and a pass leaves the
  auction; players without money are skipped; a bid may exceed the bidder's money; the highest
  legal bid is all players' money when the auction opened. The auction ends when all others have
  passed after a bid (a bid at the cap still waits for the others' passes). A winner who cannot
  pay forfeits all their money and a new auction opens with the same seat, passers taking part
  again. An auction in which nobody bids (or nobody has money) ends the game.
- Open destinations (option `open_destinations`): `bid <dollars> to <city>` names a city the winner
  could fly to; if that bid wins and is paid, the plane flies there at once (no `fly` move); a
  forfeit lapses it. Without the option a bid naming a city is refused.
- The week (rules.py: DIE_SIDES, next_automatic): the die is rolled once, after the first flight's
  plane has moved (the rulebook's order), 1 = Monday ... 6 = Saturday; a deal may fix it. The day
  advances after every city, also one where nobody holds a card, and after the last one.
- Sightseeing (rules.py: next_sightseer, sight_points): from the charterer clockwise, one card per
  player per visit, or `skip`; a player holding no card of the city is skipped automatically (the
  skip is an event, narrated). Points 7000 - 1000 x ((today - best day) mod 7).
- The end: after the sightseeing of the city in which someone used their last card (after that
  city's day advance), or when nobody bids; score = points + dollars; equal highest all win.
- Views: money, points, the cards used (face up), the plane's city, the day and the auction are
  public; a seat sees its own hand, of the others only the counts. Determinize deals the other
  hands from all cards not seen by that seat (the undealt ones included), uniformly: it does not
  use what the automatic skips have revealed.
- View keys: hand (own cards), hand_sizes, money, points, seen (cards used, per seat), city, day,
  phase (bidding / flying / sightseeing / over), charterer, next_opener, auction (opener, cap,
  high_bid, high_bidder, destination, passed), destinations (where the next flight may go),
  open_destinations, ended (null, "last_card" or "no_bid").
- legal_moves lists every bid from the lowest up to the cap in $100 steps (up to 800 with 8
  players; with open destinations each amount also with each reachable city, up to ~17,600).
"""

from core.contract import game_from_rules
from core.games.holiday_board import conditions, moves, rules
from core.games.holiday_board.events import EVENT_TYPES

GAME = game_from_rules(
    rules,
    conditions=conditions,
    moves=moves,
    slug="holiday-board",
    title="Holiday!",
    min_players=2,
    max_players=8,
    rules_version=1,
    options=rules.OPTIONS,
    option_help={
        "board": "another board: the JSON text of a board file (board=@FILE reads it); empty = the shipped board",
        "open_destinations": "the rulebook's variation: a bid may name the city its bidder will fly to, binding if it wins",
    },
    event_types=EVENT_TYPES,
    description="Sid Sackson's Holiday!: bid to charter the plane and see the sights on their best day.",
)
