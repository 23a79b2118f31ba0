"""Game-agnostic bots: information-set MCTS over the engine protocol, bot levels, arena, bench."""
