"""Matches: create, list, view (with long-poll), join, move, log and the event stream."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request, stream_with_context, url_for

from api import schemas
from api.contract import ETAG_HEADER, Auth, Reply, operation
from api.http import (
    bearer_token,
    client_socket,
    etag,
    if_match_version,
    load_body,
    load_query,
    service,
)
from api.service import presentation, streams, tickets

bp = Blueprint("matches", __name__, url_prefix="/v1/matches")

MATCH_ID = "MatchId"  # components/parameters: the {match_id} path parameter
IF_NONE_MATCH = "IfNoneMatch"
EVENT_STREAM = {"type": "array", "items": {"oneOf": [
    {"$ref": f"#/components/schemas/{name}"} for name in ("RetryEvent", "MatchEvent", "BotEvent")]}}
MOVE_EXAMPLES = {
    "witches": {"summary": "The Witches' Wheel: play a card",
                "value": {"move": {"type": "play", "card": "orange-1"}, "version": 3}},
    "enchanters_take": {"summary": "The Enchanters' Gathering: take the face-up card",
                        "value": {"move": {"type": "take", "spot": 3}, "version": 3}},
    "enchanters_gather": {
        "summary": "The Enchanters' Gathering: a gathering with an Air Enchanter",
        "value": {"move": {"type": "gather", "cards": ["hat-silver-water", "hat-silver-fire", "air-hat"],
                           "tower": 0, "air": {"air-hat": {"school": "silver", "element": "earth"}}},
                  "version": 3},
    },
    "cube": {"summary": "The Magic Cube: roll the die", "value": {"move": {"type": "roll"}, "version": 3}},
}


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
@operation(
    operation_id="createMatch", tag="matches", summary="Create a match",
    body=schemas.CREATE_MATCH,
    body_example={"game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "hard"}]},
    responses={
        201: Reply("Created; the body is the creator's view plus the seat token", schemas.SEAT_GRANT,
                   examples={"created": "SeatGrant"},
                   headers={"Location": {"description": "URL of the match", "schema": {"type": "string"}},
                            **ETAG_HEADER}),
        400: "BadRequest", 404: "NotFound", 413: "TooLarge", 415: "UnsupportedMediaType", 422: "Invalid",
    },
)
def create() -> Response:
    """Create a match.

    Seats are listed in play order. The creator takes the first human seat and gets its
    token (shown once); other human seats are joined with POST /v1/matches/{id}/join.
    The match starts when every seat is filled. `seed` makes chance reproducible.
    """
    svc = service()
    data = load_body(schemas.CREATE_MATCH)
    created, token = svc.create(data["game"], data["seats"], data["options"], data.get("seed"))
    if token is None:  # bots only: nobody holds a seat
        body = schemas.MATCH_VIEW.dump(presentation.match_view(svc.store, created))
    else:
        body = schemas.SEAT_GRANT.dump(presentation.granted_view(svc.store, created, token))
    response = _match_response(body, 201)
    response.headers["Location"] = url_for("matches.show", match_id=created.record.id)
    return response


@bp.get("")
@operation(
    operation_id="listMatches", tag="matches", summary="List waiting and active matches",
    query=schemas.MATCH_LIST_QUERY,
    responses={
        200: Reply("Matches, newest first", schemas.MATCH_LIST, example={"matches": [{
            "id": "4f1c2e9a0b7d3a65", "game": "witches", "status": "waiting", "version": 1,
            "seats": [{"seat": 0, "type": "human", "level": None, "filled": True},
                      {"seat": 1, "type": "human", "level": None, "filled": False}],
            "open_seats": [1], "created": "2025-01-01T12:00:00Z",
        }]}),
        400: "BadRequest",
    },
)
def list_matches() -> Response:
    """List joinable and live matches."""
    svc = service()
    query = load_query(schemas.MATCH_LIST_QUERY)
    found = presentation.listing(svc.store, svc.config.LIST_LIMIT, query.get("game"), query.get("status"))
    return jsonify(schemas.MATCH_LIST.dump(found))


@bp.get("/<match_id>")
@operation(
    operation_id="getMatch", tag="matches", summary="View a match (long-poll with after_version and wait)",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID, IF_NONE_MATCH], query=schemas.MATCH_QUERY,
    responses={
        200: Reply("The view", schemas.MATCH_VIEW, examples={"view": "MatchView"}, headers=ETAG_HEADER),
        304: "NotModified", 400: "BadRequest", 401: "Unauthorized", 404: "NotFound",
    },
)
def show(match_id: str) -> Response:
    """The match as the caller's seat sees it; long-polls with after_version and wait.

    With a seat token: that seat's view, and its legal moves when it is to act. Without:
    the spectator view. With `after_version=N`, the answer comes as soon as the version
    passes N, or after `wait` seconds (default and maximum 30).
    """
    query = load_query(schemas.MATCH_QUERY)
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    if "after_version" in query:
        wait = min(query.get("wait", svc.config.LONG_POLL_MAX_SECONDS), svc.config.LONG_POLL_MAX_SECONDS)
        caller = streams.wait(svc, caller, query["after_version"], wait, client_socket())
    else:
        svc.ensure_progress(caller)
    return _read_response(schemas.MATCH_VIEW.dump(presentation.match_view(svc.store, caller)))


@bp.post("/<match_id>/join")
@operation(
    operation_id="joinMatch", tag="matches", summary="Join a match", parameters=[MATCH_ID],
    body=schemas.JOIN, body_required=False, body_example={"seat": 1},
    responses={
        200: Reply("Joined; the body is the new seat's view plus its token", schemas.SEAT_GRANT,
                   examples={"joined": "SeatGrant"}),
        400: "BadRequest", 404: "NotFound", 409: "Conflict", 413: "TooLarge", 415: "UnsupportedMediaType",
        422: "Invalid",
    },
)
def join(match_id: str) -> Response:
    """Take a free human seat.

    Takes the first free human seat, or the one named. Returns that seat's token, once.
    """
    svc = service()
    data = load_body(schemas.JOIN, optional=True)
    joined, token = svc.join(match_id, data.get("seat"))
    return _match_response(schemas.SEAT_GRANT.dump(presentation.granted_view(svc.store, joined, token)))


@bp.get("/<match_id>/moves")
@operation(
    operation_id="getLegalMoves", tag="matches", summary="The caller's legal moves",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID],
    responses={
        200: Reply("Empty unless the caller is to act", schemas.LEGAL_MOVES, example={
            "version": 3, "to_act": 0, "you": 0, "legal_moves": [{"type": "play", "card": "orange-1"}]}),
        401: "Unauthorized", 404: "NotFound",
    },
)
def legal_moves(match_id: str) -> Response:
    """The caller's legal moves."""
    caller = service().caller(match_id, bearer_token())
    return _match_response(schemas.LEGAL_MOVES.dump(presentation.legal_moves(caller)))


