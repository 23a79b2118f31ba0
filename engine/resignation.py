"""Outcomes of games in which seats resigned: resigned seats rank last, never win.

Generic over games: the engine's own outcome ranks the seats that played on;
the resigned seats come after them, the earliest to resign last of all.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Outcome, Seat, Termination, ranks_for

RESIGNED = Termination.RESIGNED  # the reason of a game that ended because all but one seat resigned


def with_resignations(outcome: Outcome, resigned: Sequence[Seat]) -> Outcome:
    """`outcome` with the `resigned` seats (in the order they resigned) ranked below every other."""
    if not resigned:
        return outcome
    players = len(outcome.scores)
    ranks = outcome.ranks or ranks_for(outcome.scores)
    playing = [seat for seat in range(players) if seat not in resigned]
    new_ranks = [0] * players
    for seat in playing:
        new_ranks[seat] = 1 + sum(1 for other in playing if ranks[other] < ranks[seat])
    for place, seat in enumerate(reversed(resigned)):
        new_ranks[seat] = len(playing) + 1 + place
    winners = tuple(seat for seat in outcome.winners if seat not in resigned)
    if not winners:
        winners = tuple(seat for seat in playing if new_ranks[seat] == 1)
    return Outcome(outcome.scores, winners, outcome.reason, tuple(new_ranks))


def by_resignation(players: int, resigned: Sequence[Seat]) -> Outcome:
    """The outcome when every seat but one resigned: that seat wins (score 1, the others 0)."""
    winners = tuple(seat for seat in range(players) if seat not in resigned)
    scores = tuple(1.0 if seat in winners else 0.0 for seat in range(players))
    base = Outcome(scores, winners, RESIGNED, ranks_for(scores))
    return with_resignations(base, resigned)
