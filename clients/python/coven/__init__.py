"""The official Python client of the Coven game server.

    from coven import Session
    with Session("http://localhost:8000") as coven:
        match = coven.play_against("witches", level="easy")
        final = match.play_with(lambda view: view["legal_moves"][0])
"""

from coven.errors import (
    Conflict,
    CovenError,
    Forbidden,
    IllegalMove,
    NotFound,
    Problem,
    RateLimited,
    Unauthorized,
)
from coven.models import MatchSummary, MatchView, Move, Outcome, SeatView
from coven.session import AsyncMatch, AsyncSession, Match, Session

__all__ = [
    "AsyncMatch", "AsyncSession", "Conflict", "CovenError", "Forbidden", "IllegalMove", "Match",
    "MatchSummary", "MatchView", "Move", "NotFound", "Outcome", "Problem", "RateLimited", "SeatView",
    "Session", "Unauthorized",
]
__version__ = "1.0.0"
