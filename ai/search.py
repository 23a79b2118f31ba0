"""Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012) for any engine game.

One tree per decision, seen from the searching seat. Each iteration samples a
determinization (a full state consistent with what the seat knows), walks the
tree choosing among the moves legal in *that* sample with UCB1 using
availability counts, samples chance outcomes without making nodes for them,
expands one untried move, finishes with the game's fast playout and
credits each node with the reward of the seat who moved into it, so any
number of players works.

When the game offers a heuristic (`Game.heuristic_move`), a node expands the
heuristic's move first and widens progressively: its k-th move only after
about k²/w visits (w: the game's `search_widening`, 1 by default). Without
it, a node with 30 moves would be judged by 30 mostly random moves before UCB
could prefer any, and a small budget would play worse than the playout policy
it runs on.

Nodes keep statistics only; the sample is stepped in place with the
unchecked `Game.step`.
"""

from __future__ import annotations

import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic

import cython

from engine.core import CHANCE, TERMINAL, Game, M, Move, S, Seat

#: UCB1 exploration constant for rewards in [0, 1] (0.7 as in Cowling et al.).
EXPLORATION = 0.7
#: The search trees `search` builds: "" one tree seen from the searching seat; "others" the same tree,
#: where every other seat also keeps statistics by its own sampled hand and chooses by them; "hands"
#: where every seat does, the searching seat's later choices by the hand its sampled draws gave it.
TREES = ("", "others", "hands")
#: Trees "others" and "hands": a seat's statistics for its own hand weigh as much as the shared ones after this
#: many visits (before it, the shared statistics, which every sampled hand feeds, guide its choice).
HAND_PRIOR = 4.0
#: Read the CPU clock once every this many iterations (a power of two).
CHECK_EVERY = 8


@dataclass
class Progress:
    """How far a running search is: for progress bars and 'thinking…' displays."""

    iterations: int
    elapsed: float  # CPU seconds of the searching thread
    best_move: Move | None  # most visited so far
    best_visits: int


@dataclass
class SearchResult(Generic[M]):
    """What a finished search found: the chosen move and the root statistics behind it."""

    move: M
    iterations: int
    elapsed: float  # CPU seconds of the searching thread (`time.thread_time`)
    visits: dict[M, int] = field(default_factory=dict)   # root move -> visits
    values: dict[M, float] = field(default_factory=dict)  # root move -> mean reward for the seat


@cython.cclass
class _Node:
    """Statistics of one move in the tree: who made it, visits, availability, summed reward."""

    # compiled, a C struct: the walk reads and writes its fields without the interpreter
    player = cython.declare(cython.int, visibility="public")
    visits = cython.declare(cython.longlong, visibility="public")
    avail = cython.declare(cython.longlong, visibility="public")
    reward = cython.declare(cython.double, visibility="public")
    mean = cython.declare(cython.double, visibility="public")
    spread = cython.declare(cython.double, visibility="public")
    children = cython.declare(dict, visibility="public")
    visits_here = cython.declare(cython.longlong, visibility="public")
    by_hand = cython.declare(dict, visibility="public")

    def __init__(self, player: int) -> None:
        self.player = player      # seat who made the move leading here (credited with its reward)
        self.visits = 0
        self.avail = 0            # times this move was legal when its parent was visited
        self.reward = 0.0
        self.mean = 0.0           # reward / visits, kept up to date by backpropagation
        self.spread = 0.0         # exploration / sqrt(visits), likewise: selection only multiplies
        self.children = {}        # move -> _Node
        self.visits_here = 0      # times the search stood at this node to choose a move
        self.by_hand = None       # trees by hand: the mover's private key -> move -> its own _Node


