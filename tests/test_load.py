"""A level plays its budget whatever the load: its cap is the search's CPU time, never wall time.

Each game's `hard` searches two positions idle, then again with a cap of 2.5 times the CPU time
the idle searches took, while two busy-loop processes started here share the one core this test
is pinned to: every wall-clock second then holds about a third of a CPU second, so a wall-clock cap
would cut the searches short. The moves and simulation counts must be those of the idle machine.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ai.levels import get_level
from ai.play import METHODS
from engine import all_games
from engine.core import Game
from tests.test_search import decision_states, spread

#: Busy loops sharing the core: the search then gets a third of its wall-clock time at most.
SPINNERS = 2
#: The loaded searches' CPU cap, in multiples of the CPU time the idle ones took: above what a
#: shared cache costs, below the wall-clock stretch of sharing the core with SPINNERS busy loops.
CAP = 2.5



@contextmanager
def busy_core() -> Iterator[None]:
    """Pin this thread to one core and saturate that core with busy-loop processes meanwhile."""
    before = os.sched_getaffinity(0)
    core = {min(before)}
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(SPINNERS)]
    try:
        for spinner in spinners:
            os.sched_setaffinity(spinner.pid, core)
        os.sched_setaffinity(0, core)
        yield
    finally:
        os.sched_setaffinity(0, before)
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def searched(game: Game, seconds: float) -> list[tuple[object, int, float]]:
    """Move, simulations and CPU seconds of `hard`'s method and simulations (capped at `seconds` of
    CPU) at two decisions of a 2-player game."""
    level = get_level("hard", game.info.id)
    out = []
    for state, seat in spread(list(decision_states(game, 2, 11)), 4)[1:3]:
        started = time.thread_time()  # measured here, whatever clock the search caps
        found = METHODS[level.method](game, state, seat, random.Random(5), level.iterations, seconds)
        out.append((found.move, found.iterations, time.thread_time() - started))
    return out


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.info.id)
def test_a_loaded_machine_plays_the_same_moves_as_an_idle_one(game: Game) -> None:
    idle = searched(game, 600.0)
    # a cap the idle searches stayed well inside, but that a third of a core's wall time would overrun
    cap = CAP * max(cpu for _, _, cpu in idle)
    expected = [(move, iterations) for move, iterations, _ in idle]
    for _attempt in range(2):  # a shared host can stretch CPU time once; a wall-clock cap fails every time
        with busy_core():
            loaded = [(move, iterations) for move, iterations, _ in searched(game, cap)]
        if loaded == expected:
            break
    assert loaded == expected
