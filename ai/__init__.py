"""Game-agnostic bots: information-set MCTS over the engine protocol, bot levels, arena, bench."""

from engine import compiled

compiled.install()  # `ai.search` may be imported before `engine`: the switch must be in place first
