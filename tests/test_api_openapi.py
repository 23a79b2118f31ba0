"""The OpenAPI contract: the committed file is what the code generates, it is valid, and real
responses (successes and problems) validate against it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from api_support import auth, create, view
from openapi_core import Config, OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest, WerkzeugOpenAPIResponse
from openapi_spec_validator import validate
from werkzeug.test import EnvironBuilder
from werkzeug.wrappers import Request

from api.web.openapi import spec_dict, to_yaml

COMMITTED = Path(__file__).resolve().parent.parent / "openapi.yaml"


def test_committed_openapi_matches_the_code(app) -> None:
    generated = to_yaml(spec_dict(app))
    assert COMMITTED.read_text() == generated, "openapi.yaml is stale: run `make openapi`"


def test_openapi_is_valid_and_served(client) -> None:
    document = yaml.safe_load(COMMITTED.read_text())
    validate(document)
    assert client.get("/openapi.json").get_json() == document
    assert yaml.safe_load(client.get("/openapi.yaml").get_data(as_text=True)) == document
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            assert operation.get("summary"), f"{method} {path} has no summary"
            has_example = any(
                "example" in media or "examples" in media
                for response in operation["responses"].values()
                for media in response.get("content", {}).values()
            ) or any(isinstance(r, dict) and "$ref" in r for r in operation["responses"].values())
            assert has_example, f"{method} {path} has no example"


def test_every_operation_is_declared_in_python_with_an_operation_id(app) -> None:
    """Operations come from `@operation` declarations: ids unique, no YAML left in docstrings."""
    document = yaml.safe_load(COMMITTED.read_text())
    ids = [op["operationId"] for ops in document["paths"].values() for op in ops.values()]
    assert len(ids) == len(set(ids)) and all(ids)
    for endpoint, function in app.view_functions.items():
        assert "---" not in (function.__doc__ or ""), f"{endpoint} still documents itself in YAML"


def test_shared_examples_have_their_schemas_shapes() -> None:
    from jsonschema import Draft202012Validator

    document = yaml.safe_load(COMMITTED.read_text())
    for name in ("MatchView", "SeatGrant"):
        schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
        Draft202012Validator(schema).validate(document["components"]["examples"][name]["value"])


def test_move_examples_are_moves_of_their_games() -> None:
    """Each documented move request parses as a move of the game its example names."""
    from engine.registry import get_game

    document = yaml.safe_load(COMMITTED.read_text())
    body = document["paths"]["/v1/matches/{match_id}/moves"]["post"]["requestBody"]
    examples = body["content"]["application/json"]["examples"]
    assert {name.split("_")[0] for name in examples} == {"witches", "enchanters", "cube"}
    for name, example in examples.items():
        game = get_game(name.split("_")[0])
        move = example["value"]["move"]
        assert game.move_to_json(game.move_from_json(move)) == move, name


def test_swagger_ui_is_served_locally(client) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and b"/openapi.json" in page.data and b"https://" not in page.data
    assert client.get("/docs/swagger-ui-bundle.js").status_code == 200
    assert client.get("/docs/swagger-ui.css").status_code == 200


@pytest.fixture
def contract() -> OpenAPI:
    problem_json = {"application/problem+json": json.loads}
    return OpenAPI.from_dict(yaml.safe_load(COMMITTED.read_text()),
                             config=Config(extra_media_type_deserializers=problem_json))


def test_real_responses_validate_against_the_document(client, run_bots, contract) -> None:
    seen = []

    def check(response):
        sent = response.request  # its body was consumed by the app: rebuild it without one
        headers = {k: v for k, v in sent.headers.items() if k.lower() not in ("content-length", "content-type")}
        bare = EnvironBuilder(path=sent.path, method=sent.method, query_string=sent.query_string.decode(),
                              headers=headers)
        request = WerkzeugOpenAPIRequest(Request(bare.get_environ()))
        contract.validate_response(request, WerkzeugOpenAPIResponse(response))
        seen.append((response.request.method, response.request.path, response.status_code))
        return response

    check(client.get("/healthz"))
    check(client.get("/readyz"))
    check(client.get("/v1/games"))
    check(client.get("/v1/games/witches"))
    check(client.get("/v1/games/chess"))
    created = check(client.post("/v1/matches", json={
        "game": "witches", "seats": [{"type": "human"}, {"type": "bot", "level": "random"}]})).get_json()
    mid, token = created["id"], created["token"]
    check(client.post("/v1/matches", json={"game": "witches"}))
    check(client.post("/v1/matches", data="{", content_type="application/json"))
    check(client.post("/v1/matches", data="x", content_type="text/plain"))
    check(client.post("/v1/matches", data='{"game": "' + "x" * 100_000 + '"}', content_type="application/json"))
    check(client.get("/v1/matches"))
    check(client.get("/v1/matches?status=waiting"))
    check(client.get(f"/v1/matches/{mid}"))
    check(client.get("/v1/matches/nope"))
    check(client.get(f"/v1/matches/{mid}", headers=auth("wrong")))
    check(client.post(f"/v1/matches/{mid}/join"))
    human = create(client, "witches", [{"type": "human"}, {"type": "human"}])
    check(client.post(f"/v1/matches/{human['id']}/join", json={"seat": 1}))
    for _ in range(200):
        run_bots()
        current = check(client.get(f"/v1/matches/{mid}", headers=auth(token))).get_json()
        if current["status"] == "finished":
            break
        check(client.get(f"/v1/matches/{mid}/moves", headers=auth(token)))
        check(client.post(f"/v1/matches/{mid}/moves", json={"move": {"type": "nope"}}, headers=auth(token)))
        check(client.post(f"/v1/matches/{mid}/moves", json={"move": current["legal_moves"][0], "version": 0},
                          headers=auth(token)))
        check(client.post(f"/v1/matches/{mid}/moves", json={"move": current["legal_moves"][0]},
                          headers={**auth(token), "If-Match": '"0"'}))
        check(client.post(f"/v1/matches/{mid}/moves", json={"move": current["legal_moves"][-1],
                                                             "version": current["version"]}, headers=auth(token)))
        check(client.get(f"/v1/matches/{mid}/log", headers=auth(token)))
    assert view(client, mid)["status"] == "finished"
    check(client.get(f"/v1/matches/{mid}/log"))
    tag = {"If-None-Match": f'"{view(client, mid)["version"]}"'}
    check(client.get(f"/v1/matches/{mid}", headers=tag))
    check(client.get(f"/v1/matches/{mid}/log", headers=tag))
    check(client.post(f"/v1/matches/{mid}/moves", json={"move": {"type": "nope"}}, headers=auth(token)))
    check(client.get(f"/v1/matches/{mid}/versions/1", headers=auth(token)))
    check(client.get(f"/v1/matches/{mid}/versions/9999"))
    check(client.post(f"/v1/matches/{mid}/resign", headers=auth(token)))
    check(client.post(f"/v1/matches/{mid}/leave", headers=auth(token)))
    check(client.delete(f"/v1/matches/{mid}", headers=auth(token)))
    check(client.post(f"/v1/matches/{mid}/rematch", headers=auth(token)))
    not_allowed = client.put(f"/v1/matches/{mid}")  # no such operation to validate against
    assert not_allowed.status_code == 405 and not_allowed.mimetype == "application/problem+json"
    statuses = {status for _, _, status in seen}
    assert {200, 201, 304, 400, 401, 403, 404, 409, 412, 413, 415, 422} <= statuses


def test_stream_events_are_the_documented_events(app, client) -> None:
    """The retry, match and bot events of a real stream validate against their documented schemas."""
    from jsonschema import Draft202012Validator

    document = yaml.safe_load(COMMITTED.read_text())

    def validate_as(component: str, instance: object) -> None:
        schema = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
        Draft202012Validator(schema).validate(instance)

    for attempt in range(50):  # a seeded match where the bot (seat 0) is to act first
        created = create(client, "witches", [{"type": "bot", "level": "random"}, {"type": "human"}],
                         seed=f"s{attempt}")
        if created["to_act"] == 0:
            break
    response = client.get(f"/v1/matches/{created['id']}/events", buffered=False)
    chunks = (chunk.decode() if isinstance(chunk, bytes) else chunk for chunk in response.response)
    seen: dict[str, dict] = {}
    while len(seen) < 3:
        chunk = next(chunks)
        if chunk.startswith(":"):
            continue
        event = dict(line.split(": ", 1) for line in chunk.strip().splitlines())
        kind = event.get("event", "retry")
        event = {key: int(value) if key == "retry" else value for key, value in event.items()}
        validate_as({"retry": "RetryEvent", "match": "MatchEvent", "bot": "BotEvent"}[kind], event)
        if "data" in event:
            validate_as({"match": "MatchView", "bot": "BotActivity"}[kind], json.loads(event["data"]))
        seen[kind] = event
        if kind == "match":  # now the worker reports: a bot event follows
            app.extensions["coven"].report_bot(created["id"], created["version"], {
                "status": "thinking", "iterations": 7, "elapsed": 0.01, "best_visits": 3, "best_move": ""})
    response.close()
