"""/guide: the documentation site `make docs` builds, served by the app when it is there."""

from __future__ import annotations

from pathlib import Path

import pytest

import api.web.guide


@pytest.fixture
def built_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "play" / "witches").mkdir(parents=True)
    (tmp_path / "index.html").write_text("<h1>Coven</h1>")
    (tmp_path / "play" / "witches" / "index.html").write_text("<h1>The Witches' Wheel</h1>")
    (tmp_path / "secret.txt").write_text("inside the site")
    monkeypatch.setattr(api.web.guide, "SITE_DIR", tmp_path)
    return tmp_path


@pytest.mark.usefixtures("built_site")
def test_the_built_site_is_served_page_by_page(client) -> None:
    assert client.get("/guide").headers["Location"].endswith("/guide/")
    assert b"Coven" in client.get("/guide/").data
    assert client.get("/guide/play/witches").status_code == 308  # relative links need the slash
    answer = client.get("/guide/play/witches/")
    assert answer.status_code == 200 and b"Witches" in answer.data


@pytest.mark.usefixtures("built_site")
def test_nothing_outside_the_site_and_no_missing_page(client) -> None:
    assert client.get("/guide/../pyproject.toml").status_code == 404
    assert client.get("/guide/%2e%2e/pyproject.toml").status_code == 404
    answer = client.get("/guide/no/such/page/")
    assert answer.status_code == 404 and answer.mimetype == "application/problem+json"


def test_an_unbuilt_site_is_a_404_saying_how_to_build_it(client, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api.web.guide, "SITE_DIR", tmp_path / "site")
    answer = client.get("/guide/")
    assert answer.status_code == 404 and "make docs" in answer.get_json()["detail"]
