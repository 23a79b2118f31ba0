"""Marshmallow schemas of every request and response body: they load requests, dump the
service's objects (`api.service.presentation`) and generate the OpenAPI document.

Each schema is instantiated once, at the bottom (building one costs more than a dump).
Response fields that are always present are `required` so the contract says so.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from ai.levels import DEFAULT_LEVEL, LEVELS
from api.service.analysis import DEFAULT_SIMULATIONS, MAX_SIMULATIONS, AnalysisStatus
from api.store.records import LISTED, BotStatus, MatchStatus, SeatType, Takeover, Visibility
from engine import all_games
from engine.core import AnyGame, Termination

#: Punctuation a display name may hold besides letters, digits and spaces.
NAME_PUNCTUATION = frozenset(".,;:!?'’\"-_()[]&@#+/*~")
NAME_MAX = 32


def validate_name(name: str) -> None:
    """1–32 characters: Unicode letters (with their marks), digits, spaces, common punctuation;
    no leading or trailing space, no two spaces in a row."""
    if not 1 <= len(name) <= NAME_MAX:
        raise ValidationError(f"a name has 1 to {NAME_MAX} characters")
    if name != name.strip() or "  " in name:
        raise ValidationError("a name neither starts nor ends with a space, nor has two in a row")
    for char in name:
        category = unicodedata.category(char)
        if not (category[0] in "LMN" or char == " " or char in NAME_PUNCTUATION):
            raise ValidationError(f"a name holds letters, digits, spaces and common punctuation, not {char!r}")


def _name_field(description: str) -> fields.String:
    return fields.String(validate=validate_name, metadata=_doc(description, "Morgane"))


GAME_IDS = [game.info.id for game in all_games()]
#: The fewest and most seats any game takes.
SEAT_COUNTS = (min(game.info.min_players for game in all_games()),
               max(game.info.max_players for game in all_games()))


def _doc(description: str, example: object = None) -> dict[str, object]:
    meta: dict[str, object] = {"description": description}
    if example is not None:
        meta["example"] = example
    return meta


def move_component(game: AnyGame) -> str:
    """The components/schemas name of a game's move shapes (`GameInfo.move_schema`)."""
    return f"{game.info.id.capitalize()}Move"


def state_component(game: AnyGame) -> str:
    """The components/schemas name of a game's view shape (`GameInfo.view_schema`)."""
    return f"{game.info.id.capitalize()}State"


def _one_game(component: Callable[[AnyGame], str], description: str) -> dict[str, object]:
    """Metadata of a field holding a game's own JSON: one of the games' shapes, whichever game."""
    shapes = [{"$ref": f"#/components/schemas/{component(game)}"} for game in all_games()]
    return {"description": description, "oneOf": shapes}


def _a_move(description: str, example: object = None) -> dict[str, object]:
    """Metadata of a field holding a player's move, in any game."""
    return {**_one_game(move_component, description), **_doc(description, example)}


# --- requests -------------------------------------------------------------------------


class SeatSpecSchema(Schema):
    """One seat of a new match: a human (to be joined) or a bot of some level."""

    type = fields.Enum(SeatType, by_value=True, required=True, metadata=_doc("who plays the seat", "bot"))
    level = fields.String(
        validate=validate.OneOf(tuple(LEVELS)),
        metadata=_doc(f"bot level (bots only; default {DEFAULT_LEVEL})", "hard"),
    )


class ClockSpecSchema(Schema):
    """A turn clock: `move_seconds` alone, or `bank_seconds` with an optional `increment_seconds`."""

    move_seconds = fields.Float(validate=validate.Range(0.5, 86400), metadata=_doc("seconds for every move", 30))
    bank_seconds = fields.Float(validate=validate.Range(0.5, 7 * 86400),
                                metadata=_doc("seconds for the whole match", 600))
    increment_seconds = fields.Float(validate=validate.Range(0, 3600),
                                     metadata=_doc("seconds added to the bank after each move", 5))

    @validates_schema
    def one_kind(self, data: dict[str, Any], **_: object) -> None:
        """A clock is either per move or a bank."""
        if ("move_seconds" in data) == ("bank_seconds" in data):
            raise ValidationError("give move_seconds, or bank_seconds (with increment_seconds)")
        if "move_seconds" in data and "increment_seconds" in data:
            raise ValidationError("increment_seconds goes with bank_seconds", "increment_seconds")


