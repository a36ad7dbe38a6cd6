"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley and Whitehouse
2012), written once over the game contract. No I/O; it must never read the true hidden cards.

Each iteration deals the cards hidden from the searching seat anew (Game.determinize), walks a
tree shared by all those deals (a node's children are (actor, move text); a child is judged only
among the deals where its move was legal: UCB with availability counts), adds one node, plays the
rest out (mostly the heuristic player's moves, up to the game's horizon, where workers.heuristics
values it) and credits each node with the result for the seat that chose it. Games named in
workers.heuristics.PAIRED_ROOT search the root in rounds instead (`paired_search`). Chance inside
the search (a new deal, a die) draws from the bot's own generator, never the game's seed.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

import attrs

from core.contract import Game
from workers import heuristics

EXPLORATION = 0.7
MAX_ROLLOUT_MOVES = 5_000
WIDENING = 1.5
VISITS_CONFIDENCE = 1.25  # one tree: how many more visits than the heuristic's move the pick needs
CONFIDENCE = 1.0  # paired root: standard errors by which the pick must beat the heuristic's move
GUIDED = 0.8  # share of playout moves the heuristic player makes; the rest are random (default)


@attrs.frozen
class Budget:
    iterations: int | None = None
    seconds: float | None = None


class SearchRng:
    """The rng protocol of core (below, shuffled, roll) over the bot's random.Random: fast, and
    independent of the game's secret seed."""

    __slots__ = ("random",)

    def __init__(self, source: random.Random) -> None:
        self.random = source

    def below(self, n: int) -> int:
        return self.random.randrange(n)

    def shuffled(self, items: Any) -> list:
        out = list(items)
        self.random.shuffle(out)
        return out

    def roll(self, sides: int = 6) -> int:
        return self.random.randrange(sides) + 1


class Node:
    __slots__ = ("children", "visits", "available", "reward")

    def __init__(self) -> None:
        self.children: dict[tuple[int, str], Node] = {}
        self.visits = 0
        self.available = 0
        self.reward = 0.0  # summed over visits, for the seat whose move leads here


def play(game: Game, state: Any, seat: int, move: Any, rng: SearchRng) -> Any:
    for event in game.decide(state, seat, move, rng):
        state = game.evolve(state, event)
    return state


@attrs.frozen
class Knowledge:
    """What the search knows of a game beyond its contract (workers.heuristics)."""

    player: Any  # the heuristic player, or None
    guided: float  # share of playout moves it makes
    horizon: Any  # (start, now) -> bool, or None
    value: Any  # (game, state) -> reward per seat
    candidates: Any  # (view, legal texts) -> the texts worth searching, or None: all
    paired_root: bool  # search the root in rounds of one deal each (paired_search)

    @classmethod
    def of(cls, slug: str) -> Knowledge:
        return cls(
            heuristics.HEURISTICS.get(slug),
            heuristics.GUIDED.get(slug, GUIDED),
            heuristics.horizon_function(slug),
            heuristics.value_function(slug),
            heuristics.CANDIDATES.get(slug),
            slug in heuristics.PAIRED_ROOT,
        )

    def moves(self, game: Game, world: Any, actor: int) -> dict[str, Any]:
        """The actor's moves worth searching (all legal ones unless the game filters them), by text."""
        by_text = {str(move): move for move in game.legal_moves(world, actor)}
        if self.candidates is None or len(by_text) == 1:
            return by_text
        view = {**game.view(world, actor), "seat": actor}
        return {text: by_text[text] for text in self.candidates(view, list(by_text))}


def search(game: Game, state: Any, seat: int, source: random.Random, budget: Budget) -> str:
    """The move text for `seat` (who must be to act)."""
    knows = Knowledge.of(game.slug)
    if knows.paired_root:
        return paired_search(game, state, seat, knows, source, budget)
    return tree_search(game, state, seat, knows, source, budget)


def tree_search(game: Game, state: Any, seat: int, knows: Knowledge, source: random.Random, budget: Budget) -> str:
    """One tree from the root: the most visited move, unless that is not clearly more visited
    than the heuristic's choice."""
    rng = SearchRng(source)
    legal = list(knows.moves(game, state, seat))
    # The heuristic reads the seat's own view of the true state: nothing hidden from it.
    root_favourite = favourite(game, knows.player, state, seat, legal, source) if knows.player else None
    root = Node()
    deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
    done = 0
    while (budget.iterations is None or done < budget.iterations) and (deadline is None or time.monotonic() < deadline):
        done += 1
        world = game.determinize(state, seat, rng)
        world, path = descend(game, root, world, knows, source, rng)
        root.visits += 1
        credit(path, knows.value(game, playout(game, world, knows, source, rng)))
    best = max(
        (child.visits, child.reward, text) for (actor, text), child in root.children.items() if actor == seat
    )
    # With a small budget and many moves (bids of any amount) the most visited child can be a fluke.
    favoured = root.children.get((seat, root_favourite)) if root_favourite is not None else None
    if favoured is not None and best[0] < VISITS_CONFIDENCE * favoured.visits:
        return root_favourite
    return best[2]


