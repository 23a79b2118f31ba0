"""The reference web client (/play): static HTML, CSS and JavaScript modules, no build step."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

PLAY_DIR = Path(__file__).parent / "static" / "play"

bp = Blueprint("play", __name__)


@bp.get("/play")
@bp.get("/play/")
def page() -> Response:
    """The client's single page; the query string (?match=, ?join=) says which match it shows."""
    response = send_from_directory(PLAY_DIR, "index.html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/play/<path:filename>")
def asset(filename: str) -> Response:
    """The client's scripts, styles and images."""
    response = send_from_directory(PLAY_DIR, filename)
    response.headers["Cache-Control"] = "no-cache"  # revalidated: a new release is seen at once
    return response
