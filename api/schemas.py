"""Marshmallow schemas of every request and response body; the OpenAPI document is built from them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from ai.levels import LEVELS

STATUSES = ("waiting", "active", "finished")


def _doc(description: str, example: object = None) -> dict[str, object]:
    meta: dict[str, object] = {"description": description}
    if example is not None:
        meta["example"] = example
    return meta


# --- requests -------------------------------------------------------------------------


class SeatSpecSchema(Schema):
    """One seat of a new match: a human (to be joined) or a bot of some level."""

    type = fields.String(
        required=True, validate=validate.OneOf(("human", "bot")), metadata=_doc("who plays the seat", "bot")
    )
    level = fields.String(
        validate=validate.OneOf(tuple(LEVELS)),
        metadata=_doc("bot level (bots only; default medium)", "hard"),
    )


class CreateMatchSchema(Schema):
    """Body of POST /v1/matches."""

    game = fields.String(required=True, validate=validate.Length(1, 64), metadata=_doc("game id", "witches"))
    seats = fields.List(
        fields.Nested(SeatSpecSchema),
        required=True,
        validate=validate.Length(1, 16),
        metadata=_doc("every seat in play order; the creator takes the first human seat"),
    )
    options = fields.Dict(
        keys=fields.String(), values=fields.Raw(), load_default=dict,
        metadata=_doc("game options; omitted ones take their defaults", {}),
    )
    seed = fields.String(
        validate=validate.Length(1, 128),
        metadata=_doc("makes chance reproducible (a practice match); the match then says seeded", "demo"),
    )


class JoinSchema(Schema):
    """Body of POST /v1/matches/{id}/join (optional)."""

    seat = fields.Integer(strict=True, validate=validate.Range(0, 64), metadata=_doc("the seat wanted", 1))


class MoveRequestSchema(Schema):
    """Body of POST /v1/matches/{id}/moves."""

    move = fields.Raw(
        required=True, allow_none=False,
        metadata=_doc("one entry of legal_moves, verbatim", {"type": "play", "card": "orange-1"}),
    )
    version = fields.Integer(
        strict=True, validate=validate.Range(0),
        metadata=_doc("the version the move was chosen at (or send If-Match)", 3),
    )


class MatchQuerySchema(Schema):
    """Query of GET /v1/matches/{id}: long-poll on the version."""

    after_version = fields.Integer(validate=validate.Range(0), metadata=_doc("return once the version passes this", 3))
    wait = fields.Float(
        validate=validate.Range(0, 3600), metadata=_doc("seconds to wait at most (capped at 30)", 25)
    )


class MatchListQuerySchema(Schema):
    """Query of GET /v1/matches."""

    game = fields.String(validate=validate.Length(1, 64), metadata=_doc("only this game", "witches"))
    status = fields.String(validate=validate.OneOf(("waiting", "active")), metadata=_doc("only this status", "waiting"))


# --- responses ------------------------------------------------------------------------


class LevelSchema(Schema):
    name = fields.String(metadata=_doc("level name", "hard"))
    iterations = fields.Integer(metadata=_doc("search iterations at most (0: no search)"))
    seconds = fields.Float(metadata=_doc("thinking time at most, seconds"))
    description = fields.String()


class OptionSchema(Schema):
    name = fields.String()
    description = fields.String()
    type = fields.String(metadata=_doc("JSON type: string, integer or boolean"))
    default = fields.Raw()
    choices = fields.List(fields.Raw())


class GameSchema(Schema):
    """A game of the catalog."""

    id = fields.String(metadata=_doc("game id", "witches"))
    title = fields.String(metadata=_doc("title", "The Witches' Wheel"))
    summary = fields.String()
    min_players = fields.Integer()
    max_players = fields.Integer()
    hidden_information = fields.Boolean()
    options = fields.List(fields.Nested(OptionSchema))
    bot_levels = fields.List(fields.Nested(LevelSchema))


class GameDetailSchema(GameSchema):
    """One game, with its rules document (Markdown)."""

    rules = fields.String(allow_none=True, metadata=_doc("the complete rules, Markdown"))


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSchema))


class SeatViewSchema(Schema):
    seat = fields.Integer()
    type = fields.String(metadata=_doc("human or bot", "bot"))
    level = fields.String(allow_none=True, metadata=_doc("bot level", "hard"))
    filled = fields.Boolean(metadata=_doc("taken by a player (bots always are)"))


class BotActivitySchema(Schema):
    """What the bot to act is doing."""

    seat = fields.Integer()
    level = fields.String()
    status = fields.String(metadata=_doc("queued or thinking", "thinking"))
    iterations = fields.Integer(metadata=_doc("search iterations so far"))
    elapsed = fields.Float(metadata=_doc("seconds spent so far"))
    best_move = fields.Raw(allow_none=True, metadata=_doc("most visited move so far (open-information games only)"))
    best_visits = fields.Integer()


class OutcomeSchema(Schema):
    scores = fields.List(fields.Float())
    winners = fields.List(fields.Integer())
    ranks = fields.List(fields.Integer())
    reason = fields.String()


class MatchViewSchema(Schema):
    """A match as one seat (or a spectator) may see it."""

    id = fields.String(metadata=_doc("match id", "4f1c2e9a0b7d3a65"))
    game = fields.String(metadata=_doc("game id", "witches"))
    version = fields.Integer(metadata=_doc("grows with every change; also the ETag", 3))
    status = fields.String(metadata=_doc("waiting, active or finished", "active"))
    to_act = fields.Integer(allow_none=True, metadata=_doc("seat to act (null when finished)", 0))
    you = fields.Integer(allow_none=True, metadata=_doc("the caller's seat (null: spectator)", 0))
    seats = fields.List(fields.Nested(SeatViewSchema))
    state = fields.Dict(metadata=_doc("the game's view for the caller's seat"))
    legal_moves = fields.List(fields.Raw(), metadata=_doc("when the caller is to act: each postable verbatim"))
    outcome = fields.Nested(OutcomeSchema, allow_none=True)
    bot = fields.Nested(BotActivitySchema, allow_none=True)
    seeded = fields.Boolean(metadata=_doc("chance was seeded by the creator (practice match)"))
    options = fields.Dict(metadata=_doc("the match options, defaults filled in"))
    created = fields.String(metadata=_doc("ISO 8601 UTC", "2025-01-01T12:00:00Z"))
    updated = fields.String(metadata=_doc("ISO 8601 UTC", "2025-01-01T12:00:05Z"))


class SeatGrantSchema(MatchViewSchema):
    """The match view plus the caller's seat token, shown only this once."""

    token = fields.String(metadata=_doc("send as 'Authorization: Bearer <token>'", "q8Hn…"))


