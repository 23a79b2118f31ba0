"""Server-Sent Events, line by line (the WHATWG parsing rules the server's streams need)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Event:
    event: str
    data: str
    id: str | None


@dataclass
class EventParser:
    """Feed it the stream's lines; it returns an event at each blank line that ends one."""

    _event: str = ""
    _data: list[str] = field(default_factory=list)
    _id: str | None = None

    def feed(self, line: str) -> Event | None:
        if not line:
            if not self._data and not self._event:
                return None
            done = Event(self._event or "message", "\n".join(self._data), self._id)
            self._event, self._data = "", []
            return done
        if line.startswith(":"):
            return None  # a keep-alive comment
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id":
            self._id = value
        return None