def paired_search(game: Game, state: Any, seat: int, knows: Knowledge, source: random.Random, budget: Budget) -> str:
    """The root searched in rounds: each round deals the hidden cards once and tries every root
    move on that same deal with the same chance draws (common random numbers), so two moves are
    compared on the same cards and a lucky deal does not favour whichever move it fell to; below
    the root each move has its own tree. The move with the best mean result, unless it does not
    beat the heuristic's choice clearly (`clearly_better`)."""
    moves = knows.moves(game, state, seat)
    if len(moves) == 1:
        return next(iter(moves))
    # The heuristic reads the seat's own view of the true state: nothing hidden from it.
    favoured = heuristic_choice(game, knows.player, state, seat, source)
    if favoured not in moves:
        favoured = None
    trees = {text: Node() for text in moves}
    results: dict[str, list[float]] = {text: [] for text in moves}
    deadline = None if budget.seconds is None else time.monotonic() + budget.seconds
    dealer = SearchRng(source)
    rounds = 0
    while rounds == 0 or (
        (budget.iterations is None or (rounds + 1) * len(moves) <= budget.iterations)
        and (deadline is None or time.monotonic() < deadline)
    ):
        rounds += 1
        world = game.determinize(state, seat, dealer)
        twin_seed = source.getrandbits(64)
        for text, move in moves.items():
            twin = random.Random(twin_seed)  # the same draws for every root move of this round
            rng = SearchRng(twin)
            reached, path = descend(game, trees[text], play(game, world, seat, move, rng), knows, twin, rng)
            trees[text].visits += 1
            results[text].append(credit(path, knows.value(game, playout(game, reached, knows, twin, rng)))[seat])
    best = max(results, key=lambda text: (statistics.fmean(results[text]), text))
    if favoured is None or best == favoured or clearly_better(results[best], results[favoured]):
        return best
    return favoured


def credit(path: list, rewards: Any) -> Any:
    """Backpropagation: each node on the path gains a visit and the reward of the seat that chose it."""
    for visited, actor in path:
        visited.visits += 1
        visited.reward += rewards[actor]
    return rewards


def clearly_better(these: list[float], those: list[float]) -> bool:
    """Whether results paired deal by deal say `these` beat `those` by more than CONFIDENCE
    standard errors of the mean difference (one round: never)."""
    if len(these) < 2:
        return False
    differences = [a - b for a, b in zip(these, those)]
    spread = statistics.stdev(differences) / math.sqrt(len(differences))
    return statistics.fmean(differences) > CONFIDENCE * spread


def descend(game: Game, node: Node, world: Any, knows: Knowledge, source: random.Random, rng: SearchRng) -> tuple[Any, list]:
    """Selection and expansion: down the tree by UCB among the moves legal in this deal, until a
    node may grow a child (progressive widening: a node with many moves grows slowly, the
    heuristic's favourite first, so visits are not spread thin); returns the world reached and the
    (node, actor) path."""
    path = []
    while True:
        acting = game.to_act(world)
        if not acting:
            return world, path
        actor = acting[0]
        moves = knows.moves(game, world, actor)
        untried = []
        for text in moves:
            child = node.children.get((actor, text))
            if child is None:
                untried.append(text)
            else:
                child.available += 1
        if untried and len(moves) - len(untried) < widening(node.visits):
            text = favourite(game, knows.player, world, actor, untried, source)
            child = node.children[(actor, text)] = Node()
            child.available = 1
            path.append((child, actor))
            return play(game, world, actor, moves[text], rng), path
        text, node = max(
            ((t, node.children[(actor, t)]) for t in moves if (actor, t) in node.children),
            key=lambda pair: ucb(pair[1]),
        )
        world = play(game, world, actor, moves[text], rng)
        path.append((node, actor))


def playout(game: Game, world: Any, knows: Knowledge, source: random.Random, rng: SearchRng) -> Any:
    """To the end (or the game's horizon): mostly the heuristic's moves, from each seat's own view
    of this deal; the rest at random among the game's candidate moves."""
    start = world
    for _ in range(MAX_ROLLOUT_MOVES):
        acting = game.to_act(world)
        if not acting or (knows.horizon is not None and knows.horizon(start, world)):
            break
        actor = acting[0]
        moves = game.legal_moves(world, actor)
        if knows.player is not None and len(moves) > 1 and source.random() < knows.guided:
            by_text = {str(move): move for move in moves}
            view = {**game.view(world, actor), "seat": actor}
            move = by_text[knows.player(view, list(by_text), source)]
        else:
            move = source.choice(list(knows.moves(game, world, actor).values()))  # among the candidates
        world = play(game, world, actor, move, rng)
    return world


def widening(visits: int) -> int:
    """How many children a node visited `visits` times may have."""
    return 2 + int(WIDENING * math.sqrt(visits))


def favourite(game: Game, player: Any, world: Any, actor: int, untried: list[str], source: random.Random) -> str:
    """The move to try next: the heuristic player's choice if it is untried, else a random one."""
    choice = heuristic_choice(game, player, world, actor, source)
    return choice if choice in untried else source.choice(untried)


def heuristic_choice(game: Game, player: Any, world: Any, actor: int, source: random.Random) -> str | None:
    """What the game's heuristic player would play here (None: the game has none)."""
    if player is None:
        return None
    view = {**game.view(world, actor), "seat": actor}
    return player(view, [str(m) for m in game.legal_moves(world, actor)], source)


def ucb(node: Node) -> float:
    return node.reward / node.visits + EXPLORATION * math.sqrt(math.log(node.available) / node.visits)
