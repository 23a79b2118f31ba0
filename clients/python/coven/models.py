"""The shapes the server answers with, as typed dictionaries named after the OpenAPI document's
schemas (`WitchesState`, `CubeMove`, `MatchView`, …); a test holds them to the served document.

A `MatchView` is one of three, told apart by `game`: after `if view["game"] == "witches":` a type
checker knows `view["state"]` is a `WitchesState` and `view["legal_moves"]` witches moves.
A move is posted back as it came, one entry of `legal_moves`.
"""

# no `from __future__ import annotations`: TypedDict reads NotRequired[...] only from real annotations
from typing import Any, Literal, NotRequired, TypedDict

Status = Literal["waiting", "active", "finished", "cancelled"]
Level = Literal["random", "easy", "medium", "hard"]
#: A card by name: `colour-value` in the Witches' Wheel (`WitchesCard`), a card name in the
#: Enchanters' Gathering (`EnchantersCard`); the document lists every one.
Card = str


# --- the envelope ----------------------------------------------------------------------


class SeatView(TypedDict):
    seat: int
    type: Literal["human", "bot"]
    level: Level | None
    filled: bool
    name: str | None
    takeover: Literal["left", "resigned", "timeouts"] | None
    reserved: bool
    timeouts: int
    last_seen: str | None


class Outcome(TypedDict):
    """How a finished match ended (also `GameOutcome`, the cube state's own)."""

    scores: list[float]
    winners: list[int]
    ranks: list[int]
    reason: str


class BotActivity(TypedDict):
    seat: int
    level: Level
    status: Literal["queued", "thinking", "failed"]
    iterations: int
    elapsed: float
    best_move: Any
    best_visits: int


class ClockView(TypedDict):
    move_seconds: float | None
    bank_seconds: float | None
    increment_seconds: float | None
    deadline: str | None
    remaining: list[float | None]


class Fairness(TypedDict):
    commitment: str
    seed: str | None


# --- The Witches' Wheel ------------------------------------------------------------------


class WitchesPlayedCard(TypedDict):
    seat: int
    card: Card


class WitchesTrick(TypedDict):
    leader: int
    cards: list[WitchesPlayedCard]
    winner: int


class WitchesState(TypedDict):
    game: Literal["witches"]
    players: int
    seat: int | None
    phase: Literal["deal", "reveal", "first", "draw", "play", "trump_decision", "over"]
    to_act: int | None
    receiving: int | None
    wheel: Literal["decreasing", "increasing"]
    trump: Card | None
    trump_colour: Literal["red", "orange", "yellow", "green", "blue", "violet"] | None
    wheel_value: int | None
    ranking: list[int] | None
    leader: int | None
    trick: list[WitchesPlayedCard]
    winning: int | None  # the seat whose card wins the trick so far
    just_captured: list[Card]
    hand_sizes: list[int]
    pile_size: int
    captured: list[list[Card]]
    scores: list[int]
    discard: list[Card]
    tricks: list[WitchesTrick]
    winners: list[int] | None
    pile_cards: list[Card] | None
    hand: NotRequired[list[Card]]


class WitchesMovePlay(TypedDict):
    type: Literal["play"]
    card: Card


class WitchesMoveTrump(TypedDict):
    type: Literal["trump"]
    card: Card


class WitchesMoveKeep(TypedDict):
    type: Literal["keep"]


WitchesMove = WitchesMovePlay | WitchesMoveTrump | WitchesMoveKeep


# --- The Magic Cube ----------------------------------------------------------------------

CubeObject = Literal["book", "ring", "hat", "wand"]
CubeSide = Literal["red", "yellow", "blue", "green", "orange", "violet"]


class CubeObjects(TypedDict):
    book: int
    ring: int
    hat: int
    wand: int


class CubeCube(TypedDict):
    objects: CubeObjects
    up: CubeSide
    down: CubeSide


class CubeExposure(TypedDict):
    up: CubeSide
    down: CubeSide
    before_throw: bool
    fell: CubeObjects


class CubeTurn(TypedDict):
    seat: int
    complete: bool
    face: str | None
    ended_game: bool
    object: CubeObject | None
    start_up: CubeSide
    target: CubeSide | None
    path: list[CubeSide]
    exposures: list[CubeExposure]
    thrown: bool
    returned_to_lid: bool
    to_front: NotRequired[CubeObjects]
    out_of_game: NotRequired[CubeObjects]


class CubeState(TypedDict):
    game: Literal["cube"]
    players: int
    seat: int | None
    phase: str
    to_act: int | Literal["chance"] | None
    player: int | None
    turns: int
    lid: CubeObjects
    cube: CubeCube
    in_hand: CubeObject | None
    front: list[CubeObjects]
    front_totals: list[int]
    out_of_game: CubeObjects
    turn: CubeTurn | None
    outcome: Outcome | None


