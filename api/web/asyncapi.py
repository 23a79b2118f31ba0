"""The AsyncAPI 3.0 document of the WebSocket channel (`GET /v1/matches/{id}/socket`): the frames
each side sends, served at /asyncapi.yaml and /asyncapi.json; `asyncapi.yaml` is committed and
a test fails when it differs from this. Views and problems refer to the OpenAPI document's
schemas, so a shape is written once."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from api.runtime import jsonio
from api.web.openapi import TITLE, VERSION, to_yaml

bp = Blueprint("asyncapi", __name__)

OPENAPI = "/openapi.json#/components/schemas/"


def _message(name: str, summary: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"name": name, "summary": summary, "contentType": "application/json",
            "payload": {"type": "object", "properties": {"type": {"const": name}, **properties},
                        "required": ["type", *required]}}


REF = {"description": "the `ref` of the move message it answers (null when it had none)"}
MESSAGES: dict[str, dict[str, Any]] = {
    "move": _message("move", "A move, played as POST /v1/matches/{id}/moves plays it", {
        "move": {"description": "one entry of the view's legal_moves, verbatim", "type": "object"},
        "version": {"type": "integer", "minimum": 0,
                    "description": "the version the move was chosen at: refused (409) when the match moved on"},
        "ref": {"type": "string", "maxLength": 200,
                "description": "echoed in the answer; also the move's idempotency key: resend the same "
                               "message after a reconnect and it is played at most once, or, when the "
                               "socket cannot be had again, POST the move with `Idempotency-Key: ws:<ref>` "
                               "(a ref of visible ASCII) and get the answer of the move it played"},
    }, ["move"]),
    "match": _message("match", "The caller's view at a version: sent at once, then at every new version, "
                      "none skipped; after a reconnect with last_version, every version after it first", {
                          "version": {"type": "integer"},
                          "view": {"$ref": OPENAPI + "MatchView"},
                      }, ["version", "view"]),
    "ack": _message("ack", "The move was saved (its new view follows as `match`)", {
        "ref": REF, "version": {"type": "integer", "description": "the version the move made"},
    }, ["ref", "version"]),
    "error": _message("error", "The move was refused: the problem+json body POST /moves would answer with", {
        "ref": REF, "problem": {"$ref": OPENAPI + "Problem"},
    }, ["ref", "problem"]),
    "bot": _message("bot", "A thinking bot's progress", {"bot": {"$ref": OPENAPI + "BotActivity"}}, ["bot"]),
    "reconnect": _message("reconnect", "The server shuts down (close code 1001): reconnect with last_version, "
                          "to any server", {}, []),
}


def document() -> dict[str, Any]:
    """The AsyncAPI document."""
    server_messages = ["match", "ack", "error", "bot", "reconnect"]
    return {
        "asyncapi": "3.0.0",
        "info": {"title": f"{TITLE}: the seat's WebSocket channel", "version": VERSION,
                 "description": "JSON text frames on GET /v1/matches/{match_id}/socket (see the OpenAPI "
                                "document for the handshake: the seat token in Authorization, or a stream "
                                "ticket in `ticket`; `last_version` to resume). The server closes with 1000 "
                                "after the final view of an ended match."},
        "servers": {"this": {"host": "localhost:8000", "protocol": "ws",
                             "description": "this server (wss behind TLS)"}},
        "channels": {"matchSocket": {
            "address": "/v1/matches/{match_id}/socket",
            "parameters": {"match_id": {"description": "the match id"}},
            "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in MESSAGES},
        }},
        "operations": {
            "receiveMove": {"action": "receive", "channel": {"$ref": "#/channels/matchSocket"},
                            "summary": "The server takes the seat's moves",
                            "messages": [{"$ref": "#/channels/matchSocket/messages/move"}]},
            "sendUpdates": {"action": "send", "channel": {"$ref": "#/channels/matchSocket"},
                            "summary": "The server pushes views, answers moves, reports bots",
                            "messages": [{"$ref": f"#/channels/matchSocket/messages/{name}"}
                                         for name in server_messages]},
        },
        "components": {"messages": MESSAGES},
    }


@bp.get("/asyncapi.json")
def asyncapi_json() -> Response:
    """The AsyncAPI document of the WebSocket channel, as JSON."""
    return Response(jsonio.dumps(document()), mimetype="application/json")


@bp.get("/asyncapi.yaml")
def asyncapi_yaml() -> Response:
    """The AsyncAPI document of the WebSocket channel, as YAML (the committed asyncapi.yaml)."""
    return Response(to_yaml(document()), mimetype="application/yaml")


def main() -> None:
    """`python -m api.web.asyncapi > asyncapi.yaml`."""
    print(to_yaml(document()), end="")


if __name__ == "__main__":
    main()
