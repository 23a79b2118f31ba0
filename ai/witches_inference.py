"""The Witches' Wheel's decisions of players of known styles, with the hand each was made from: the
training data of the styles that weigh samples by the other seats' choices (`engine.witches.inference`).

Two players, each game played like an arena game (`ai.arena.play_game`: chance from the game's seed,
the default wheel side), both seats of one style: the same search (the exact endgame on, as `hard`
plays it), or the simple hand-written player (`engine.witches.policy`); every play (W7) and trump
decision (W11) is one JSON line. `fit` finds each style's softmax weights by maximum likelihood and
writes them as a module.

    python -m ai.witches_inference generate 3000 300 search.jsonl --seed infer-train
    python -m ai.witches_inference generate 0 1500 simple.jsonl --seed infer-simple --player simple
    python -m ai.witches_inference fit engine/witches/inference_weights.py search=search.jsonl heuristic=simple.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from ai.arena import play_game
from ai.levels import Level
from ai.play import choose_move
from engine.core import AnyGame, Move, Seat, State
from engine.witches import GAME
from engine.witches.cards import cards_of
from engine.witches.inference import (
    PLAY_FEATURES,
    TRUMP_FEATURES,
    draw_tricks,
    play_features,
    trump_features,
)
from engine.witches.moves import Play, Trump
from engine.witches.policy import policy_move
from engine.witches.state import DECIDE, PLAY, WitchesState


def game_decisions(simulations: int, seed: str, player: str = "search") -> Iterator[dict[str, Any]]:
    """Every decision of one 2-player game between two players of one style: "search" (searches of
    `simulations`, exact endgame) or "simple" (the simple hand-written player, `policy_move`)."""
    level = Level("self-play", simulations, 0.0, "", exact=True)
    rows: list[dict[str, Any]] = []

    def search_and_log(game: AnyGame, state: State, seat: Seat, rng: random.Random) -> Move:
        assert isinstance(state, WitchesState)
        move: Move = policy_move(state, rng) if player == "simple" else choose_move(game, state, seat, level, rng)
        hand = cards_of(state.hands[seat])
        if state.phase == PLAY:
            assert isinstance(move, Play)
            rows.append({"kind": "play", "trump": state.trump, "increasing": state.increasing,
                         "table": list(state.trick), "late": len(state.tricks) >= draw_tricks(state.n),
                         "hand": hand, "chosen": move.card})
        elif state.phase == DECIDE:
            rows.append({"kind": "trump", "trump": state.trump, "increasing": state.increasing,
                         "table": cards_of(state.won), "late": False, "hand": hand,
                         "chosen": move.card if isinstance(move, Trump) else -1})
        return move

    play_game(GAME, (search_and_log, search_and_log), seed)
    yield from rows


def options_of(row: dict[str, Any]) -> tuple[list[list[float]], int]:
    """The features of each option of a logged decision, and the index of the one chosen."""
    hand = row["hand"]
    if row["kind"] == "play":
        options = hand
        table = tuple(row["table"])
        features = [play_features(row["trump"], row["increasing"], table, row["late"], hand, c) for c in options]
    else:
        options = [-1, *row["table"]]
        features = [trump_features(row["trump"], row["increasing"], hand, c) for c in options]
    return features, options.index(row["chosen"])


def fit(rows: Sequence[dict[str, Any]], kind: str, ridge: float = 1e-3, steps: int = 3000) -> list[float]:
    """Softmax weights of one kind of decision ("play" or "trump") by maximum likelihood (Adam,
    full batch, a small ridge penalty); decisions with one option say nothing and are skipped."""
    import numpy as np

    x, mask, y = _tensors(rows, kind)
    w = np.zeros(x.shape[2])
    first, second = np.zeros_like(w), np.zeros_like(w)
    for t in range(1, steps + 1):
        p = _probabilities(x, mask, w)
        gradient = (x[np.arange(len(y)), y] - (p[..., None] * x).sum(1)).mean(0) - ridge * w
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient ** 2
        w += 0.05 * (first / (1 - 0.9 ** t)) / (np.sqrt(second / (1 - 0.999 ** t)) + 1e-8)
    return [float(v) for v in w]


def mean_log_likelihood(rows: Sequence[dict[str, Any]], kind: str, weights: Sequence[float]) -> float:
    """The mean log-probability the weights give the decisions made (0 weights: uniform)."""
    import numpy as np

    x, mask, y = _tensors(rows, kind)
    p = _probabilities(x, mask, np.array(weights))
    return float(np.log(p[np.arange(len(y)), y]).mean())


def _tensors(rows: Sequence[dict[str, Any]], kind: str) -> tuple[Any, Any, Any]:
    import numpy as np

    width = len(PLAY_FEATURES if kind == "play" else TRUMP_FEATURES)
    xs, masks, ys = [], [], []
    for row in rows:
        if row["kind"] != kind or not row["hand"]:
            continue
        features, chosen = options_of(row)
        if len(features) < 2:
            continue
        pad = 6 - len(features)
        xs.append(features + [[0.0] * width] * pad)
        masks.append([True] * len(features) + [False] * pad)
        ys.append(chosen)
    return np.array(xs), np.array(masks), np.array(ys)


def _probabilities(x: Any, mask: Any, w: Any) -> Any:
    import numpy as np

    z = np.where(mask, x @ w, -np.inf)
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def write_weights(styles: dict[str, tuple[float, Sequence[float], Sequence[float]]], path: str, note: str) -> None:
    """Write the weights module (`engine.witches.inference_weights`): each style's prior, play
    weights and trump decisions' weights."""
    lines = [
        '"""The styles of play that samples are weighed by (`engine.witches.inference`): data, written by',
        f'`python -m ai.witches_inference fit` ({note})."""',
        "",
        "#: Each style: its prior, its play weights (`PLAY_FEATURES`' order), then its trump decisions'",
        "#: weights (`TRUMP_FEATURES`' order).",
        "STYLE_WEIGHTS: dict[str, tuple[float, tuple[float, ...], tuple[float, ...]]] = {",
    ]
    for name, (prior, play, trump) in styles.items():
        lines += [
            f"    {name!r}: (",
            f"        {prior!r},",
            "        (",
            *(f"            {w!r},  # {feature}" for w, feature in zip(play, PLAY_FEATURES, strict=True)),
            "        ),",
            "        (",
            *(f"            {w!r},  # {feature}" for w, feature in zip(trump, TRUMP_FEATURES, strict=True)),
            "        ),",
            "    ),",
        ]
    lines += ["}", ""]
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines))


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: `generate` the decisions of self-play, or `fit` the weights to them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate")
    generate.add_argument("simulations", type=int)
    generate.add_argument("games", type=int)
    generate.add_argument("out")
    generate.add_argument("--seed", default="infer-train")
    generate.add_argument("--player", choices=("search", "simple"), default="search",
                          help="whose decisions: self-play searches, or the simple hand-written player")
    fitting = commands.add_parser("fit")
    fitting.add_argument("out")
    fitting.add_argument("styles", nargs="+", metavar="NAME=DECISIONS",
                         help="a style and the decisions it is fitted to (its prior: one over the styles)")
    fitting.add_argument("--held-out", type=float, default=0.2, help="the last share of decisions, for the score")
    args = parser.parse_args(argv)
    if args.command == "generate":
        with open(args.out, "a", encoding="utf-8") as out:
            for i in range(args.games):
                for row in game_decisions(args.simulations, f"{args.seed}:{i}", args.player):
                    out.write(json.dumps(row) + "\n")
                out.flush()
        return
    styles: dict[str, tuple[float, Sequence[float], Sequence[float]]] = {}
    notes = []
    for spec in args.styles:
        name, _, path = spec.partition("=")
        with open(path, encoding="utf-8") as lines:
            rows = [json.loads(line) for line in lines]
        cut = int(len(rows) * (1 - args.held_out))
        for kind, width in (("play", len(PLAY_FEATURES)), ("trump", len(TRUMP_FEATURES))):
            held = mean_log_likelihood(rows[cut:], kind, fit(rows[:cut], kind))
            print(f"{name} {kind}: held-out log-likelihood {held:.4f} a decision "
                  f"(uniform: {mean_log_likelihood(rows[cut:], kind, [0.0] * width):.4f})")
        styles[name] = (1 / len(args.styles), fit(rows, "play"), fit(rows, "trump"))
        notes.append(f"{name}: {len(rows)} decisions of {path}")
    write_weights(styles, args.out, "; ".join(notes))


if __name__ == "__main__":
    main()