@cython.locals(
    max_iterations=cython.longlong, done=cython.longlong, mask=cython.longlong,
    table_size=cython.longlong, tried=cython.longlong, avail=cython.longlong,
    visits=cython.longlong, first=cython.longlong, second=cython.longlong, player=cython.int,
    c=cython.double, widening=cython.double, value=cython.double, best_value=cython.double,
    reward=cython.double, start=cython.double, now=cython.double, deadline=cython.double,
    next_report=cython.double, root=_Node, node=_Node, child=_Node, best=_Node, path=list,
    children=dict, log_table=list, inverse_root=list, r=cython.ulonglong, own=dict, by_hand=dict,
    mine=_Node, hand_prior=cython.double, unkeyed=cython.int,
)
def search(
    game: Game[S, M],
    state: S,
    seat: Seat,
    rng: random.Random,
    iterations: int = 0,
    seconds: float = 0.0,
    on_progress: Callable[[Progress], None] | None = None,
    progress_every: float = 0.25,
    exploration: float = EXPLORATION,
    stop_early: bool = True,
    exact: bool = False,
    playout_policy: str = "",
    sampling: str = "",
    tree: str = "",
) -> SearchResult[M]:
    """Run ISMCTS from `seat`'s point of view until either cap is reached (0 = no cap): `iterations`
    simulations or `seconds` of the searching thread's CPU time (never wall time, which load stretches).

    With `stop_early`, the search also ends once the most visited root move can
    no longer be overtaken within the iteration cap: the choice is already made. With `exact`, from a
    position the game calls solvable (`Game.solvable`), a new node whose sample it can solve
    (`Game.solved_returns`) takes that value, not a playout. `playout_policy` names the game's
    playout (`Game.search_playout`; "": its default), and `sampling` how the samples deal what `seat`
    cannot see (`Game.search_determinizer`; "": uniformly). `tree` "others" lets every other seat
    choose knowing its own sampled hand (`Game.private_key`), issue 35's multiple-observer tree:
    its statistics for the hand it holds in the sample pull its choice away from the shared ones as
    they gather visits (`HAND_PRIOR`); "hands" does so for the searching seat's later choices too
    (by what it drew in the sample); "" (the default) is the single observer's tree.
    """
    if tree not in TREES:
        raise ValueError(f"unknown search tree {tree!r}; known: {', '.join(map(repr, TREES))}")
    legal = legal_for(game, state, seat)
    if iterations <= 0 and seconds <= 0:
        raise ValueError("a search needs an iteration cap or a time cap")
    max_iterations = iterations if iterations > 0 else sys.maxsize

    # local aliases: attribute lookups are the loop's main overhead besides the game itself
    determinize = game.search_determinizer(state, seat, sampling)
    current_player = game.current_player
    legal_moves = game.legal_moves
    step = game.step
    sample_chance = game.sample_chance
    playout = game.search_playout(playout_policy)
    returns = game.returns
    heuristic = game.heuristic_move if type(game).heuristic_move is not Game.heuristic_move else None
    solved = game.solved_returns if exact and game.solvable(state) else None
    hand_key = (game.private_key if tree and type(game).private_key is not Game.private_key else None)
    unkeyed = seat if tree == "others" else -1  # the seat that chooses by the shared statistics alone
    hand_prior = HAND_PRIOR
    bits = rng.getrandbits  # `bits(32) * k >> 32`: a uniform index below k, cheaper than randrange
    widening = game.search_widening  # with a heuristic: the k-th move after k**2 / widening visits
    log_table = _LOG_TABLE
    inverse_root = _INVERSE_ROOT
    table_size = len(log_table)
    clock = time.thread_time  # CPU time of this thread: a loaded machine does not shorten a search
    new_node = _Node
    c = exploration
    mask = CHECK_EVERY - 1

    root = _Node(-1)
    root_children = root.children.values()
    stop_early = stop_early and max_iterations < sys.maxsize
    start = clock()
    deadline = start + seconds if seconds > 0 else math.inf
    next_report = start + progress_every if on_progress is not None else math.inf
    done = 0
    while done < max_iterations:
        sample = determinize(rng)
        if sample is state:  # a perfect-information game may hand back its input: never mutate it
            sample = state.clone()
        node = root
        path = []
        while True:
            player = current_player(sample)
            if player < 0:
                if player == CHANCE:
                    step(sample, sample_chance(sample, rng))
                    continue
                rewards = returns(sample)
                break
            children = node.children
            own = None
            if hand_key is not None and player != unkeyed:
                by_hand = node.by_hand
                if by_hand is None:
                    by_hand = node.by_hand = {}
                key = hand_key(sample, player)
                own = by_hand.get(key)
                if own is None:
                    own = by_hand[key] = {}
            untried = None
            best = None
            best_move = None
            best_value = -1.0
            tried = 0
            for move in legal_moves(sample):
                child = children.get(move)
                if child is None:
                    if untried is None:
                        untried = [move]
                    else:
                        untried.append(move)
                    continue
                tried += 1
                avail = child.avail + 1
                child.avail = avail
                if untried is None or heuristic is not None:
                    value = child.mean + child.spread * (
                        log_table[avail] if avail < table_size else _root_log(avail))
                    if own is not None:
                        mine = own.get(move)
                        if mine is not None:
                            value += (mine.mean - child.mean) * mine.visits / (mine.visits + hand_prior)
                    if value > best_value:
                        best_value = value
                        best = child
                        best_move = move
            if heuristic is not None:
                node.visits_here += 1
                # progressive widening: one more move only once the node has been visited enough
                if untried is not None and best is not None and tried * tried > node.visits_here * widening:
                    untried = None
            if untried is not None:
                chosen = heuristic(sample, rng) if heuristic is not None else None
                if chosen is None or chosen not in untried:
                    if len(untried) > 1:
                        r = bits(32)
                        chosen = untried[r * len(untried) >> 32]
                    else:
                        chosen = untried[0]
                child = new_node(player)
                child.avail = 1
                children[chosen] = child
                path.append(child)
                if own is not None:
                    path.append(_own_node(own, chosen, player))
                step(sample, chosen)
                exact_rewards = solved(sample) if solved is not None else None
                rewards = playout(sample, rng) if exact_rewards is None else exact_rewards
                break
            assert best is not None and best_move is not None  # all tried: one was best
            path.append(best)
            if own is not None:
                path.append(_own_node(own, best_move, player))
            step(sample, best_move)
            node = best
        for node in path:
            visits = node.visits + 1
            node.visits = visits
            reward = node.reward + rewards[node.player]
            node.reward = reward
            node.mean = reward / visits
            node.spread = c * (inverse_root[visits] if visits < table_size else visits ** -0.5)
        done += 1
        if not done & mask:
            now = clock()
            # stop when the next reading, CHECK_EVERY iterations on at the pace so far, would come
            # after the deadline: a timed search then ends within its cap, not up to a check beyond
            if now + (now - start) * (mask + 1) / done >= deadline:
                break
            if now >= next_report and on_progress is not None:
                on_progress(_progress(root, legal, done, now - start))
                next_report = now + progress_every
            if stop_early:
                first = second = 0
                for child in root_children:
                    visits = child.visits
                    if visits > first:
                        first, second = visits, first
                    elif visits > second:
                        second = visits
                if first - second > max_iterations - done:
                    break

    elapsed = clock() - start
    if on_progress is not None:
        on_progress(_progress(root, legal, done, elapsed))
    root_visits, root_values = _root_stats(root, legal)
    # with no finished iteration (a tiny time cap), any legal move
    if root_visits:
        move = max(root_visits, key=lambda m: (root_visits[m], root_values[m]))
    else:
        move = rng.choice(legal)
    return SearchResult(move, done, elapsed, root_visits, root_values)


