"""The engine protocol every game implements, and the vocabulary shared by all games.

A game is a `Game` subclass instance: a descriptor (`info`) plus pure functions
over states. States are mutable, cheap to `clone()`, and hold no random
generator: randomness enters only through chance nodes, which the caller
resolves (the match service with the match's seeded generator, the search by
sampling). Nothing here does I/O.

Two ways to advance a state, as in python-chess:

- `apply(state, move)` is the checked edge: validates, raises `IllegalMove`
  naming the rule, returns a new state and leaves the input untouched.
- `step(state, move)` is the fast core used by the search: no validation,
  mutates in place.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, Self, TypeAlias, TypeVar

from engine.errors import IllegalMove, InvalidMove, InvalidOptions

Seat = int
Json: TypeAlias = Any  # a JSON-compatible value: dict, list, str, int, float, bool, None


class Move(Hashable, Protocol):
    """What every game's moves are: small hashable value objects with a canonical JSON form."""

    def to_json(self) -> Json: ...


CHANCE: int = -1    # current_player() when chance acts next (a draw, a roll)
TERMINAL: int = -2  # current_player() when the game is over


# --- descriptors: a game described by data --------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """One match option: its name, allowed values and default."""

    name: str
    description: str
    default: Any
    choices: tuple[Any, ...] = ()  # empty: any value of `type`
    type: str = "string"           # JSON type name: "string", "integer", "boolean"

    def validate(self, value: Any) -> Any:
        """Return the value if it is allowed, else raise InvalidOptions."""
        expected = {"string": str, "integer": int, "boolean": bool}[self.type]
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise InvalidOptions({self.name: [f"must be a {self.type}"]})
        if self.choices and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise InvalidOptions({self.name: [f"must be one of: {allowed}"]})
        return value

    def to_json(self) -> dict[str, Json]:
        return {
            "name": self.name,
            "description": self.description,
            "type": self.type,
            "default": self.default,
            "choices": list(self.choices),
        }


