"""The official TypeScript client (`clients/typescript`) against a live server: its types are
generated from the served document, it typechecks with `tsc --strict`, and its own tests (node:test,
run by tsx) play every game over the seat's WebSocket (no move posted, no stream opened), reopen a cut
socket from the last version and send its unanswered move again, resume a cut event stream and raise
problems."""

from __future__ import annotations

import os
import shutil
import subprocess
import urllib.request
from pathlib import Path

from test_generated_client import NODE_TOOLS, _node_tool

PACKAGE = Path(__file__).resolve().parent.parent / "clients" / "typescript"


def test_the_typescript_client_typechecks_and_passes_its_tests(live_api: str, tmp_path: Path) -> None:
    work = tmp_path / "client"
    shutil.copytree(PACKAGE, work, ignore=shutil.ignore_patterns("node_modules", "schema.d.ts"))
    (work / "node_modules").symlink_to(NODE_TOOLS, target_is_directory=True)
    with urllib.request.urlopen(f"{live_api}/openapi.json", timeout=10) as answer:
        (work / "openapi.json").write_bytes(answer.read())
    generated = subprocess.run([_node_tool("openapi-typescript"), "openapi.json", "-o", "src/schema.d.ts"],
                               capture_output=True, text=True, timeout=300, cwd=work)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    checked = subprocess.run([_node_tool("tsc"), "--strict", "--noEmit", "-p", "."], capture_output=True,
                             text=True, timeout=300, cwd=work)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([_node_tool("tsx"), "--test", "test/client.test.ts"], capture_output=True, text=True,
                         timeout=900, cwd=work, env={**os.environ, "COVEN_API": live_api})
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "# fail 0" in ran.stdout and "# pass 7" in ran.stdout, ran.stdout

    # the README's complete match, as written: typechecked strictly, then played to the end
    snippet = (PACKAGE / "README.md").read_text().split("```ts\n", 1)[1].split("```", 1)[0]
    assert len(snippet.strip().splitlines()) < 20
    (work / "readme.ts").write_text(snippet.replace('"@coven/client"', '"./src/index"')
                                    .replace("http://localhost:8000", live_api))
    (work / "tsconfig.readme.json").write_text('{"extends": "./tsconfig.json", "include": ["readme.ts"]}')
    checked = subprocess.run([_node_tool("tsc"), "--noEmit", "-p", "tsconfig.readme.json"], capture_output=True,
                             text=True, timeout=300, cwd=work)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = subprocess.run([_node_tool("tsx"), "readme.ts"], capture_output=True, text=True, timeout=600, cwd=work)
    assert ran.returncode == 0 and "winners" in ran.stdout, ran.stdout + ran.stderr