@bp.post("/<match_id>/moves")
@operation(
    operation_id="playMove", tag="matches", summary="Play a move", auth=Auth.REQUIRED,
    parameters=[
        MATCH_ID,
        {"name": "If-Match", "in": "header", "schema": {"type": "string"}, "example": '"3"'},
        {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string", "maxLength": 200},
         "example": "5f0c6d1e-move-3"},
    ],
    body=schemas.MOVE_REQUEST, body_examples=MOVE_EXAMPLES,
    responses={
        200: Reply("Played; the body is the caller's new view", schemas.MATCH_VIEW,
                   examples={"view": "MatchView"},
                   headers={"ETag": {"description": "The new version, quoted", "schema": {"type": "string"}}}),
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
        412: "PreconditionFailed", 413: "TooLarge", 415: "UnsupportedMediaType", 422: "IllegalMove",
    },
)
def play(match_id: str) -> Response:
    """Submit a move.

    `move` is one entry of `legal_moves`, verbatim. Name the version you chose it at (body
    `version`, or `If-Match`) to be refused with 409/412 when the match moved on. An
    `Idempotency-Key` header makes a retry return the first response without playing twice.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    header_version = if_match_version()
    data = load_body(schemas.MOVE_REQUEST)
    version, from_header = data.get("version"), False
    if header_version is not None:
        if version is not None and version != header_version:
            version = -1  # the body and If-Match disagree: at most one can be current
        else:
            version, from_header = header_version, True
    key = request.headers.get("Idempotency-Key")
    result = svc.play(caller, data["move"], version, from_header, key[:200] if key else None)
    response = _match_response(result.body)
    if result.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


@bp.get("/<match_id>/log")
@operation(
    operation_id="getMatchLog", tag="matches", summary="The move history",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID, IF_NONE_MATCH],
    responses={
        200: Reply("The log", schemas.MATCH_LOG, headers=ETAG_HEADER, example={
            "id": "4f1c2e9a0b7d3a65", "version": 3, "entries": [
                {"index": 0, "seat": None, "chance": True, "move": {"type": "deal", "seat": 0}},
                {"index": 1, "seat": 0, "chance": False, "move": {"type": "play", "card": "orange-1"}},
            ]}),
        304: "NotModified", 401: "Unauthorized", 404: "NotFound",
    },
)
def log(match_id: str) -> Response:
    """The move history.

    Every move and chance outcome in order, as the caller's seat may see it: while the match
    runs, hidden information (another seat's draw) is redacted; once finished, all is shown.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    return _read_response(schemas.MATCH_LOG.dump(presentation.match_log(svc.store, caller)))


@bp.post("/<match_id>/stream-ticket")
@operation(
    operation_id="createStreamTicket", tag="matches", summary="Get a stream ticket (for EventSource)",
    auth=Auth.REQUIRED, parameters=[MATCH_ID],
    responses={
        201: Reply("A single-use ticket for this seat's event stream", schemas.STREAM_TICKET,
                   example={"ticket": "b3JhbmdlLTEgaXMgbm90IGEgdGlja2V0", "seat": 0, "expires_in": 60}),
        401: "Unauthorized", 404: "NotFound",
    },
)
def stream_ticket(match_id: str) -> Response:
    """Trade the seat token for a ticket that opens one event stream of that seat.

    A browser's `EventSource` cannot send `Authorization`. Send the seat token here and open
    `GET /v1/matches/{id}/events?ticket=…` with the answer: the ticket stands for this seat in
    that one URL, is spent when the stream opens, and expires after `expires_in` seconds
    unused. The seat token itself never goes into a URL. Ask for a new ticket to reconnect.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    ticket = tickets.issue_ticket(svc, caller)
    body = {"ticket": ticket, "seat": caller.seat, "expires_in": svc.config.STREAM_TICKET_SECONDS}
    response = jsonify(schemas.STREAM_TICKET.dump(body))
    response.status_code = 201
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<match_id>/events")
@operation(
    operation_id="streamMatchEvents", tag="matches", summary="Follow a match (Server-Sent Events)",
    auth=Auth.OPTIONAL, query=schemas.EVENTS_QUERY,
    parameters=[MATCH_ID, {"name": "Last-Event-ID", "in": "header", "schema": {"type": "string"},
                           "example": "3"}],
    responses={
        200: Reply(
            "A stream of Server-Sent Events: `retry`, then `match` and `bot` events; comment lines "
            "(`: keep-alive`) while idle", EVENT_STREAM, media_type="text/event-stream",
            example=[  # on the wire: "retry: 2000\n\nid: 3\nevent: match\ndata: {…}\n\n"
                {"retry": 2000},
                {"id": "3", "event": "match", "data": '{"id":"4f1c2e9a0b7d3a65","version":3,"status":"active"}'},
                {"event": "bot", "data": '{"seat":1,"level":"hard","status":"thinking","iterations":420}'},
            ]),
        204: Reply("The match is finished and the client holds its final version: stop reconnecting"),
        400: "BadRequest", 401: "Unauthorized", 404: "NotFound",
    },
)
def events(match_id: str) -> Response:
    """Server-sent events for a match.

    `event: match` carries the caller's view, its `id:` the version: the current one at once,
    then every new version, none skipped. A client that reconnects with `Last-Event-ID` (or
    `?last_event_id=`) first gets every version after that one, in order, as its seat saw
    them then, and then follows live. `event: bot` carries a thinking bot's progress;
    `event: reconnect` ends the stream when the server shuts down: reconnect with
    Last-Event-ID. The stream ends after the view of the finished match, or after a few
    minutes (reconnect with Last-Event-ID); a finished match whose final version the client
    holds answers 204. A seat's own stream needs its token: in `Authorization`, or, from a
    browser's EventSource, as a `ticket` from POST /v1/matches/{id}/stream-ticket
    (single-use, short-lived).
    """
    svc = service()
    query = load_query(schemas.EVENTS_QUERY)
    ticket = query.get("ticket")
    if ticket is not None:
        caller = tickets.caller_of_ticket(svc, match_id, ticket)
    else:
        caller = svc.caller(match_id, bearer_token())
    last = request.headers.get("Last-Event-ID", "").strip()
    last_version = int(last) if last.isdigit() else query.get("last_event_id")
    if streams.is_over_for(caller, last_version):
        return Response(status=204)
    stream = stream_with_context(streams.events(svc, caller, last_version, client_socket()))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response