class MatchSummarySchema(Schema):
    id = fields.String()
    game = fields.String()
    status = fields.String()
    version = fields.Integer()
    seats = fields.List(fields.Nested(SeatViewSchema))
    open_seats = fields.List(fields.Integer(), metadata=_doc("seats still free to join"))
    created = fields.String()


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema))


class LogEntrySchema(Schema):
    index = fields.Integer(metadata=_doc("position in the history"))
    seat = fields.Integer(allow_none=True, metadata=_doc("who moved (null: chance)"))
    chance = fields.Boolean(metadata=_doc("a chance outcome (deal, draw, roll)"))
    move = fields.Raw(metadata=_doc("the move, redacted for what the caller may not see"))


class LogSchema(Schema):
    id = fields.String()
    version = fields.Integer()
    entries = fields.List(fields.Nested(LogEntrySchema))


class ProblemSchema(Schema):
    """RFC 9457 problem details."""

    type = fields.String(metadata=_doc("URI of the problem type"))
    title = fields.String(metadata=_doc("short summary", "Illegal move"))
    status = fields.Integer(metadata=_doc("HTTP status", 422))
    detail = fields.String(metadata=_doc("what went wrong here"))
    instance = fields.String(metadata=_doc("the request path"))
    errors = fields.Raw(metadata=_doc("per-field messages (validation errors)"))
    rule = fields.String(metadata=_doc("the rule id the move breaks (illegal moves)"))
    legal_moves = fields.List(fields.Raw(), metadata=_doc("what would be legal (illegal moves)"))
    current_version = fields.Integer(metadata=_doc("the match's version (conflicts)"))
    to_act = fields.Integer(allow_none=True)
    status_of_match = fields.String(data_key="match_status")
    policy = fields.String(metadata=_doc("the rate limit reached (429)", "create-per-minute"))


class HealthSchema(Schema):
    status = fields.String(metadata=_doc("ok", "ok"))
    redis = fields.String(metadata=_doc("ok or the error", "ok"))
    workers = fields.Integer(metadata=_doc("bot workers with a recent heartbeat (readyz)", 1))


class LegalMovesSchema(Schema):
    version = fields.Integer()
    to_act = fields.Integer(allow_none=True)
    you = fields.Integer(allow_none=True)
    legal_moves = fields.List(fields.Raw())