class CreateMatchSchema(Schema):
    """Body of POST /v1/matches."""

    game = fields.String(required=True, validate=validate.OneOf(GAME_IDS), metadata=_doc("game id", "witches"))
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        required=True,
        validate=validate.Length(*SEAT_COUNTS),
        metadata=_doc("every seat in play order; the creator takes the first human seat (each game "
                      "has its own bounds within these: GET /v1/games)"),
    )
    options = fields.Dict(
        keys=fields.String(), values=fields.Raw(), load_default=dict,
        metadata=_doc("game options; omitted ones take their defaults", {}),
    )
    seed = fields.String(
        validate=validate.Length(1, 128),
        metadata=_doc("makes chance reproducible in a practice match (at most one human seat; refused "
                      "with 422 otherwise); the match then says seeded", "demo"),
    )
    name = _name_field("the creator's display name (default: Player <seat + 1>)")
    visibility = fields.Enum(
        Visibility, by_value=True, load_default=Visibility.PUBLIC,
        metadata=_doc("private matches are never listed: share their id to let others join", "private"),
    )
    takeover_level = fields.String(
        validate=validate.OneOf(tuple(LEVELS)), load_default=DEFAULT_LEVEL,
        metadata=_doc("the bot that plays a seat whose player left, resigned or ran out of time", "hard"),
    )
    clock = fields.Nested(ClockSpecSchema, allow_none=True, load_default=None, metadata=_doc(
        "a turn clock for human seats: seconds per move, or a bank with an increment", {"move_seconds": 30}))


class JoinSchema(Schema):
    """Body of POST /v1/matches/{id}/join (optional)."""

    seat = fields.Integer(strict=True, validate=validate.Range(0, 64), metadata=_doc("the seat wanted", 1))
    name = _name_field("the player's display name (default: Player <seat + 1>)")


class MoveRequestSchema(Schema):
    """Body of POST /v1/matches/{id}/moves."""

    move = fields.Raw(
        required=True, allow_none=False,
        metadata=_a_move("one entry of legal_moves, verbatim", {"type": "play", "card": "orange-1"}),
    )
    version = fields.Integer(
        strict=True, validate=validate.Range(0),
        metadata=_doc("the version the move was chosen at (or send If-Match)", 3),
    )


class MatchQuerySchema(Schema):
    """Query of GET /v1/matches/{id}: long-poll on the version."""

    after_version = fields.Integer(validate=validate.Range(0), metadata=_doc("return once the version passes this", 3))
    wait = fields.Float(
        validate=validate.Range(0), metadata=_doc("seconds to wait at most (capped at LONG_POLL_MAX_SECONDS, 30); a wait that "
                                           "sees no change answers after 85-100% of it, at random, which spreads "
                                           "the polls of many clients", 25)
    )


class MatchListQuerySchema(Schema):
    """Query of GET /v1/matches."""

    game = fields.String(validate=validate.OneOf(GAME_IDS), metadata=_doc("only this game", "witches"))
    status = fields.String(validate=validate.OneOf([status.value for status in LISTED]), metadata=_doc("only this status", "waiting"))
    limit = fields.Integer(validate=validate.Range(1, 100), metadata=_doc(
        "matches per page at most (default and maximum: the server's LIST_LIMIT, 100 unless configured)", 20))
    cursor = fields.String(validate=validate.Regexp(r"^[0-9]{1,12}(\.[0-9]{1,12})?_[0-9a-f]{16}$"), metadata=_doc(
        "where the page starts (after this creation time and match id): the `next` link carries it",
        "1733050400.123_4f1c2e9a0b7d3a65"))


class AnalysisRequestSchema(Schema):
    """Body of POST /v1/matches/{id}/analysis (optional)."""

    simulations = fields.Integer(
        strict=True, validate=validate.Range(10, MAX_SIMULATIONS), load_default=DEFAULT_SIMULATIONS,
        metadata=_doc(f"search simulations (default {DEFAULT_SIMULATIONS}; at most 10 s of search)", 3000),
    )


