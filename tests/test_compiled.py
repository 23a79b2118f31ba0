"""The compiled hot path (setup.py, engine/compiled.py): built, imported, and searching as the source does.

The test process runs the compiled modules; a subprocess with `COVEN_PURE_PYTHON=1`
runs the same searches from the .py files. Same seed, same iteration cap: every
game, at its minimum, middle and maximum player count, from the start and from
the middle of a game, must give the same visits and values per root move, in the tree search
and in paired halving.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path
from typing import Any

import pytest

from ai.halving import halving_search
from ai.search import search
from bench.search import player_counts, positions
from engine import all_games, compiled

ROOT = Path(__file__).resolve().parent.parent
ITERATIONS = 300
SEED = 7


def searches() -> dict[str, Any]:
    """Root visits and values, by move, of one fixed-seed search per game, player count and position."""
    out: dict[str, Any] = {"compiled": compiled.compiled_modules()}
    for game in all_games():
        for n in player_counts(game):
            for name, (state, seat) in positions(game, n).items():
                result = search(game, state, seat, random.Random(SEED), iterations=ITERATIONS,
                                seconds=600.0)
                key = lambda move: json.dumps(move.to_json(), sort_keys=True)  # noqa: E731
                out[f"{game.info.id} {n}p {name}"] = {
                    "iterations": result.iterations,
                    "visits": {key(m): v for m, v in result.visits.items()},
                    "values": {key(m): v for m, v in result.values.items()},
                }
                halved = halving_search(game, state, seat, random.Random(SEED), ITERATIONS)
                out[f"{game.info.id} {n}p {name} halving"] = {
                    "move": key(halved.move),
                    "visits": {key(m): v for m, v in halved.visits.items()},
                    "values": {key(m): v for m, v in halved.values.items()},
                }
    return out


def run_pure(code: str) -> str:
    """Run `code` in a fresh interpreter that imports every module of ours from source."""
    env = {**os.environ, compiled.PURE_PYTHON: "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_hot_modules_are_compiled() -> None:
    """`make install` built every hot module, and this process runs the extensions."""
    for name in compiled.HOT_MODULES:
        importlib.import_module(name)
    built = compiled.compiled_modules()
    if not built and not shutil.which(sysconfig.get_config_var("CC").split()[0]):
        pytest.skip("no C compiler: Coven runs from source")
    assert built == sorted(compiled.HOT_MODULES), "run `make install` to (re)build the compiled hot path"


def test_compiled_and_pure_searches_are_identical() -> None:
    """Same seed and cap: the compiled search visits every root move as often as the source's."""
    compiled_runs = searches()
    pure_runs = json.loads(run_pure(
        "import json; from tests.test_compiled import searches; print(json.dumps(searches()))"))
    assert pure_runs.pop("compiled") == []
    compiled_runs.pop("compiled")
    assert pure_runs.keys() == compiled_runs.keys()
    for case, expected in compiled_runs.items():
        assert pure_runs[case] == expected, case


def test_a_stale_extension_is_not_imported(tmp_path: Path) -> None:
    """A source edited after its build runs from source, with a warning, never the old extension."""
    package = tmp_path / "engine" / "stalegame"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    source = package / "hot.py"
    source.write_text("WHERE = 'source'\n")
    extension = package / ("hot" + sysconfig.get_config_var("EXT_SUFFIX"))
    extension.write_bytes(b"")  # the 'old build': found by name, never loaded
    os.utime(extension, (1_000_000, 1_000_000))
    finder = compiled.SourceWhenStale()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spec = finder.find_spec("engine.stalegame.hot", [str(package)])
    assert spec is not None and spec.origin == str(source)
    assert "changed since it was compiled" in str(caught[0].message)
    os.utime(extension, None)  # newer than the source again: the usual finders import it
    assert finder.find_spec("engine.stalegame.hot", [str(package)]) is None


def test_the_switch_runs_everything_from_source() -> None:
    """`COVEN_PURE_PYTHON=1`: no module of ours is an extension, so the source path stays tested."""
    out = run_pure(
        "from engine import all_games; import ai.search\n"
        "from engine.compiled import compiled_modules; print(ai.search.__file__, compiled_modules())")
    assert out.split() == [str(ROOT / "ai" / "search.py"), "[]"]
