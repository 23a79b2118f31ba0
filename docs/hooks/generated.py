"""MkDocs hook: the parts of the site made from the repository's own files, at every build.

`<!-- generated: NAME -->` in a page is replaced by what NAME makes: the README's curl session,
the table of operations of `openapi.yaml`, or a benchmark or head-to-head table made from
`bench/results/*.json` (`bench/tables.py`); `openapi.yaml` itself is published beside the reference page.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from mkdocs.structure.files import File, Files

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # MkDocs loads this file by path
from bench import tables as bench_tables  # noqa: E402 - the benchmarks' Markdown tables (standard library only)

ROOT = Path(__file__).resolve().parents[2]
MARK = re.compile(r"<!-- generated: ([a-z0-9-]+) -->")


def readme_session() -> str:
    """The README's curl session (its one ```sh block), as a code block."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    if len(blocks) != 1:
        raise ValueError("README.md should hold exactly one ```sh block: the curl session")
    return f"```sh\n{blocks[0]}```"


def operations() -> str:
    """Every operation of openapi.yaml: method, path, operationId and summary, by tag."""
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    rows: dict[str, list[str]] = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            tag = (operation.get("tags") or ["other"])[0]
            summary = (operation.get("summary") or "").replace("|", "\\|")
            rows.setdefault(tag, []).append(
                f"| `{method.upper()}` | `{path}` | `{operation.get('operationId', '')}` | {summary} |")
    out = []
    for tag, lines in rows.items():
        out += [f"### {tag}", "", "| method | path | operationId | what it does |", "|---|---|---|---|",
                *lines, ""]
    return "\n".join(out)


MAKERS: dict[str, Callable[[], str]] = {
    "readme-session": readme_session,
    "operations": operations,
    "bench-search": lambda: bench_tables.search_tables(ROOT / "bench" / "results"),
    "bench-levels": lambda: bench_tables.level_table(ROOT / "bench" / "results"),
    "bench-whole-games": lambda: bench_tables.whole_game_table(ROOT / "bench" / "results"),
    "bench-openspiel": lambda: bench_tables.openspiel_table(ROOT / "bench" / "results"),
    "bench-http": lambda: bench_tables.http_table(ROOT / "bench" / "results"),
    "bench-peers": lambda: bench_tables.peers_table(ROOT / "bench" / "results"),
    "bench-strength": lambda: bench_tables.strength_table(ROOT / "bench" / "results"),
    "ladder": lambda: bench_tables.ladder_table(ROOT / "ai" / "ratings.json"),
}


def on_files(files: Files, config: Any) -> Files:
    """Publish openapi.yaml beside the reference page, for Swagger UI and for download."""
    files.append(File.generated(config, "api/openapi.yaml", abs_src_path=str(ROOT / "openapi.yaml")))
    return files


def make(name: str) -> str:
    """What the marker NAME makes: a maker of MAKERS, or for `matches-GROUP` the table of that group
    of recorded head-to-heads (`bench/results/matches.json`)."""
    if name.startswith("matches-"):
        return bench_tables.matches_table(name.removeprefix("matches-"), ROOT / "bench" / "results")
    return MAKERS[name]()


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Replace each `<!-- generated: NAME -->` by what NAME makes."""
    return MARK.sub(lambda found: make(found.group(1)), markdown)