@dataclass(frozen=True)
class GameInfo:
    """What generic code (API, bots, tests) needs to know about a game."""

    id: str
    title: str
    min_players: int
    max_players: int
    options: tuple[OptionSpec, ...]
    rules_file: str                 # path of the rules document, relative to the repository
    hidden_information: bool        # True when views differ between seats
    summary: str = ""
    #: JSON Schema of the moves a player posts (the entries of `legal_moves`), see engine.shapes.
    move_schema: Mapping[str, Any] = field(default_factory=dict)
    #: JSON Schema of `view(state, seat)`, every seat's and the spectator's (engine.shapes).
    view_schema: Mapping[str, Any] = field(default_factory=dict)

    def option(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        raise KeyError(name)


class Termination(StrEnum):
    """How a game ended (python-chess `Termination`); the values are the JSON `reason` strings."""

    OBJECT_UNAVAILABLE = "object_unavailable"  # cube C15: the die asks for an object the lid lacks
    HANDS_EMPTY = "hands_empty"                # witches W13: the last trick is played
    FIFTEEN_POINTS = "fifteen_points"          # enchanters E21
    SPECIAL_VICTORY = "special_victory"        # enchanters E22: an Artifact's victory
    PILES_EMPTY = "piles_empty"                # enchanters E23: nothing left to take
    STALEMATE = "stalemate"                    # enchanters E23: a stuck table
    RESIGNED = "resigned"                      # every seat but one resigned (engine.resignation)


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: per-seat scores, winners (ties allowed), ranks, why."""

    scores: tuple[float, ...]
    winners: tuple[Seat, ...]
    reason: Termination
    ranks: tuple[int, ...] = field(default=())  # 1 = best; equal scores share a rank

    def to_json(self) -> dict[str, Json]:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "ranks": list(self.ranks),
            "reason": self.reason.value,
        }


def ranks_for(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranks (1 = best) for per-seat sort keys where larger is better."""
    return tuple(1 + sum(1 for other in keys if other > key) for key in keys)


# --- the protocol ---------------------------------------------------------


class State:
    """Base class of game states. Subclasses use __slots__ and compact fields."""

    __slots__ = ()

    def clone(self) -> Self:  # pragma: no cover - every game overrides
        raise NotImplementedError


S = TypeVar("S", bound=State)
M = TypeVar("M", bound=Move)


class Game(Generic[S, M]):
    """The engine protocol, generic in a game's state type `S` and move type `M`.

    One instance per game, registered by `info.id`. Every method that takes a
    move also accepts any hand-made object: the checked edge (`check_move`,
    `apply`) answers it with `IllegalMove`, never another exception.
    """

    info: ClassVar[GameInfo]
    # options ------------------------------------------------------------

    def validate_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every option; unknown names are refused."""
        options = dict(options or {})
        known = {spec.name for spec in self.info.options}
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidOptions({name: ["unknown option"] for name in unknown})
        return {
            spec.name: spec.validate(options[spec.name]) if spec.name in options else spec.default
            for spec in self.info.options
        }

    def validate_players(self, num_players: int) -> None:
        info = self.info
        if not info.min_players <= num_players <= info.max_players:
            raise InvalidOptions(
                {"seats": [f"{info.title} takes {info.min_players} to {info.max_players} players"]}
            )

    # life cycle ------------------------------------------------------------

    def new_state(self, num_players: int, options: Mapping[str, Any] | None = None) -> S:
        """The state before anything happens; chance usually acts first (deal, first player)."""
        raise NotImplementedError

    def num_players(self, state: S) -> int:
        raise NotImplementedError

    def current_player(self, state: S) -> int:
        """A seat (0-based), CHANCE or TERMINAL."""
        raise NotImplementedError

    def is_terminal(self, state: S) -> bool:
        return self.current_player(state) == TERMINAL

    def chance_outcomes(self, state: S) -> list[tuple[M, float]]:
        """At a chance node: every outcome (a move) with its probability."""
        raise NotImplementedError

    def legal_moves(self, state: S) -> list[M]:
        """The moves of the seat to act; empty at chance and terminal states."""
        raise NotImplementedError

    def step(self, state: S, move: M) -> None:
        """Unchecked, in-place transition: the search's hot path."""
        raise NotImplementedError

    def apply(self, state: S, move: M) -> S:
        """Checked transition: a new state, or IllegalMove naming the broken rule."""
        self.check_move(state, move)
        after = state.clone()
        self.step(after, move)
        return after

    def check_move(self, state: S, move: M) -> None:
        """Raise IllegalMove (with the rule id) unless `move` is legal in `state`.

        Games override this to name the precise rule; the default only knows
        whether the move is in the legal list.
        """
        player = self.current_player(state)
        if player == TERMINAL:
            raise IllegalMove("game_over", "the game is over", move)
        if player == CHANCE:
            outcomes = [outcome for outcome, _ in self.chance_outcomes(state)]
            if move not in outcomes:
                raise IllegalMove("chance", f"{move!r} is not a possible chance outcome", move)
            return
        if move not in self.legal_moves(state):
            raise IllegalMove("illegal", f"{move!r} is not legal now", move)

    def outcome(self, state: S) -> Outcome | None:
        """The result once terminal, else None."""
        raise NotImplementedError

    def returns(self, state: S) -> tuple[float, ...]:
        """Per-seat rewards in [0, 1] at a terminal state, for the search.

        Default: 1 for each winner (tied winners all get 1), 0 for the others.
        Games may shape it, e.g. with a small bonus for the score margin.
        """
        outcome = self.outcome(state)
        assert outcome is not None, "returns() needs a terminal state"
        winners = set(outcome.winners)
        return tuple(1.0 if seat in winners else 0.0 for seat in range(len(outcome.scores)))

    # fast paths the search uses; defaults are generic ------------------------

    def sample_chance(self, state: S, rng: random.Random) -> M:
        """Draw one chance outcome with its probability."""
        outcomes = self.chance_outcomes(state)
        moves = [move for move, _ in outcomes]
        weights = [p for _, p in outcomes]
        return rng.choices(moves, weights)[0]

    def playout(self, state: S, rng: random.Random) -> tuple[float, ...]:
        """Play to the end with the game's default policy (and sampled chance); return `returns`.

        Mutates `state`. The default policy is uniformly random legal moves
        (`random_playout`). Games may override with a faster equivalent, or with
        a cheap "heavy" policy that knows the game (e.g. gather when you can),
        which makes the search's estimates better; it must only ever play legal
        moves.
        """
        return self.random_playout(state, rng)

    def search_playout(self, policy: str) -> Callable[[S, random.Random], tuple[float, ...]]:
        """The playout one search plays, by a level's name for its policy ("": `playout`).

        A search asks once and keeps what it gets, so a policy may learn from that search's
        earlier playouts (a fresh one each search). KeyError for a policy the game does not name.
        """
        if policy:
            raise KeyError(f"{self.info.id} has no playout policy {policy!r}")
        return self.playout

    def random_playout(self, state: S, rng: random.Random) -> tuple[float, ...]:
        """Play uniformly random legal moves (and sampled chance) to the end; return `returns`.

        Mutates `state`. What a plain random-rollout evaluator does, whatever
        policy `playout` plays: a baseline for searches that are not Coven's
        (the OpenSpiel comparison). Games may override with a faster equivalent.
        """
        while True:
            player = self.current_player(state)
            if player == TERMINAL:
                return self.returns(state)
            if player == CHANCE:
                self.step(state, self.sample_chance(state, rng))
            else:
                self.step(state, rng.choice(self.legal_moves(state)))

    def solved_returns(self, state: S) -> tuple[float, ...] | None:
        """`returns` under best play from the full state `state`, when the game can work it out
        exactly and cheaply (an endgame with nothing left to chance), else None (the default).

        A search that asks for it (a level's `exact`) uses it instead of a playout, from the
        positions `solvable` names; like `playout` it reads the whole state, so searches call it on
        determinizations only.
        """
        return None

    def solvable(self, state: S) -> bool:
        """Whether a search from `state` should value its samples by `solved_returns` (where every
        sample is solvable cheaply enough). It may read only what every seat sees; False by default."""
        return False

    def position_key(self, state: S) -> Hashable | None:
        """A hashable key equal for two states whose futures are the same (same moves, chances and
        outcomes from here), so a search may value them once; None (the default) when the game
        offers none. Like `playout`, it may read the whole state."""
        return None

    def private_key(self, state: S, seat: Seat) -> Hashable | None:
        """A hashable key of what `seat` alone knows in the full state `state` (its hand), equal for
        two samples exactly when that seat's own information in them is the same, so a search can let
        each seat choose knowing it (the multiple-observer tree); None (the default) when the game
        keeps nothing private a search should tell apart. Like `playout`, it reads the whole state."""
        return None

    #: With a heuristic move, how soon the search opens a node's other moves: its k-th once the
    #: node was visited k**2 / search_widening times (larger: sooner).
    search_widening: float = 1.0

    def heuristic_move(self, state: S, rng: random.Random) -> M | None:
        """A cheap sensible move for the player to act, or None when the game has no such policy.

        The search expands this move first and widens the other moves in
        progressively, so a wide node is not judged by its random moves while
        most of its moves are still untried. Like `playout`, it may look at the
        whole state (the search calls it on determinizations only).
        """
        return None

    def named_policies(self) -> Mapping[str, Callable[[S, random.Random], M]]:
        """Hand-written players the game names, for the ladder and calibration (none by default).

        Each maps a state where a seat is to act to a legal move. Like `heuristic_move` it may
        read the whole state, so callers hand it a determinization from that seat's view.
        """
        return {}

    # information -------------------------------------------------------------

    def view(self, state: S, seat: Seat | None) -> dict[str, Json]:
        """What `seat` (None: a spectator) may see, as JSON. Never hidden cards or seeds."""
        raise NotImplementedError

    def log_entry(self, state: S, move: M, seat: Seat | None) -> Json:
        """How `move`, about to be applied to `state`, appears to `seat` (None: public).

        Returns the move's JSON, or a redacted form when it reveals hidden
        information (e.g. the card a player drew, shown only to that player).
        """
        return self.move_to_json(move)

    def determinize(self, state: S, seat: Seat, rng: random.Random) -> S:
        """A full state consistent with everything `seat` has seen."""
        raise NotImplementedError

    def determinizer(self, state: S, seat: Seat) -> Callable[[random.Random], S]:
        """`determinize` for many samples of one (state, seat), as a search takes them: a game may
        work out once what every sample shares."""
        determinize = self.determinize
        return lambda rng: determinize(state, seat, rng)

    def search_determinizer(self, state: S, seat: Seat, sampling: str) -> Callable[[random.Random], S]:
        """The determinizer a search asks for by name (`Level.sampling`): "" is `determinizer`; a
        game may offer others (The Witches' Wheel's "inferred"). ValueError for a name it lacks."""
        if sampling:
            raise ValueError(f"{self.info.id} has no sampling {sampling!r}")
        return self.determinizer(state, seat)

    # serialisation -------------------------------------------------------------

    def move_to_json(self, move: M) -> Json:
        return move.to_json()

    def move_from_json(self, data: Json) -> M:
        """Parse a move's canonical JSON form; raise InvalidMove when malformed."""
        raise NotImplementedError

    def encode(self, state: S) -> dict[str, Json]:
        """A compact JSON snapshot: {"v": the format's version, ...}; `decode` refuses other versions."""
        raise NotImplementedError

    def decode(self, data: Mapping[str, Json]) -> S:
        raise NotImplementedError


#: A game whose state and move types the caller does not know (the registry, the search, the API).
AnyGame: TypeAlias = Game[Any, Any]


__all__ = [
    "CHANCE",
    "TERMINAL",
    "AnyGame",
    "Game",
    "GameInfo",
    "IllegalMove",
    "InvalidMove",
    "InvalidOptions",
    "Json",
    "Move",
    "OptionSpec",
    "Outcome",
    "Seat",
    "Termination",
    "State",
    "ranks_for",
]
