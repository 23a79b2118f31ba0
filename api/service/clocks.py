"""Turn clocks: when the seat to act must have moved, what each seat has left, what a move costs.

Times are Redis's clock (`Store.now`), so every web process and worker agrees
on them. A clock runs only for a human seat that plays itself, in a running
match; bots and taken-over seats think on their level's budget instead.

- `{"move_seconds": s}`: every move within s seconds.
- `{"bank_seconds": b, "increment_seconds": i}`: b seconds for the whole
  match, i more after each move (a move made for the seat on a timeout too).
"""

from __future__ import annotations

from api.store.records import MatchRecord, MatchStatus, SeatRecord, Takeover

#: Turns in a row that run out of time before the takeover bot keeps the seat for good.
TIMEOUTS_FOR_TAKEOVER = 3


def is_clocked(record: MatchRecord, seat: int | None) -> bool:
    """True when `seat` plays on a clock now: a clocked, running match, a human playing themself."""
    if record.clock is None or record.status != MatchStatus.ACTIVE or seat is None:
        return False
    return not record.seats[seat].played_by_bot


def allowance(record: MatchRecord, seat: SeatRecord) -> float:
    """The seconds a seat has for the move it starts now."""
    assert record.clock is not None
    if "move_seconds" in record.clock:
        return float(record.clock["move_seconds"])
    return max(0.0, seat.bank if seat.bank is not None else float(record.clock["bank_seconds"]))


def start_turn(record: MatchRecord, to_act: int | None, now: float) -> None:
    """Start the clock of the seat to act (or stop every clock when no clocked seat is to act)."""
    if is_clocked(record, to_act):
        assert to_act is not None
        record.turn_started = now
        record.deadline = now + allowance(record, record.seats[to_act])
    else:
        record.turn_started = record.deadline = None


def charge(record: MatchRecord, seat: int, now: float) -> None:
    """Take the time a seat's move took from its bank and add the increment (bank clocks only)."""
    if record.clock is None or "bank_seconds" not in record.clock or record.turn_started is None:
        return
    held = record.seats[seat]
    left = allowance(record, held) - max(0.0, now - record.turn_started)
    held.bank = round(max(0.0, left) + float(record.clock.get("increment_seconds", 0)), 3)


def after_move(record: MatchRecord, mover: int | None, now: float, timeout: bool) -> None:
    """Keep the mover's clock after a move: its time is charged, and a move made for it on a
    timeout counted (three in a row and the takeover bot keeps the seat), or the count reset."""
    if mover is None or not is_clocked(record, mover):
        return
    charge(record, mover, now)
    held = record.seats[mover]
    if not timeout:
        held.timeouts = 0
        return
    record.timeout_moves.append(record.history_length)
    held.timeouts += 1
    if held.timeouts >= TIMEOUTS_FOR_TAKEOVER:
        record.hand_to_bot(mover, Takeover.TIMEOUTS)


def remaining(record: MatchRecord, to_act: int | None, now: float) -> list[float | None]:
    """Seconds each seat has left for its next (or current) move; None for seats without a clock."""
    if record.clock is None:
        return [None] * len(record.seats)
    left: list[float | None] = []
    for index, seat in enumerate(record.seats):
        if seat.played_by_bot:
            left.append(None)
        elif index == to_act and record.deadline is not None:
            left.append(round(max(0.0, record.deadline - now), 3))
        else:
            left.append(round(allowance(record, seat), 3))
    return left