# --- responses ------------------------------------------------------------------------
# Dumped from the objects of api.service.presentation (and the engine's descriptors).


def _always(field: fields.Field[Any]) -> fields.Field[Any]:
    """`field`, marked as always present in responses (so the contract lists it as required)."""
    field.required = True
    return field


class RatingSchema(Schema):
    """A level's strength at one game, fitted from the ladder's round robin (`make ladder`)."""

    elo = _always(fields.Integer(metadata=_doc("Elo-scale rating; the random level is 0", 350)))
    low = _always(fields.Integer(metadata=_doc("95% interval, lower end", 300)))
    high = _always(fields.Integer(metadata=_doc("95% interval, upper end", 400)))
    games = _always(fields.Integer(metadata=_doc("ladder games this rating rests on", 400)))


class LevelSchema(Schema):
    name = _always(fields.String(validate=validate.OneOf(tuple(LEVELS)), metadata=_doc("level name", "hard")))
    iterations = _always(fields.Integer(metadata=_doc("simulations the level plays (0: no search)")))
    seconds = _always(fields.Float(metadata=_doc(
        "a cap on the search's CPU seconds, never wall time: a safety net its simulations stay inside")))
    blunder = _always(fields.Float(metadata=_doc(
        "the chance that it plays a uniformly random legal move instead of its search's (0: never)", 0.0)))
    description = _always(fields.String())
    rating = _always(fields.Nested(RatingSchema, allow_none=True, metadata=_doc(
        "strength at this game on the ladder (null when not rated yet)")))


class OptionSchema(Schema):
    name = _always(fields.String())
    description = _always(fields.String())
    type = _always(fields.String(validate=validate.OneOf(("string", "integer", "boolean")),
                                 metadata=_doc("JSON type of the value")))
    default = _always(fields.Raw())
    choices = _always(fields.List(fields.Raw()))


class GameSchema(Schema):
    """A game of the catalog."""

    id = _always(fields.String(metadata=_doc("game id", "witches")))
    title = _always(fields.String(metadata=_doc("title", "The Witches' Wheel")))
    summary = _always(fields.String())
    min_players = _always(fields.Integer())
    max_players = _always(fields.Integer())
    hidden_information = _always(fields.Boolean())
    options = _always(fields.List(fields.Nested(OptionSchema)))
    bot_levels = _always(fields.List(fields.Nested(LevelSchema)))


class GameDetailSchema(GameSchema):
    """One game, with its rules document (Markdown)."""

    rules = _always(fields.String(allow_none=True, metadata=_doc("the complete rules, Markdown")))


class GameListSchema(Schema):
    games = _always(fields.List(fields.Nested(GameSchema)))


class SeatViewSchema(Schema):
    seat = _always(fields.Integer())
    type = _always(fields.Enum(SeatType, by_value=True, metadata=_doc("who plays the seat", "bot")))
    level = _always(fields.String(allow_none=True, validate=validate.OneOf(tuple(LEVELS)),
                                  metadata=_doc("bot level (null for humans a bot has not taken over)", "hard")))
    filled = _always(fields.Boolean(metadata=_doc("taken by a player (bots always are)")))
    name = _always(fields.String(allow_none=True, metadata=_doc(
        "the player's name; a bot's is its level; null while open", "Morgane")))
    takeover = _always(fields.Enum(Takeover, by_value=True, allow_none=True, metadata=_doc(
        "why a bot plays this human seat now (left, resigned, timeouts), null while its player does", "left")))
    reserved = _always(fields.Boolean(metadata=_doc("kept for a player of the previous match (a rematch)")))
    timeouts = _always(fields.Integer(metadata=_doc("moves in a row the seat ran out of time (3: taken over)")))
    last_seen = _always(fields.String(allow_none=True, metadata=_doc(
        "when the seat last acted or polled, ISO 8601 UTC (views only; null in the lobby)", "2025-01-01T12:00:04Z")))


