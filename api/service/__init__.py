"""The match service, by concern.

- `commands`     MatchService: load a match (and the caller's seat), create, join, play,
                 bot turns, resign, leave, cancel, rematch — every change a compare-and-set
                 transaction
- `clocks`       turn clocks: deadlines by Redis time, the cost of a move, each seat's time left
- `presentation` what callers see (view, view at a version, legal moves, log, listing) as objects
                 the schemas dump
- `rendering`    a match view as its JSON body, the part a version fixes kept per process (LRU)
- `streams`      long-poll and the Server-Sent Events stream
- `analysis`     analysis requests for players (run by `api.jobs.analysis` on the bot workers)
- `model`        Loaded (record + game + state) and Caller (plus the caller's seat)
- `errors`       the service's errors, each with its HTTP status
- `tokens`       seat tokens
"""

from api.service.commands import MatchService
from api.service.model import Caller, Loaded

__all__ = ["Caller", "Loaded", "MatchService"]