# --- helpers ------------------------------------------------------------------


def _own_node(own: dict[Move, _Node], move: Move, player: int) -> _Node:
    """The statistics of `move` for one private key of its mover (trees by hand), made on first use."""
    mine = own.get(move)
    if mine is None:
        mine = own[move] = _Node(player)
    return mine


def _root_log(n: int) -> float:
    """sqrt(log(n)): the availability part of the exploration term."""
    return math.sqrt(math.log(n))


_LOG_TABLE: list[float] = [0.0] + [_root_log(n) for n in range(1, 1 << 15)]
#: 1 / sqrt(n) below the same bound: the spread's factor, a lookup instead of a square root
_INVERSE_ROOT: list[float] = [0.0] + [n ** -0.5 for n in range(1, len(_LOG_TABLE))]


def legal_for(game: Game[S, M], state: S, seat: Seat) -> list[M]:
    """The real legal moves of `seat`, refusing a search for a seat that is not to act."""
    player = game.current_player(state)
    if player != seat:
        who = {CHANCE: "chance", TERMINAL: "nobody (the game is over)"}.get(player, f"seat {player}")
        raise ValueError(f"seat {seat} cannot move: {who} is to act")
    legal = game.legal_moves(state)
    if not legal:
        raise ValueError(f"seat {seat} has no legal move")
    return legal


@cython.locals(root=_Node, child=_Node)
def _root_stats(root: _Node, legal: list[M]) -> tuple[dict[M, int], dict[M, float]]:
    """Visits and mean rewards of the root moves that are legal in the real state."""
    visits: dict[M, int] = {}
    values: dict[M, float] = {}
    children = root.children
    for move in legal:
        child = children.get(move)
        if child is not None and child.visits:
            visits[move] = child.visits
            values[move] = child.reward / child.visits
    return visits, values


@cython.locals(root=_Node)
def _progress(root: _Node, legal: list[M], done: int, elapsed: float) -> Progress:
    visits, _ = _root_stats(root, legal)
    if not visits:
        return Progress(done, elapsed, None, 0)
    move = max(visits, key=visits.__getitem__)
    return Progress(done, elapsed, move, visits[move])
