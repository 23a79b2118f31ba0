"""The documentation site (/guide): what `make docs` built into site/, served when it is there."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, abort, redirect, send_from_directory
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import NotFound
from werkzeug.security import safe_join

from api.runtime.config import SITE_DIR

bp = Blueprint("guide", __name__)


@bp.get("/guide")
def root() -> ResponseReturnValue:
    """The site's relative links need the trailing slash."""
    return redirect("/guide/", code=308)


@bp.get("/guide/")
@bp.get("/guide/<path:filename>")
def page(filename: str = "") -> ResponseReturnValue:
    """A page of the built site (a folder's index.html), or 404 when the site was not built."""
    if not (SITE_DIR / "index.html").is_file():
        raise NotFound("the documentation site is not built: `make docs` builds it into site/")
    target = safe_join(str(SITE_DIR), filename)
    if target is None:
        abort(404)
    if Path(target).is_dir():
        if filename and not filename.endswith("/"):
            return redirect(f"/guide/{filename}/", code=308)
        filename = f"{filename}index.html"
    if not (SITE_DIR / filename).is_file():
        abort(404)
    response = send_from_directory(SITE_DIR, filename)
    response.headers["Cache-Control"] = "no-cache"
    return response
