"""What this process read of each match in the last second: the base a move is decided on.

A client reads its view, then moves: the move's request would read the match again, one
more Redis round trip and decode for what this process saw a moment ago. A read kept here
(the stored record's bytes and the presence read with it) serves as the base of a move
instead. It is never trusted: the compare-and-set script writes only if the match is still
at the version read, and whatever a move is refused for on a kept read is decided again on
a fresh one (`MatchService.play`). Kept for PRESENCE_SECONDS, the precision presence is
shown at, so a move's answer shows nobody's presence older than a fresh read would.
"""

from __future__ import annotations

import threading

from cachetools import TTLCache

from api.service.model import Presence

#: Matches one process keeps its latest read of.
ENTRIES = 4096


class RecentReads:
    """The latest read of each match this process made (bytes as stored, presence), for `seconds`."""

    def __init__(self, seconds: float, entries: int = ENTRIES):
        self.seconds = seconds
        self._reads: TTLCache[str, tuple[bytes, Presence]] = TTLCache(maxsize=entries, ttl=seconds)
        self._lock = threading.Lock()  # cachetools' caches are not thread-safe

    def keep(self, match_id: str, stored: bytes | None, presence: Presence | None) -> None:
        """Keep a read of the match (a match of the old format, never rewritten yet, is not kept)."""
        with self._lock:
            if stored is None or presence is None:
                self._reads.pop(match_id, None)
            else:
                self._reads[match_id] = (stored, presence)

    def get(self, match_id: str) -> tuple[bytes, Presence] | None:
        """The match's kept read, if this process made one in the last `seconds`."""
        with self._lock:
            return self._reads.get(match_id)