class CubeMoveRoll(TypedDict):
    type: Literal["roll"]


class CubeMoveChoose(TypedDict):
    type: Literal["choose"]
    object: CubeObject


class CubeMoveTurn(TypedDict):
    type: Literal["turn"]
    via: CubeSide


CubeMove = CubeMoveRoll | CubeMoveChoose | CubeMoveTurn


# --- The Enchanters' Gathering -------------------------------------------------------------

EnchantersPile = Literal["A", "B", "C", "D", "E", "F"]


class EnchantersTableSpot(TypedDict):
    spot: int
    face: Literal["down", "up"]
    occupied: NotRequired[bool]
    card: NotRequired[Card | None]


class EnchantersObject(TypedDict):
    pile: EnchantersPile
    value: NotRequired[int]


class EnchantersPlayer(TypedDict):
    seat: int
    hand_size: int
    elementals: list[Card]
    objects: list[EnchantersObject]
    new_gathering: int
    proxima: bool
    elemental_master: bool
    hand: NotRequired[list[Card]]
    known_cards: NotRequired[list[Card]]
    points: NotRequired[int]


class EnchantersOutcome(TypedDict):
    winners: list[int]
    reason: str
    scores: list[int]


class EnchantersState(TypedDict):
    game: Literal["enchanters"]
    seat: int | None
    phase: str
    step: int | None
    turn: int | None
    to_act: int | Literal["chance"] | None
    skip_step_2: bool
    table: list[EnchantersTableSpot]
    deck_size: int
    discard: list[Card]
    towers: list[list[Card]]
    piles: dict[EnchantersPile, int]
    new_gathering_left: int
    players: list[EnchantersPlayer]
    proxima: int | None
    elemental_master: int | None
    last_pile: EnchantersPile | None
    history: list[dict[str, Any]]  # `EnchantersEvent`: {seat, gathering | trick | periculum}
    pending: dict[str, Any] | None  # `EnchantersPendingDraw`: {draw, …}
    turns_completed: int
    reshuffles: int
    deck: NotRequired[list[Card]]
    outcome: NotRequired[EnchantersOutcome]


class EnchantersMoveTake(TypedDict):
    type: Literal["take"]
    spot: int


class EnchantersMoveGather(TypedDict):
    type: Literal["gather"]
    cards: list[Card]
    tower: int
    air: dict[Card, dict[str, str]]


class EnchantersMoveTrick(TypedDict):
    type: Literal["trick"]
    trick: str


class EnchantersMoveExodus(TypedDict):
    type: Literal["trick"]
    trick: Literal["exodus"]
    tower: int


class EnchantersMovePass(TypedDict):
    type: Literal["pass"]


class EnchantersMoveDiscard(TypedDict):
    type: Literal["discard"]
    card: Card


EnchantersMove = (EnchantersMoveTake | EnchantersMoveGather | EnchantersMoveTrick | EnchantersMoveExodus
                  | EnchantersMovePass | EnchantersMoveDiscard)

#: A move of any game: one entry of a view's `legal_moves`.
Move = WitchesMove | CubeMove | EnchantersMove


# --- a match as one seat sees it -------------------------------------------------------------


class _MatchViewFields(TypedDict):
    id: str
    version: int
    status: Status
    to_act: int | None
    you: int | None
    seats: list[SeatView]
    outcome: Outcome | None
    bot: BotActivity | None
    seeded: bool
    options: dict[str, Any]
    created: str
    updated: str
    visibility: Literal["public", "private"]
    takeover_level: Level
    clock: ClockView | None
    fairness: Fairness
    resigned: list[int]
    rematch: str | None
    previous: str | None


class WitchesMatchView(_MatchViewFields):
    game: Literal["witches"]
    state: WitchesState
    legal_moves: list[WitchesMove]


class CubeMatchView(_MatchViewFields):
    game: Literal["cube"]
    state: CubeState
    legal_moves: list[CubeMove]


class EnchantersMatchView(_MatchViewFields):
    game: Literal["enchanters"]
    state: EnchantersState
    legal_moves: list[EnchantersMove]


#: A match as one seat (or a spectator) sees it: narrow it by `view["game"]`.
MatchView = WitchesMatchView | CubeMatchView | EnchantersMatchView


class MatchSummary(TypedDict):
    """A match of the lobby (`GET /v1/matches`)."""

    id: str
    game: str
    status: Status
    version: int
    seats: list[SeatView]
    open_seats: list[int]
    seeded: bool
    created: str
    clock: dict[str, Any] | None
