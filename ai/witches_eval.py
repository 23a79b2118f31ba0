"""Positions of The Witches' Wheel from games between decent players, labelled with the game's result:
the training data of the learned evaluation (`engine.witches.evaluation`).

Two players, each game played like an arena game (`ai.arena.play_game`: chance from the game's
seed), and every trick start after the deal (a seat to lead, the draws done) written as one JSON
line: the full state and seat 0's final reward (`rules.returns`). Labels are final results, not
playouts: what random playouts would say of a position is what the search already knows.

    python -m ai.witches_eval generate medium 3000 positions.jsonl --seed witches-eval
    python -m ai.witches_eval fit positions.jsonl engine/witches/evaluation_weights.py
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator, Sequence

from ai.arena import play_game
from ai.levels import get_level
from engine.core import State
from engine.witches import GAME
from engine.witches.evaluation import FEATURES, evaluate, features
from engine.witches.rules import returns
from engine.witches.state import PLAY, WitchesState

#: One game in this many is played on the increasing side of the wheel (W2).
INCREASING_EVERY = 4


def game_positions(level: str, seed: str, increasing: bool) -> Iterator[dict[str, object]]:
    """Every trick start of one 2-player game between two `level` bots, with seat 0's final reward."""
    seen: list[WitchesState] = []

    def keep(state: State) -> None:
        assert isinstance(state, WitchesState)
        seen.append(state.clone())

    play_game(GAME, (level, level), seed, {"wheel": "increasing" if increasing else "decreasing"}, on_state=keep)
    reward = returns(seen[-1])[0]
    starts = [s for s in seen if s.phase == PLAY and not s.trick]
    for s in starts:
        yield {"hands": s.hands, "pile": s.pile, "captured": s.captured, "discard": s.discard,
               "trump": s.trump, "leader": s.leader, "increasing": s.increasing, "reward": reward}


def position_state(row: dict[str, object]) -> WitchesState:
    """The trick start a JSON line describes (`game_positions`)."""
    s = WitchesState.initial(2, bool(row["increasing"]))
    s.hands = list(row["hands"])  # type: ignore[call-overload]
    s.captured = list(row["captured"])  # type: ignore[call-overload]
    s.pile = int(row["pile"])  # type: ignore[call-overload]
    s.discard = int(row["discard"])  # type: ignore[call-overload]
    s.trump = int(row["trump"])  # type: ignore[call-overload]
    s.turn = s.leader = int(row["leader"])  # type: ignore[call-overload]
    s.pending = 0
    s.phase = PLAY
    return s



def fit(rows: Sequence[dict[str, object]], ridge: float = 1.0, rounds: int = 30) -> list[float]:
    """Logistic regression of each position's final reward on its features (soft labels, no
    constant: see `engine.witches.evaluation`), by Newton's method with a small ridge penalty."""
    import numpy as np

    x = np.array([features(position_state(row)) for row in rows])
    y = np.array([float(row["reward"]) for row in rows])  # type: ignore[arg-type]
    w = np.zeros(x.shape[1])
    for _ in range(rounds):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        gradient = x.T @ (p - y) + ridge * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge * np.eye(len(w))
        w -= np.linalg.solve(hessian, gradient)
    return [float(v) for v in w]


def log_loss(rows: Sequence[dict[str, object]], weights: Sequence[float]) -> float:
    """Mean cross-entropy of the evaluation against the positions' final rewards."""
    total = 0.0
    for row in rows:
        p = min(max(evaluate(position_state(row), tuple(weights))[0], 1e-9), 1 - 1e-9)
        y = float(row["reward"])  # type: ignore[arg-type]
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(rows)


def write_weights(weights: Sequence[float], path: str, note: str) -> None:
    """Write the weights module (`engine.witches.evaluation_weights`)."""
    lines = [
        '"""The weights of the learned evaluation (`engine.witches.evaluation`), one per feature: data,',
        f'written by `python -m ai.witches_eval fit` ({note})."""',
        "",
        "WEIGHTS: tuple[float, ...] = (",
        *(f"    {w!r},  # {name}" for w, name in zip(weights, FEATURES, strict=True)),
        ")",
        "",
    ]
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: `generate` positions of a level against itself, or `fit` the weights to them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate")
    generate.add_argument("level")
    generate.add_argument("games", type=int)
    generate.add_argument("out")
    generate.add_argument("--seed", default="witches-eval")
    fitting = commands.add_parser("fit")
    fitting.add_argument("positions")
    fitting.add_argument("out")
    fitting.add_argument("--held-out", type=float, default=0.2, help="the last share of positions, for the loss")
    args = parser.parse_args(argv)
    if args.command == "generate":
        get_level(args.level, "witches")
        with open(args.out, "a", encoding="utf-8") as out:
            for i in range(args.games):
                for row in game_positions(args.level, f"{args.seed}:{i}", i % INCREASING_EVERY == 0):
                    out.write(json.dumps(row) + "\n")
                out.flush()
        return
    with open(args.positions, encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    cut = int(len(rows) * (1 - args.held_out))
    weights = fit(rows[:cut])
    print(f"{len(rows)} positions; held-out log loss {log_loss(rows[cut:], weights):.4f} "
          f"(all weights 0: {log_loss(rows[cut:], [0.0] * len(FEATURES)):.4f})")
    write_weights(fit(rows), args.out, f"{len(rows)} positions of {args.positions}")


if __name__ == "__main__":
    main()
