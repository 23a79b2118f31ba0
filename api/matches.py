"""Matches: create, list, view (with long-poll), join, move, log and the event stream."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, stream_with_context, url_for

from api import limits
from api.http import (
    bearer_token,
    etag,
    idempotency_key,
    if_match_version,
    last_event_version,
    load_body,
    load_query,
    service,
)
from api.schemas import (
    CreateMatchSchema,
    JoinSchema,
    LegalMovesSchema,
    LogSchema,
    MatchListQuerySchema,
    MatchListSchema,
    MatchQuerySchema,
    MatchViewSchema,
    MoveRequestSchema,
    SeatGrantSchema,
)
from api.service import Unauthorized

bp = Blueprint("matches", __name__, url_prefix="/v1/matches")


def _match_response(body: dict, status: int = 200) -> Response:
    response = jsonify(body)
    response.status_code = status
    response.headers["ETag"] = etag(body["version"])
    return response


def _read_response(body: dict) -> Response:
    """A GET answer that honours If-None-Match: 304 when the tag names this version and no bot
    is at work (a thinking bot's progress changes the body within a version)."""
    if body.get("bot") is None and request.if_none_match.contains_weak(str(body["version"])):
        response = Response(status=304)
        response.headers["ETag"] = etag(body["version"])
    else:
        response = _match_response(body)
    response.vary.add("Authorization")  # each seat sees its own view
    return response


@bp.post("")
def create() -> Response:
    """Create a match.
    ---
    post:
      tags: [matches]
      summary: Create a match
      description: >
        Seats are listed in play order. The creator takes the first human seat and gets its
        token (shown once); other human seats are joined with POST /v1/matches/{id}/join.
        The match starts when every seat is filled. `seed` makes chance reproducible.
      requestBody:
        required: true
        content:
          application/json:
            schema: CreateMatchSchema
            example: {"game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "hard"}]}
      responses:
        201:
          description: Created; the body is the creator's view plus the seat token
          headers:
            Location: {description: URL of the match, schema: {type: string}}
            ETag: {description: "The version, quoted", schema: {type: string}}
          content:
            application/json:
              schema: SeatGrantSchema
              examples: {created: SeatGrant}
        400: BadRequest
        404: NotFound
        413: TooLarge
        415: UnsupportedMediaType
        422: Invalid
    """
    data = load_body(CreateMatchSchema())
    svc = service()
    limits.check_open_matches(svc.store, svc.config, data["seats"])
    loaded, grant = svc.create(data["game"], data["seats"], data["options"], data.get("seed"))
    limits.remember_open_match(svc.store, svc.config, loaded.record.id, loaded.record.status)
    seat = grant.seat if grant else None
    body = service().view(loaded, seat)
    if grant is not None:
        body["token"] = grant.token
    response = _match_response(SeatGrantSchema().dump(body), 201)
    response.headers["Location"] = url_for("matches.show", match_id=loaded.record.id)
    return response


@bp.get("")
def list_matches() -> Response:
    """List joinable and live matches.
    ---
    get:
      tags: [matches]
      summary: List waiting and active matches
      parameters:
        - {name: game, in: query, schema: {type: string}, example: witches}
        - {name: status, in: query, schema: {type: string, enum: [waiting, active]}, example: waiting}
      responses:
        200:
          description: Matches, newest first
          content:
            application/json:
              schema: MatchListSchema
              example:
                matches:
                  - id: 4f1c2e9a0b7d3a65
                    game: witches
                    status: waiting
                    version: 1
                    seats: [{seat: 0, type: human, level: null, filled: true}, {seat: 1, type: human, level: null, filled: false}]
                    open_seats: [1]
                    created: "2025-01-01T12:00:00Z"
        400: BadRequest
    """
    query = load_query(MatchListQuerySchema())
    rows = service().listing(query.get("game"), query.get("status"))
    return jsonify(MatchListSchema().dump({"matches": rows}))


@bp.get("/<match_id>")
def show(match_id: str) -> Response:
    """The match as the caller's seat sees it; long-polls with after_version and wait.
    ---
    get:
      tags: [matches]
      summary: View a match (long-poll with after_version and wait)
      description: >
        With a seat token: that seat's view, and its legal moves when it is to act. Without:
        the spectator view. With `after_version=N`, the answer comes as soon as the version
        passes N, or after `wait` seconds (default and maximum 30).
      security: [{}, {seatToken: []}]
      parameters:
        - MatchId
        - {name: after_version, in: query, schema: {type: integer, minimum: 0}, example: 3}
        - {name: wait, in: query, schema: {type: number, minimum: 0}, example: 25}
        - IfNoneMatch
      responses:
        200:
          description: The view
          headers:
            ETag: {description: "The version, quoted", schema: {type: string}}
          content:
            application/json:
              schema: MatchViewSchema
              examples: {view: MatchView}
        304: NotModified
        400: BadRequest
        401: Unauthorized
        404: NotFound
    """
    query = load_query(MatchQuerySchema())
    svc = service()
    loaded = svc.load(match_id)
    seat = svc.seat_for_token(loaded.record, bearer_token())
    if "after_version" in query:
        wait = min(query.get("wait", svc.config.LONG_POLL_MAX_SECONDS), svc.config.LONG_POLL_MAX_SECONDS)
        loaded = svc.wait(match_id, query["after_version"], wait)
    else:
        svc.ensure_progress(loaded)
    return _read_response(MatchViewSchema().dump(svc.view(loaded, seat)))


@bp.post("/<match_id>/join")
def join(match_id: str) -> Response:
    """Take a free human seat.
    ---
    post:
      tags: [matches]
      summary: Join a match
      description: Takes the first free human seat, or the one named. Returns that seat's token, once.
      parameters: [MatchId]
      requestBody:
        required: false
        content:
          application/json:
            schema: JoinSchema
            example: {"seat": 1}
      responses:
        200:
          description: Joined; the body is the new seat's view plus its token
          content:
            application/json:
              schema: SeatGrantSchema
              examples: {joined: SeatGrant}
        400: BadRequest
        404: NotFound
        409: Conflict
        413: TooLarge
        415: UnsupportedMediaType
        422: Invalid
    """
    data = load_body(JoinSchema(), optional=True)
    loaded, grant = service().join(match_id, data.get("seat"))
    body = service().view(loaded, grant.seat)
    body["token"] = grant.token
    return _match_response(SeatGrantSchema().dump(body))


@bp.get("/<match_id>/moves")
def legal_moves(match_id: str) -> Response:
    """The caller's legal moves.
    ---
    get:
      tags: [matches]
      summary: The caller's legal moves
      security: [{}, {seatToken: []}]
      parameters: [MatchId]
      responses:
        200:
          description: Empty unless the caller is to act
          content:
            application/json:
              schema: LegalMovesSchema
              example: {"version": 3, "to_act": 0, "you": 0, "legal_moves": [{"type": "play", "card": "orange-1"}]}
        401: Unauthorized
        404: NotFound
    """
    svc = service()
    loaded = svc.load(match_id)
    seat = svc.seat_for_token(loaded.record, bearer_token())
    view = svc.view(loaded, seat)
    body = {key: view[key] for key in ("version", "to_act", "you", "legal_moves")}
    return _match_response(LegalMovesSchema().dump(body))


@bp.post("/<match_id>/moves")
def play(match_id: str) -> Response:
    """Submit a move.
    ---
    post:
      tags: [matches]
      summary: Play a move
      description: >
        `move` is one entry of `legal_moves`, verbatim. Name the version you chose it at (body
        `version`, or `If-Match`) to be refused with 409/412 when the match moved on. An
        `Idempotency-Key` header makes a retry return the first response without playing twice.
      security: [{seatToken: []}]
      parameters:
        - MatchId
        - {name: If-Match, in: header, schema: {type: string}, example: '"3"'}
        - name: Idempotency-Key
          in: header
          description: makes a retry safe; 1 to 255 visible ASCII characters (longer ones get 400)
          schema: {type: string, minLength: 1, maxLength: 255, pattern: '^[!-~]+$'}
          example: 5f0c6d1e-move-3
      requestBody:
        required: true
        content:
          application/json:
            schema: MoveRequestSchema
            examples:
              witches: {summary: "The Witches' Wheel: play a card", value: {"move": {"type": "play", "card": "orange-1"}, "version": 3}}
              enchanters_take: {summary: "The Enchanters' Gathering: take the face-up card", value: {"move": {"type": "take", "spot": 3}, "version": 3}}
              enchanters_gather: {summary: "The Enchanters' Gathering: a gathering with an Air Enchanter", value: {"move": {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "air-hat"], "tower": 0, "air": {"air-hat": {"school": "silver", "element": "earth"}}}, "version": 3}}
              cube: {summary: "The Magic Cube: roll the die", value: {"move": {"type": "roll"}, "version": 3}}
      responses:
        200:
          description: Played; the body is the caller's new view
          headers:
            ETag: {description: "The new version, quoted", schema: {type: string}}
          content:
            application/json:
              schema: MatchViewSchema
              examples: {view: MatchView}
        400: BadRequest
        401: Unauthorized
        403: Forbidden
        404: NotFound
        409: Conflict
        412: PreconditionFailed
        413: TooLarge
        415: UnsupportedMediaType
        422: IllegalMove
    """
    svc = service()
    loaded = svc.load(match_id)
    seat = svc.seat_for_token(loaded.record, bearer_token())
    if seat is None:
        raise Unauthorized("send your seat token as 'Authorization: Bearer <token>' to move")
    header_version = if_match_version()
    data = load_body(MoveRequestSchema())
    version, from_header = data.get("version"), False
    if header_version is not None:
        if version is not None and version != header_version:
            version = -1  # the body and If-Match disagree: at most one can be current
        else:
            version, from_header = header_version, True
    result = svc.play(match_id, seat, data["move"], version, from_header, idempotency_key())
    response = _match_response(MatchViewSchema().dump(result.body))
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


@bp.get("/<match_id>/log")
def log(match_id: str) -> Response:
    """The move history.
    ---
    get:
      tags: [matches]
      summary: The move history
      description: >
        Every move and chance outcome in order, as the caller's seat may see it: while the match
        runs, hidden information (another seat's draw) is redacted; once finished, all is shown.
      security: [{}, {seatToken: []}]
      parameters: [MatchId, IfNoneMatch]
      responses:
        200:
          description: The log
          headers:
            ETag: {description: "The version, quoted", schema: {type: string}}
          content:
            application/json:
              schema: LogSchema
              example:
                id: 4f1c2e9a0b7d3a65
                version: 3
                entries:
                  - {index: 0, seat: null, chance: true, move: {"type": "deal", "seat": 0}}
                  - {index: 1, seat: 0, chance: false, move: {"type": "play", "card": "orange-1"}}
        304: NotModified
        401: Unauthorized
        404: NotFound
    """
    svc = service()
    loaded = svc.load(match_id)
    seat = svc.seat_for_token(loaded.record, bearer_token())
    body = {"id": loaded.record.id, "version": loaded.record.version, "entries": svc.log(loaded, seat)}
    return _read_response(LogSchema().dump(body))


@bp.get("/<match_id>/events")
def events(match_id: str) -> Response:
    """Server-sent events for a match.
    ---
    get:
      tags: [matches]
      summary: Follow a match (Server-Sent Events)
      description: >
        `event: match` carries the caller's view (`id:` is the version) at once and after every
        change; `event: bot` carries a thinking bot's progress. The stream ends when the match
        is finished, or after a few minutes (reconnect with Last-Event-ID).
      security: [{}, {seatToken: []}]
      parameters:
        - MatchId
        - {name: Last-Event-ID, in: header, schema: {type: string}, example: "3"}
      responses:
        200:
          description: An event stream
          content:
            text/event-stream:
              schema: {type: string}
              example: "id: 3\\nevent: match\\ndata: {\\"id\\": \\"4f1c2e9a0b7d3a65\\", \\"version\\": 3}\\n\\n"
        401: Unauthorized
        404: NotFound
    """
    svc = service()
    loaded = svc.load(match_id)
    seat = svc.seat_for_token(loaded.record, bearer_token())
    last_version = last_event_version()
    stream = stream_with_context(svc.events(match_id, seat, last_version))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
