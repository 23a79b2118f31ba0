"""Analysis: ask the bot workers for the best moves of the position to act, then read the answer."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, url_for

from api.service import analysis
from api.web import schemas
from api.web.contract import Auth, Reply, operation
from api.web.http import bearer_token, load_body, service
from api.web.limits import client_address

bp = Blueprint("analysis", __name__, url_prefix="/v1/matches")

MATCH_ID = "MatchId"
ANALYSIS_ID = {"name": "analysis_id", "in": "path", "required": True, "schema": {"type": "string"},
               "example": "9f1c0a7e5b2d4c68"}
EXAMPLE = {
    "id": "9f1c0a7e5b2d4c68", "match": "4f1c2e9a0b7d3a65", "version": 7, "seat": 0, "status": "done",
    "simulations": 3000,
    "result": {"simulations": 3000, "seconds": 0.41, "moves": [
        {"move": {"type": "play", "card": "red-7"}, "visits": 1840, "share": 0.6133, "win_chance": 0.7121},
        {"move": {"type": "play", "card": "green-2"}, "visits": 702, "share": 0.234, "win_chance": 0.6512},
    ]},
}


@bp.post("/<match_id>/analysis")
@operation(
    operation_id="requestAnalysis", tag="analysis", summary="Analyse the position to act",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID],
    body=schemas.ANALYSIS_REQUEST, body_required=False, body_example={"simulations": 3000},
    responses={
        202: Reply("Queued; poll the Location until its status is done", schemas.ANALYSIS,
                   example={**EXAMPLE, "status": "queued", "result": None},
                   headers={"Location": {"description": "URL of the analysis", "schema": {"type": "string"}}}),
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 409: "Conflict",
        413: "TooLarge", 415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests",
    },
)
def request_analysis(match_id: str) -> Response:
    """Queue a search of the position to act on the bot workers.

    The search is the bots' own, with your budget, and it samples only worlds your seat
    cannot tell apart, so it shows nothing your seat may not see. In a game with hidden
    information only the seat to act may ask (with its token); in an open game anyone may,
    spectators included. Poll the returned Location (a bot-sized search takes about a second).
    Analyses never delay a bot's move, and a client address or a match may have only a few
    queued or running at once (ANALYSES_PER_ADDRESS, ANALYSES_PER_MATCH): 429 past that.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    data = load_body(schemas.ANALYSIS_REQUEST, optional=True)
    queued = analysis.request(svc.redis, svc.config, caller, data["simulations"], svc.bots.redis,
                              address=client_address())
    response = jsonify(schemas.ANALYSIS.dump(queued))
    response.status_code = 202
    response.headers["Location"] = url_for("analysis.show", match_id=match_id, analysis_id=queued.id)
    return response


@bp.get("/<match_id>/analysis/<analysis_id>")
@operation(
    operation_id="getAnalysis", tag="analysis", summary="An analysis and, once done, its top moves",
    auth=Auth.OPTIONAL, parameters=[MATCH_ID, ANALYSIS_ID],
    responses={
        200: Reply("The analysis", schemas.ANALYSIS, example=EXAMPLE),
        401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
    },
)
def show(match_id: str, analysis_id: str) -> Response:
    """An analysis: queued, running, done (with the top moves), stale or failed.

    An analysis asked by a seat is shown to that seat only until the match is over.
    """
    svc = service()
    caller = svc.caller(match_id, bearer_token())
    return jsonify(schemas.ANALYSIS.dump(analysis.fetch(svc.redis, caller, analysis_id, svc.bots.redis)))
