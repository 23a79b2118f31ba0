"""Matches: create, list, view (with long-poll), join, move, log and the event stream."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, stream_with_context, url_for

from api.service import presentation, streams, tickets
from api.service.errors import Unauthorized
from api.web import limits, schemas
from api.web.contract import ETAG_HEADER, Auth, Reply, operation
from api.web.errors import QueryError
from api.web.http import (
    IDEMPOTENCY_KEY_MAX_LENGTH,
    bearer_token,
    client_socket,
    etag,
    follower,
    idempotency_key,
    if_match_version,
    last_event_version,
    load_body,
    load_query,
    parse_version,
    service,
)
from api.web.openapi import MATCH_VIEW_EXAMPLE

bp = Blueprint("matches", __name__, url_prefix="/v1/matches")

MATCH_ID = "MatchId"  # components/parameters: the {match_id} path parameter
IF_NONE_MATCH = "IfNoneMatch"
#: One event of the stream: OpenAPI 3.1 has no `itemSchema`, so `schema` describes each event (as
#: 3.2's itemSchema would, and as schemathesis reads it).
EVENT_STREAM = {"oneOf": [
    {"$ref": f"#/components/schemas/{name}"} for name in ("RetryEvent", "MatchEvent", "BotEvent", "ReconnectEvent")]}
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


def _match_response(body: dict[str, Any], status: int = 200) -> Response:
    response = jsonify(body)
    response.status_code = status
    response.headers["ETag"] = etag(body["version"])
    return response


def _read_response(body: dict[str, Any]) -> Response:
    """A GET answer that honours If-None-Match: 304 when the tag names this version and no bot
    is at work (a thinking bot's progress changes the body within a version)."""
    # (the header is parsed only when sent: most reads send none)
    if ("HTTP_IF_NONE_MATCH" in request.environ and body.get("bot") is None
            and request.if_none_match.contains_weak(str(body["version"]))):
        response = Response(status=304)
        response.headers["ETag"] = etag(body["version"])
    else:
        response = _match_response(body)
    response.headers["Vary"] = "Authorization"  # each seat sees its own view (a fresh response: no Vary yet)
    return response


@bp.post("")
@operation(
    operation_id="createMatch", tag="matches", summary="Create a match",
    body=schemas.CREATE_MATCH,
    body_examples={
        "against_a_bot": {"summary": "You against a hard bot",
                          "value": {"game": "witches", "name": "Morgane",
                                    "seats": [{"type": "human"}, {"type": "bot", "level": "hard"}]}},
        "private_with_clock": {
            "summary": "A private match for two people, 30 seconds a move, a hard bot for whoever leaves",
            "value": {"game": "enchanters", "name": "Morgane", "visibility": "private",
                      "seats": [{"type": "human"}, {"type": "human"}], "takeover_level": "hard",
                      "clock": {"move_seconds": 30}}},
        "bank_clock": {"summary": "Ten minutes each plus five seconds a move",
                       "value": {"game": "cube", "seats": [{"type": "human"}, {"type": "human"}],
                                 "clock": {"bank_seconds": 600, "increment_seconds": 5}}},
        "practice": {"summary": "A seeded practice match (one human seat at most)",
                     "value": {"game": "witches", "seed": "practice",
                               "seats": [{"type": "human"}, {"type": "bot", "level": "easy"}]}},
    },
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
    The match starts when every seat is filled. A `private` match is never listed: share
    its id. `clock` puts the human seats on a turn clock; when one runs out, the
    `takeover_level` bot moves for the seat (three times in a row: for good). The server
    commits to a secret seed with the game, options and seat count (`fairness.commitment`)
    and reveals the seed at the end; nothing is dealt or drawn before every seat is filled.
    `seed` replaces the secret one in practice matches with at most one human seat (refused
    with more).
    """
    svc = service()
    data = load_body(schemas.CREATE_MATCH)
    limits.check_open_matches(svc.store, svc.config, data["seats"])
    created, token = svc.create(data["game"], data["seats"], data["options"], data.get("seed"),
                                name=data.get("name"), visibility=data["visibility"],
                                takeover_level=data["takeover_level"], clock=data["clock"])
    limits.remember_open_match(svc.store, svc.config, created.record.id, created.record.status)
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
            "open_seats": [1], "seeded": False, "created": "2025-01-01T12:00:00Z",
        }], "next": "/v1/matches?status=waiting&limit=1&cursor=1733050400.123_4f1c2e9a0b7d3a65"},
            headers={"Link": {"description": 'the next page, rel="next" (absent on the last page)',
                              "schema": {"type": "string"}}}),
        400: "BadRequest",
    },
)
def list_matches() -> Response:
    """List joinable and live matches, a page at a time.

    Newest first, filtered exactly by `game` and `status`. When more remain, `next` (and the
    `Link` header, rel="next") is the URL of the next page.
    """
    svc = service()
    query = load_query(schemas.MATCH_LIST_QUERY)
    limit = min(query.get("limit", svc.config.LIST_LIMIT), svc.config.LIST_LIMIT)
    try:
        page = presentation.listing(svc.store, limit, query.get("game"), query.get("status"),
                                    query.get("cursor"))
    except presentation.InvalidCursor as error:
        raise QueryError({"cursor": [str(error)]}) from None
    next_url = None
    if page.next_cursor is not None:
        kept = {name: query[name] for name in ("game", "status", "limit") if name in query}
        next_url = url_for("matches.list_matches", **kept, cursor=page.next_cursor)
    response = jsonify(schemas.MATCH_LIST.dump({"matches": page.matches, "next": next_url}))
    if next_url is not None:
        response.headers["Link"] = f'<{next_url}>; rel="next"'
    return response


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
    passes N, or after `wait` seconds (default and maximum 30; a wait that sees no change ends
    after 85-100% of it, at random, so that many clients' polls spread out).
    """
    query = load_query(schemas.MATCH_QUERY)
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    if "after_version" in query:
        wait = min(query.get("wait", svc.config.LONG_POLL_MAX_SECONDS), svc.config.LONG_POLL_MAX_SECONDS)
        caller = streams.wait(svc, caller, query["after_version"], wait, client_socket())
    else:
        svc.ensure_progress(caller)
    return _read_response(svc.views.body(svc.store, caller))


@bp.post("/<match_id>/join")
@operation(
    operation_id="joinMatch", tag="matches", summary="Join a match", parameters=[MATCH_ID],
    body=schemas.JOIN, body_required=False, body_example={"seat": 1, "name": "Viviane"},
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
    joined, token = svc.join(match_id, data.get("seat"), data.get("name"))
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
        {"name": "If-Match", "in": "header", "example": '"3"',
         "description": 'the version the move was chosen at: an ETag of the view ("3"; a bare 3 is taken too)',
         "schema": {"type": "string", "pattern": '^(\\*|(W/)?("[0-9]{1,18}"|[0-9]{1,18}))$'}},
        {"name": "Idempotency-Key", "in": "header", "example": "5f0c6d1e-move-3",
         "description": f"makes a retry safe; 1 to {IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters "
                        "(a longer key is refused with 400, never cut)",
         "schema": {"type": "string", "minLength": 1, "maxLength": IDEMPOTENCY_KEY_MAX_LENGTH,
                    "pattern": "^[!-~]+$"}},
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
    `Idempotency-Key` header makes a retry return the answer of the move it played (the seat's
    view of the version that move made) without playing twice;
    `ws:<ref>` is the key of a move sent on the seat's socket with that `ref` (the socket died
    before its answer: post it under that key and it is played at most once).
    """
    svc = service()
    caller = svc.mover(match_id, bearer_token())
    if caller.seat is None:  # before any precondition: 401, not 412, without a token
        raise Unauthorized("send your seat token as 'Authorization: Bearer <token>' to move")
    header_version = if_match_version()
    data = load_body(schemas.MOVE_REQUEST)
    version, from_header = data.get("version"), False
    if header_version is not None:
        if version is not None and version != header_version:
            version = -1  # the body and If-Match disagree: at most one can be current
        else:
            version, from_header = header_version, True
    result = svc.play(caller, data["move"], version, from_header, idempotency_key())
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
            ], "status": "active", "length": 2, "resigned": [], "outcome": None}),
        304: "NotModified", 401: "Unauthorized", 404: "NotFound",
    },
)
def log(match_id: str) -> Response:
    """The move history.

    Every move and chance outcome in order, as the caller's seat may see it: while the match
    runs, hidden information (another seat's draw) is redacted; once finished, all is shown.
    Nothing is dealt before every seat is filled: a waiting match's log is empty. `length`,
    `status` and `outcome` say where the log ends, so `python -m engine.verify` can check a
    finished log is whole.
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
    auth=Auth.OPTIONAL,
    parameters=[MATCH_ID, {"name": "Last-Event-ID", "in": "header", "example": "3",
                           "description": "the last event id received: the stream resumes after it",
                           "schema": {"type": "string", "pattern": "^([0-9]{1,18})?$"}},
                {"name": "last_event_id", "in": "query", "example": "3",
                 "description": "as Last-Event-ID, for clients that cannot set the header (the header wins)",
                 "schema": {"type": "string", "pattern": "^([0-9]{1,18})?$"}},
                {"name": "ticket", "in": "query", "schema": {"type": "string"},
                 "description": "A stream ticket (POST /v1/matches/{id}/stream-ticket): that seat's "
                                "stream, without the seat token in the URL",
                 "example": "b3JhbmdlLTEgaXMgbm90IGEgdGlja2V0"}],
    responses={
        200: Reply(
            "A stream of Server-Sent Events: `retry`, then `match` and `bot` events; comment lines "
            "(`: keep-alive`) while idle", EVENT_STREAM, media_type="text/event-stream",
            example=[  # on the wire: "retry: 2000\n\nid: 3\nevent: match\ndata: {…}\n\n"
                {"retry": 2000},
                {"id": "3", "event": "match", "data": '{"id":"4f1c2e9a0b7d3a65","version":3,"status":"active"}'},
                {"event": "bot", "data": '{"seat":1,"level":"hard","status":"thinking","iterations":420}'},
            ]),
        204: Reply("The match has ended and the client holds its final version: stop reconnecting"),
        400: "BadRequest", 401: "Unauthorized", 404: "NotFound",
    },
)
def events(match_id: str) -> Response:
    """Server-sent events for a match.

    `event: match` carries the caller's view, its `id:` the version: the current one at once,
    then every new version, none skipped. A client that reconnects with `Last-Event-ID` (or
    `?last_event_id=`) first gets every version after that one, in order, as its seat saw
    them then, and then follows live. `event: bot` carries a thinking bot's progress. The
    stream ends after the view of the ended match, or after a few minutes (reconnect with
    Last-Event-ID); a match that has ended whose final version the client holds answers 204.
    `event: reconnect` ends it when the server shuts down: reconnect with Last-Event-ID. A seat's own stream
    needs its token: in `Authorization`, or, from a browser's EventSource, as a `ticket` from
    POST /v1/matches/{id}/stream-ticket (single-use, short-lived).
    """
    svc = service()
    caller = follower(svc, match_id)
    last_version = last_event_version()
    if request.args.get("last_event_id"):
        from_query = parse_version(request.args["last_event_id"])
        if from_query is None:
            raise QueryError({"last_event_id": ["not an event id of this stream"]})
        last_version = from_query if last_version is None else last_version
    if streams.is_over_for(caller, last_version):
        return Response(status=204)
    stream = stream_with_context(streams.events(svc, caller, last_version, client_socket()))
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


LIFECYCLE_ERRORS: dict[int, Reply | str] = {
    401: "Unauthorized", 404: "NotFound",
}


def _state_conflict(detail: str, status: str) -> Reply:
    """The documented 409 of a lifecycle action refused in the match's state."""
    return Reply("Not possible in the match's (or the seat's) state", "Problem", example={
        "type": "https://coven.example/problems/not-possible-now", "title": "Not possible now", "status": 409,
        "detail": detail, "instance": "/v1/matches/4f1c2e9a0b7d3a65/…", "match_status": status,
    }, media_type="application/problem+json")


@bp.post("/<match_id>/resign")
@operation(
    operation_id="resignMatch", tag="lifecycle", summary="Resign", auth=Auth.REQUIRED, parameters=[MATCH_ID],
    responses={
        200: Reply("Resigned; the body is the caller's view", schemas.MATCH_VIEW,
                   examples={"view": "MatchView"}, headers=ETAG_HEADER),
        **LIFECYCLE_ERRORS,
        409: _state_conflict("the match is finished: you cannot resign now", "finished"),
    },
)
def resign(match_id: str) -> Response:
    """Resign the caller's seat.

    With two seats playing, the match ends and the other seat wins (outcome reason
    `resigned`). With more, the seat is ranked last and the takeover bot plays it to the
    end, so the others' game goes on.
    """
    svc = service()
    resigned = svc.resign(svc.caller(match_id, bearer_token()))
    return _match_response(svc.views.body(svc.store, resigned))


@bp.post("/<match_id>/leave")
@operation(
    operation_id="leaveMatch", tag="lifecycle", summary="Leave (a bot takes the seat over)",
    auth=Auth.REQUIRED, parameters=[MATCH_ID],
    responses={
        200: Reply("Left; the body is the caller's view, the seat shown as taken over", schemas.MATCH_VIEW,
                   examples={"view": "MatchView"}, headers=ETAG_HEADER),
        **LIFECYCLE_ERRORS,
        409: _state_conflict("a bot already plays seat 1 (left)", "active"),
    },
)
def leave(match_id: str) -> Response:
    """Leave the match.

    In a running match the bot of the match's `takeover_level` plays the seat from now on
    (`takeover: left`); the token still shows the seat's view. In a waiting match the seat
    is free again (the creator cancels the match instead).
    """
    svc = service()
    left = svc.leave(svc.caller(match_id, bearer_token()))
    return _match_response(svc.views.body(svc.store, left))


@bp.delete("/<match_id>")
@operation(
    operation_id="cancelMatch", tag="lifecycle", summary="Cancel a waiting match (its creator)",
    auth=Auth.REQUIRED, parameters=[MATCH_ID],
    responses={
        200: Reply("Cancelled; the body is the view (status cancelled)", schemas.MATCH_VIEW,
                   examples={"view": "MatchView"}, headers=ETAG_HEADER),
        **LIFECYCLE_ERRORS, 403: "NotCreator",
        409: _state_conflict("the match is active: only a waiting match can be cancelled", "active"),
    },
)
def cancel(match_id: str) -> Response:
    """Cancel a match that still waits for players.

    Only the creator's token may. The match is no longer listed or joinable; its view
    says `cancelled` until it expires.
    """
    svc = service()
    cancelled = svc.cancel(svc.caller(match_id, bearer_token()))
    return _match_response(svc.views.body(svc.store, cancelled))


@bp.post("/<match_id>/rematch")
@operation(
    operation_id="rematch", tag="lifecycle", summary="Take your seat in the rematch", auth=Auth.REQUIRED,
    parameters=[MATCH_ID],
    responses={
        200: Reply("Your seat in the follow-up match: its view plus your new token (shown once)",
                   schemas.SEAT_GRANT, examples={"rematch": "SeatGrant"},
                   headers={"Location": {"description": "URL of the follow-up match",
                                         "schema": {"type": "string"}}, **ETAG_HEADER}),
        **LIFECYCLE_ERRORS,
        409: _state_conflict("the match is active: a rematch follows a finished match", "active"),
    },
)
def rematch(match_id: str) -> Response:
    """Ask for a rematch of a finished match.

    The first seat to ask creates the follow-up match: same game, options, clock and bots,
    the seat order rotated by one (the second seat plays first), a new secret seed. Every
    human seat that asks gets its own seat in that same match, with a new token; the
    finished match's view links to it (`rematch`). It starts once every human seat asked.
    """
    svc = service()
    follow_up, token = svc.rematch(svc.caller(match_id, bearer_token()))
    response = _match_response(schemas.SEAT_GRANT.dump(presentation.granted_view(svc.store, follow_up, token)))
    response.headers["Location"] = url_for("matches.show", match_id=follow_up.record.id)
    return response


@bp.get("/<match_id>/versions/<int:version>")
@operation(
    operation_id="getMatchVersion", tag="matches", summary="The view at an earlier version",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID, {"name": "version", "in": "path", "required": True,
                                               "schema": {"type": "integer", "minimum": 1}, "example": 3}],
    responses={
        200: Reply("The view at that version", schemas.VERSION_VIEW,
                   example={**MATCH_VIEW_EXAMPLE, "bot": None, "seat_views": None}),
        401: "Unauthorized", 404: "NotFound",
    },
)
def version(match_id: str, version: int) -> Response:
    """The match at version n, as the caller saw it then.

    A seat gets exactly what it could see at that version, a spectator the public view.
    Once the match is finished, every seat's view of that version is added (`seat_views`),
    and the seed is revealed. Step through a match with n = 1, 2, … up to `version`.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    body = schemas.VERSION_VIEW.dump(presentation.version_view(svc.store, caller, version))
    response = jsonify(body)
    response.headers["ETag"] = etag(body["version"])
    response.vary.add("Authorization")
    return response