class ClockViewSchema(Schema):
    """The clock of a match: its settings, the current deadline, each seat's time left."""

    move_seconds = _always(fields.Float(allow_none=True, metadata=_doc("seconds for every move", 30)))
    bank_seconds = _always(fields.Float(allow_none=True, metadata=_doc("seconds for the whole match")))
    increment_seconds = _always(fields.Float(allow_none=True, metadata=_doc("added after each move")))
    deadline = _always(fields.String(allow_none=True, metadata=_doc(
        "when the seat to act runs out of time, ISO 8601 UTC to the millisecond (null: no clock runs)",
        "2025-01-01T12:00:35.250Z")))
    remaining = _always(fields.List(fields.Float(allow_none=True), metadata=_doc(
        "seconds each seat has left for its move (null: a bot plays it)", [27.5, None])))


class FairnessSchema(Schema):
    """Provably fair chance: the commitment binds the seed, game, options and seat count before
    anything is dealt (nothing is, before every seat is filled); check a finished match's whole
    log with `python -m engine.verify <match URL>`."""

    commitment = _always(fields.String(metadata=_doc(
        "SHA-256 (hex) of the canonical JSON {\"game\",\"options\",\"players\",\"seed\"} (sorted keys, no"
        " spaces): binds the secret seed and the deal setup, fixed at creation, before anything is dealt",
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")))
    seed = _always(fields.String(allow_none=True, metadata=_doc(
        "the secret seed, revealed once the match is over (null before)", None)))


class BotActivitySchema(Schema):
    """What the bot to act is doing."""

    seat = _always(fields.Integer())
    level = _always(fields.String(validate=validate.OneOf(tuple(LEVELS)), metadata=_doc("bot level", "hard")))
    status = _always(fields.Enum(BotStatus, by_value=True, metadata=_doc(
        "queued, thinking, or failed (its worker died too often: tried again BOT_RETRY_SECONDS later)",
        "thinking")))
    iterations = _always(fields.Integer(metadata=_doc("search iterations so far")))
    elapsed = _always(fields.Float(metadata=_doc("seconds spent so far")))
    best_move = _always(fields.Raw(allow_none=True, metadata=_doc(
        "most visited move so far (open-information games only)")))
    best_visits = _always(fields.Integer())


class OutcomeSchema(Schema):
    scores = _always(fields.List(fields.Float()))
    winners = _always(fields.List(fields.Integer()))
    ranks = _always(fields.List(fields.Integer()))
    reason = _always(fields.Enum(Termination, by_value=True, metadata=_doc("how the game ended")))


class MatchViewSchema(Schema):
    """A match as one seat (or a spectator) may see it."""

    id = _always(fields.String(metadata=_doc("match id", "4f1c2e9a0b7d3a65")))
    game = _always(fields.String(metadata=_doc("game id", "witches")))
    version = _always(fields.Integer(metadata=_doc("grows with every change; also the ETag", 3)))
    status = _always(fields.Enum(MatchStatus, by_value=True, metadata=_doc("where the match is", "active")))
    to_act = _always(fields.Integer(allow_none=True, metadata=_doc("seat to act (null when finished)", 0)))
    you = _always(fields.Integer(allow_none=True, metadata=_doc("the caller's seat (null: spectator)", 0)))
    seats = _always(fields.List(fields.Nested(SeatViewSchema)))
    state = _always(fields.Dict(metadata=_one_game(state_component, "the game's view for the caller's seat")))
    legal_moves = _always(fields.List(fields.Raw(metadata=_a_move("a move")), metadata=_doc(
        "when the caller is to act: each postable verbatim")))
    outcome = _always(fields.Nested(OutcomeSchema, allow_none=True))
    bot = _always(fields.Nested(BotActivitySchema, allow_none=True))
    seeded = _always(fields.Boolean(metadata=_doc("chance was seeded by the creator (practice match)")))
    options = _always(fields.Dict(metadata=_doc("the match options, defaults filled in")))
    created = _always(fields.String(metadata=_doc("ISO 8601 UTC", "2025-01-01T12:00:00Z")))
    updated = _always(fields.String(metadata=_doc("ISO 8601 UTC", "2025-01-01T12:00:05Z")))
    visibility = _always(fields.Enum(Visibility, by_value=True, metadata=_doc("listed in the lobby or not")))
    takeover_level = _always(fields.String(validate=validate.OneOf(tuple(LEVELS)), metadata=_doc(
        "the bot that plays a seat whose player left, resigned or ran out of time", "medium")))
    clock = _always(fields.Nested(ClockViewSchema, allow_none=True))
    fairness = _always(fields.Nested(FairnessSchema))
    resigned = _always(fields.List(fields.Integer(), metadata=_doc("seats that resigned, in order")))
    rematch = _always(fields.String(allow_none=True, metadata=_doc(
        "the follow-up match once a seat asked for a rematch (POST …/rematch to take your seat in it)")))
    previous = _always(fields.String(allow_none=True, metadata=_doc("the match this one is a rematch of")))


class VersionViewSchema(MatchViewSchema):
    """A match at an earlier version, as the caller saw it then (`bot` is always null)."""

    seat_views = _always(fields.List(fields.Dict(), allow_none=True, metadata=_doc(
        "once the match is finished: the game's view of every seat at that version (null before)")))


class SeatGrantSchema(MatchViewSchema):
    """The match view plus the caller's seat token, shown only this once (absent when the
    match has no human seat)."""

    token = fields.String(metadata=_doc("send as 'Authorization: Bearer <token>'", "q8Hn…"))


class MatchSummarySchema(Schema):
    id = _always(fields.String())
    game = _always(fields.String())
    status = _always(fields.Enum(MatchStatus, by_value=True))
    version = _always(fields.Integer())
    seats = _always(fields.List(fields.Nested(SeatViewSchema)))
    open_seats = _always(fields.List(fields.Integer(), metadata=_doc("seats still free to join")))
    seeded = _always(fields.Boolean(metadata=_doc("chance was seeded by the creator (practice match)")))
    created = _always(fields.String())
    clock = _always(fields.Dict(allow_none=True, metadata=_doc("the turn clock's settings", {"move_seconds": 30})))


class MatchListSchema(Schema):
    matches = _always(fields.List(fields.Nested(MatchSummarySchema)))
    next = _always(fields.String(allow_none=True, metadata=_doc(
        "URL of the next page (null: this is the last)", "/v1/matches?status=waiting&cursor=MTczMzA1")))


class LogEntrySchema(Schema):
    index = _always(fields.Integer(metadata=_doc("position in the history")))
    seat = _always(fields.Integer(allow_none=True, metadata=_doc("who moved (null: chance)")))
    chance = _always(fields.Boolean(metadata=_doc("a chance outcome (deal, draw, roll)")))
    move = _always(fields.Raw(metadata=_doc("the move, redacted for what the caller may not see")))
    name = _always(fields.String(allow_none=True, metadata=_doc("the name of who moved (null: chance)")))
    timeout = _always(fields.Boolean(metadata=_doc("played by the takeover bot when the seat's time ran out")))


class LogSchema(Schema):
    id = _always(fields.String())
    version = _always(fields.Integer())
    entries = _always(fields.List(fields.Nested(LogEntrySchema)))
    game = _always(fields.String(metadata=_doc("game id", "witches")))
    players = _always(fields.Integer(metadata=_doc("number of seats", 2)))
    options = _always(fields.Dict(metadata=_doc("the match options, defaults filled in")))
    fairness = _always(fields.Nested(FairnessSchema))
    status = _always(fields.Enum(MatchStatus, by_value=True, metadata=_doc("the match's status", "finished")))
    length = _always(fields.Integer(metadata=_doc(
        "entries in the whole history: a log with fewer lacks its end", 2)))
    resigned = _always(fields.List(fields.Integer(), metadata=_doc("seats that resigned, in order", [])))
    outcome = _always(fields.Nested(OutcomeSchema, allow_none=True, metadata=_doc(
        "how the match ended (null until it is finished)")))


class ProblemSchema(Schema):
    """RFC 9457 problem details."""

    type = _always(fields.String(metadata=_doc("URI of the problem type")))
    title = _always(fields.String(metadata=_doc("short summary", "Illegal move")))
    status = _always(fields.Integer(metadata=_doc("HTTP status", 422)))
    detail = _always(fields.String(metadata=_doc("what went wrong here")))
    instance = _always(fields.String(metadata=_doc("the request path")))
    errors = fields.Raw(metadata=_doc("per-field messages (validation errors)"))
    rule = fields.String(metadata=_doc("the rule id the move breaks (illegal moves)"))
    legal_moves = fields.List(fields.Raw(metadata=_a_move("a move")),
                              metadata=_doc("what would be legal (illegal moves)"))
    current_version = fields.Integer(metadata=_doc("the match's version (conflicts)"))
    to_act = fields.Integer(allow_none=True)
    status_of_match = fields.Enum(MatchStatus, by_value=True, data_key="match_status")
    policy = fields.String(metadata=_doc("the rate limit reached (429)", "create-per-minute"))


class AnalysedMoveSchema(Schema):
    move = _always(fields.Raw(metadata=_doc("the move, as in legal_moves", {"type": "play", "card": "red-7"})))
    visits = _always(fields.Integer(metadata=_doc("simulations that went through this move", 1800)))
    share = _always(fields.Float(metadata=_doc("visits / all root visits", 0.6)))
    win_chance = _always(fields.Float(metadata=_doc(
        "estimated chance to win after this move: the mean reward of its simulations (0–1; a game "
        "may add a small bonus for the score margin)", 0.71)))


class AnalysisResultSchema(Schema):
    simulations = _always(fields.Integer(metadata=_doc("simulations run", 3000)))
    seconds = _always(fields.Float(metadata=_doc("search time", 0.4)))
    moves = _always(fields.List(fields.Nested(AnalysedMoveSchema), metadata=_doc(
        "the most visited moves, best first (at most five)")))


class AnalysisSchema(Schema):
    """An analysis of the position where `seat` is to act at `version`."""

    id = _always(fields.String(metadata=_doc("analysis id", "9f1c0a7e5b2d4c68")))
    match = _always(fields.String(metadata=_doc("match id")))
    version = _always(fields.Integer(metadata=_doc("the position analysed", 7)))
    seat = _always(fields.Integer(metadata=_doc("the seat to act there", 0)))
    status = _always(fields.Enum(AnalysisStatus, by_value=True, metadata=_doc(
        "queued, running, done; stale when the match moved on before a worker took it; failed", "done")))
    simulations = _always(fields.Integer(metadata=_doc("simulations asked for", 3000)))
    result = _always(fields.Nested(AnalysisResultSchema, allow_none=True, metadata=_doc(
        "the top moves once done, else null")))


class HealthSchema(Schema):
    status = _always(fields.String(validate=validate.OneOf(("ok", "unavailable")), metadata=_doc("ok", "ok")))
    redis = fields.String(metadata=_doc("ok or the error (readiness only)", "ok"))
    workers = fields.Integer(metadata=_doc("bot workers with a recent heartbeat (readiness only)", 1))


class LegalMovesSchema(Schema):
    """The caller's legal moves at a version (empty unless it is to act)."""

    game = _always(fields.String(metadata=_doc("game id", "witches")))
    version = _always(fields.Integer())
    to_act = _always(fields.Integer(allow_none=True))
    you = _always(fields.Integer(allow_none=True))
    legal_moves = _always(fields.List(fields.Raw(metadata=_a_move("a move"))))


class StreamTicketSchema(Schema):
    ticket = _always(fields.String(metadata={"description": "Opens one event stream: GET …/events?ticket="}))
    seat = _always(fields.Integer(metadata={"description": "The seat the ticket stands for"}))
    expires_in = _always(fields.Integer(metadata={"description": "Seconds left to use it"}))


# --- instances: built once, shared by every request --------------------------------------

CREATE_MATCH = CreateMatchSchema()
JOIN = JoinSchema()
MOVE_REQUEST = MoveRequestSchema()
MATCH_QUERY = MatchQuerySchema()
MATCH_LIST_QUERY = MatchListQuerySchema()
GAME_LIST = GameListSchema()
GAME_DETAIL = GameDetailSchema()
MATCH_VIEW = MatchViewSchema()
VERSION_VIEW = VersionViewSchema()
SEAT_GRANT = SeatGrantSchema()
MATCH_LIST = MatchListSchema()
MATCH_LOG = LogSchema()
LEGAL_MOVES = LegalMovesSchema()
STREAM_TICKET = StreamTicketSchema()
BOT_ACTIVITY = BotActivitySchema()
CLOCK_VIEW = ClockViewSchema()
HEALTH = HealthSchema()
ANALYSIS_REQUEST = AnalysisRequestSchema()
ANALYSIS = AnalysisSchema()
