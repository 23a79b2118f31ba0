"""`coven`: run a bot (`choose(view) -> move`) against a Coven server.

    coven play  --bot mybot.py --game witches --level easy --matches 10
    coven join  --bot mybot.py --game witches --matches 3
    coven rate  --bot mybot.py --game witches --per-level 20
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from coven.bot import join_open, load_bot, play_levels, rate_bot, score_of
from coven.session import Session


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="coven", description=__doc__.split("\n")[0])
    parser.add_argument("--server", default=os.environ.get("COVEN_URL", "http://localhost:8000"),
                        help="the server's base URL (default: $COVEN_URL or http://localhost:8000)")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play N matches against a server level")
    join = commands.add_parser("join", help="take open seats of public matches")
    rate = commands.add_parser("rate", help="play every rated level and print the bot's Elo")
    for command in (play, join, rate):
        command.add_argument("--bot", required=True,
                             help="module:function or file.py[:function] (default function: choose)")
        command.add_argument("--game", required=command is not join, help="witches, cube or enchanters")
    play.add_argument("--level", default="easy")
    play.add_argument("--matches", type=int, default=1)
    play.add_argument("--players", type=int, default=2)
    join.add_argument("--matches", type=int, default=1)
    join.add_argument("--wait", type=float, default=60.0, help="seconds to wait for an open seat")
    rate.add_argument("--per-level", type=int, default=20, help="matches against each rated level")
    rate.add_argument("--levels", help="only these levels, comma-separated (default: every rated one)")
    args = parser.parse_args(argv)
    choose = load_bot(args.bot)
    with Session(args.server) as session:
        if args.command == "play":
            finals = play_levels(session, args.game, choose, args.level, args.matches, args.players)
            print(f"score {sum(map(score_of, finals)):g} of {len(finals)}")
        elif args.command == "join":
            finals = join_open(session, args.game, choose, args.matches, args.wait)
            print(f"played {len(finals)}, score {sum(map(score_of, finals)):g}")
        else:
            levels = args.levels.split(",") if args.levels else None
            print(f"{args.game}: {rate_bot(session, args.game, choose, args.per_level, levels)}")


if __name__ == "__main__":
    main()
