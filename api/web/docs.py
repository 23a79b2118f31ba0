"""The OpenAPI document (/openapi.yaml, /openapi.json) and Swagger UI 5 (/docs), whose files
come from the flask-swagger-ui package (no CDN: Swagger UI 4 cannot read OpenAPI 3.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import flask_swagger_ui
from flask import Blueprint, Response, abort, current_app, jsonify, send_from_directory

SWAGGER_UI_DIR = Path(flask_swagger_ui.__file__).parent / "dist"

bp = Blueprint("docs", __name__)

DOCS_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>Coven API</title>
  <link rel="stylesheet" type="text/css" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="/docs/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
  <script>
    window.onload = function () {
      window.ui = SwaggerUIBundle({
        url: "/openapi.json",
        dom_id: "#swagger-ui",
        deepLinking: true,
        validatorUrl: null,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: "StandaloneLayout"
      });
    };
  </script>
</body>
</html>
"""


def _spec() -> dict[str, Any]:
    from api.web.openapi import spec_dict

    cache = current_app.extensions.setdefault("coven_openapi", {})
    if "spec" not in cache:
        cache["spec"] = spec_dict(current_app)
    return cast(dict[str, Any], cache["spec"])


@bp.get("/openapi.json")
def openapi_json() -> Response:
    return jsonify(_spec())


@bp.get("/openapi.yaml")
def openapi_yaml() -> Response:
    from api.web.openapi import to_yaml

    return Response(to_yaml(_spec()), mimetype="application/yaml")


@bp.get("/docs")
@bp.get("/docs/")
def docs_page() -> Response:
    return Response(DOCS_PAGE, mimetype="text/html")


@bp.get("/docs/<path:filename>")
def docs_asset(filename: str) -> Response:
    if filename in ("index.html", "swagger-initializer.js"):
        abort(404)
    return send_from_directory(SWAGGER_UI_DIR, filename)
