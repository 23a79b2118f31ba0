"""Bot strength over hundreds of two-player games per registered game (`make strength`, slow).

Each check plays level a against level b, seats alternating, and prints the
win rate with its Wilson 95% interval so the figures can be copied to notes.
A shared win counts as half. The checks are test data: a game whose results
are mostly luck gets its own row below, never a branch in the engine or the bot.

`STRENGTH_GAMES=40 make strength` runs shorter (informal) matches. With `STRENGTH_RESULTS` naming a
file (`make strength` names `bench/results/strength.json`), each check's row is recorded there with
its date and commit (`bench.strength`), and the docs' strength page shows it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from ai.arena import MatchResult, Policy, paired_difference, play_match, print_progress
from ai.ladder import participants
from ai.levels import LEVELS, Level, get_level
from engine import all_games, get_game


@dataclass(frozen=True)
class Check:
    """Level a must beat level b: its win rate (or the interval's lower bound) above `threshold`."""

    a: str
    b: str
    games: int
    threshold: float
    on: str = "rate"  # "rate": the observed win rate; "lower": the 95% interval's lower bound


DEFAULT = (
    Check("hard", "random", 200, 0.95),
    Check("hard", "easy", 200, 0.60),
)

#: Per-game checks replacing DEFAULT, keyed by game id.
CHECKS: dict[str, tuple[Check, ...]] = {
    # The Magic Cube is mostly luck (dexterity simulated by chance): the bot only
    # has to beat random play with the whole interval above 52%. Its edge is about
    # 3 points (easy 0.529 over 3,000 games, medium 0.531 over 1,000), so it takes
    # ~20,000 games (about 4 minutes on 2 cores at easy) to show it.
    # Against the careful hand policy (issue 15: at least as good, head to head) hard
    # plays untimed, so the games are the same on any machine: 0.502 (0.454-0.551) over
    # 400 games with the careful player's moves tried first and in the playouts.
    "cube": (Check("easy", "random", 20000, 0.52, on="lower"),
             Check("hard", "careful", 400, 0.50)),
    # The Enchanters' Gathering is a race to 15 points with hidden draws: random play
    # still gathers on about half its turns, and against the greedy policy it wins one game
    # in twenty by the special victory alone. Against random moves, the search's greedy
    # playout policy alone wins 0.849 (4,000 games), a cheat that also sees the face-down
    # table cards 0.911 (3,000), and a cheat that sees every hidden card and tries each
    # move with 30 playouts 0.916 (0.897-0.932, 1,000 games). No bot we built, fair or not,
    # reaches 0.95, so hard is held to 0.80 against random here. Issue 35: every step of the ladder
    # at least +150 Elo (0.70 for the upper level, 400 games) and hard >= 0.75 against easy; the
    # levels are parted by blunders (ai.levels.GAME_LEVELS, docs/bots/index.md).
    "enchanters": (Check("hard", "random", 200, 0.80), Check("medium", "easy", 400, 0.70),
                   Check("hard", "medium", 400, 0.70), Check("hard", "easy", 400, 0.75)),
    # Issue 35: every step of the ladder at least +150 Elo (0.70 for the upper level, 400 games).
    "witches": (Check("hard", "random", 200, 0.95), Check("medium", "easy", 400, 0.70),
                Check("hard", "medium", 400, 0.70)),
}

#: Issue 35: witches `hard` against test opponents of its own (tests/witches_opponents.py), 2 players.
OPPONENT_CHECKS = (
    Check("hard", "strong", 400, 0.95),
    Check("hard", "pimc", 400, 0.60),
)

@dataclass(frozen=True)
class OpenSpielCheck:
    """A Coven level against OpenSpiel's Python ISMCTSBot at `simulations` each (witches, 2 players)."""

    level: str
    simulations: int
    games: int
    threshold: float


#: Issue 35: hard (3,000 simulations) >= 0.80; issue 15: 1,000 against 1,000 >= 0.60.
OPENSPIEL_CHECKS = (
    OpenSpielCheck("hard", 3000, 200, 0.80),
    OpenSpielCheck("medium", 1000, 200, 0.60),
)

def _record(key: str, game_id: str, a: str, b: str, result: MatchResult, seed: str, target: str,
            met: bool, note: str = "") -> None:
    """Record the check's row when `STRENGTH_RESULTS` names the results file (see the module)."""
    path = os.environ.get("STRENGTH_RESULTS")
    if path:
        from bench.strength import record, row  # the results file's format: only when recording

        record(Path(path), key, row(game_id, a, b, result, seed, target, met, note))


CASES = [
    (game.info.id, check)
    for game in all_games()
    for check in CHECKS.get(game.info.id, DEFAULT)
]


@pytest.mark.slow
@pytest.mark.timeout(0)
@pytest.mark.parametrize(("game_id", "check"), CASES, ids=[f"{g}-{c.a}-vs-{c.b}" for g, c in CASES])
def test_bot_beats_weaker_level(game_id: str, check: Check) -> None:
    games = int(os.environ.get("STRENGTH_GAMES", check.games))
    # levels untimed, as the ladder plays them; a row against a hand-written policy has its own seed
    players = participants(get_game(game_id))
    seed = f"strength:{game_id}" if check.b in LEVELS else f"strength:{game_id}:{check.b}"
    result = play_match(game_id, players[check.a], players[check.b], games, seed=seed,
                        players=2, processes=2, progress=print_progress())
    low, high = result.interval()
    print(f"\n{game_id} 2p {check.a} vs {check.b}: {result.summary()}")
    measured = result.rate if check.on == "rate" else low
    _record(f"{game_id}-{check.a}-vs-{check.b}", game_id, check.a, check.b, result, seed,
            f"{'rate' if check.on == 'rate' else 'lower bound'} ≥ {check.threshold:.2f}",
            measured >= check.threshold)
    assert measured >= check.threshold, (
        f"{check.a} vs {check.b}: {check.on} {measured:.3f} below {check.threshold}"
    )


@pytest.mark.slow
@pytest.mark.timeout(0)
@pytest.mark.parametrize("check", OPENSPIEL_CHECKS, ids=[f"witches-{c.level}-vs-openspiel-{c.simulations}"
                                                         for c in OPENSPIEL_CHECKS])
def test_bot_beats_openspiel_ismcts(check: OpenSpielCheck) -> None:
    from ai.openspiel import OpenSpielPolicy

    level = get_level(check.level, "witches")
    # equal simulations: the time cap is lifted so a loaded machine cannot cut Coven's search short
    coven = dataclasses.replace(level, iterations=check.simulations, seconds=0.0)
    games = int(os.environ.get("STRENGTH_GAMES", check.games))
    result = play_match("witches", coven, OpenSpielPolicy(check.simulations), games,
                        seed="strength:openspiel", players=2, processes=2, progress=print_progress())
    low, high = result.interval()
    print(f"\nwitches 2p {check.level}@{check.simulations} vs OpenSpiel ISMCTS@{check.simulations}: "
          f"{result.summary()}")
    _record(f"witches-{check.level}-vs-openspiel-{check.simulations}", "witches",
            f"{check.level} at {check.simulations:,}", f"OpenSpiel ISMCTS at {check.simulations:,}", result,
            "strength:openspiel", f"rate ≥ {check.threshold:.2f}", result.rate >= check.threshold)
    assert result.rate >= check.threshold


@pytest.mark.slow
@pytest.mark.timeout(0)
@pytest.mark.parametrize("check", OPPONENT_CHECKS, ids=[f"witches-{c.a}-vs-{c.b}" for c in OPPONENT_CHECKS])
def test_witches_hard_beats_test_opponents(check: Check) -> None:
    from tests.witches_opponents import PIMC, strong_player

    opponents: dict[str, Policy] = {"strong": strong_player, "pimc": PIMC}
    games = int(os.environ.get("STRENGTH_GAMES", check.games))
    seed = f"strength:witches:{check.b}"
    result = play_match("witches", participants(get_game("witches"))[check.a], opponents[check.b], games,
                        seed=seed, players=2, processes=2, progress=print_progress())
    print(f"\nwitches 2p {check.a} vs {check.b}: {result.summary()}")
    _record(f"witches-{check.a}-vs-{check.b}", "witches", check.a, check.b, result, seed,
            f"rate ≥ {check.threshold:.2f}", result.rate >= check.threshold)
    assert result.rate >= check.threshold


#: Issue 35, item 5: expectimax over the die (ai.expectimax) at depth 3, 30,000 careful playouts a
#: move shared between its leaves (about 1 s of CPU), against the careful player. Its edge is
#: measured paired with careful against careful on the same seeds (the luck of the die cancels);
#: it is small (docs/bots/strength.md), so the check is that the search is no worse than the policy
#: it values its leaves with: the paired edge's 95% interval reaches zero or above.
CUBE_EXPECTIMAX = Level("expectimax", 30000, 0.0, "", method="expectimax", depth=3)


@pytest.mark.slow
@pytest.mark.timeout(0)
def test_cube_expectimax_edge_over_careful() -> None:
    careful = participants(get_game("cube"))["careful"]
    games = int(os.environ.get("STRENGTH_GAMES", 400))
    seed = "strength:cube:expectimax"
    result = play_match("cube", CUBE_EXPECTIMAX, careful, games, seed=seed, players=2, processes=2,
                        progress=print_progress())
    baseline = play_match("cube", careful, careful, games, seed=seed, players=2, processes=2)
    edge, low, high = paired_difference(result.scores, baseline.scores)
    print(f"\ncube 2p expectimax (depth 3, 30,000 playouts) vs careful: {result.summary()}; "
          f"careful vs careful on the same seeds {baseline.rate:.3f}; paired edge {edge:+.3f} "
          f"(95% CI {low:+.3f} to {high:+.3f})")
    _record("cube-expectimax-vs-careful", "cube", "expectimax (depth 3, 30,000 playouts)", "careful", result,
            seed, "paired edge's interval reaches 0", high >= 0.0,
            f"careful vs careful on the same seeds {baseline.rate:.3f}; paired edge {edge:+.3f} "
            f"({low:+.3f} … {high:+.3f})")
    assert high >= 0.0
