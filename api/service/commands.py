"""The match service: the one code path that creates and changes matches.

HTTP views and the bot job both call it; nothing else writes a match. Each
change is load → validate → engine.apply → resolve chance with the match's
secret seed → save with compare-and-set on the version → notify waiters →
enqueue a bot turn. The stored state is therefore always at a player decision
or at the end, never at a chance node — except while a match waits for players:
nothing is dealt before every seat is filled (the chance that opens the game is
drawn when the last seat is taken), so no one can read a hand before it is theirs.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any, cast

from redis import Redis
from redis.client import Pipeline
from redis.cluster import RedisCluster

from ai.levels import DEFAULT_LEVEL, LEVELS
from api.runtime import metrics
from api.runtime.config import Config
from api.service import clocks
from api.service.errors import (
    IdempotencyMismatch,
    IllegalMoveError,
    InvalidRequest,
    MatchFull,
    MatchNotFound,
    MatchStateConflict,
    NotCreator,
    NotYourTurn,
    PreconditionFailed,
    ServiceError,
    TimeRanOut,
    Unauthorized,
    VersionConflict,
)
from api.service.model import Caller, Loaded, MoveResult, Presence
from api.service.presentation import replayed_views
from api.service.recent import RecentReads
from api.service.rendering import RenderedViews
from api.service.tokens import hash_token, new_token, seat_of_token
from api.store import storage
from api.store.bot_queue import BotScheduler
from api.store.connections import notification_redis
from api.store.history import entries_for
from api.store.notifications import Notifications
from api.store.records import MatchRecord, MatchStatus, SeatRecord, SeatType, Takeover, Visibility
from api.store.storage import Store
from engine import UnknownGame, get_game, resolve_chance
from engine.core import AnyGame, Move
from engine.errors import IllegalMove, InvalidMove, InvalidOptions

#: Presence is shown to the second: a seat seen less than this long ago is not written again.
PRESENCE_SECONDS = 1.0


def new_seed() -> str:
    """A match's secret seed: 256 bits from the operating system, as hex."""
    return secrets.token_hex(32)


def fingerprint(data: Any) -> str:
    """A digest of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class MatchService:
    """Creates, joins and plays matches, and keeps their bot turns moving."""

    def __init__(self, redis: Redis | RedisCluster, config: Config, queue_redis: Redis | None = None,
                 views: RenderedViews | None = None):
        """`redis` holds the matches (one Redis or a Cluster); `queue_redis` the bot queues
        (a single Redis; None: `redis`, which must then be a single Redis); `views` renders
        the answers of moves (the web's; a job, which answers nobody, has none)."""
        self.redis = redis
        self.config = config
        self.store = Store(redis, self.ttl_for_status)
        queues = queue_redis if queue_redis is not None else redis
        if not isinstance(queues, Redis):
            raise TypeError("RQ needs a single Redis for the bot queues: pass queue_redis")
        self.bots = BotScheduler(queues, self.store, config)
        self._views = views
        #: The match each seat's read of the last second found: the base of a move that follows it.
        self.recent = RecentReads(PRESENCE_SECONDS)
        #: The process's one pub/sub subscription, shared by its waits (connects on first use).
        self.notifications = Notifications(notification_redis(config))

    @property
    def views(self) -> RenderedViews:
        """The version-fixed part of the views this process rendered (bounded)."""
        if self._views is None:
            raise RuntimeError("this MatchService was built without views: only the web renders them")
        return self._views

    def ttl_for_status(self, status: MatchStatus) -> int:
        """How long a match in `status` lives without a change."""
        return {
            MatchStatus.WAITING: self.config.WAITING_TTL_SECONDS,
            MatchStatus.ACTIVE: self.config.IDLE_TTL_SECONDS,
        }.get(status, self.config.MATCH_TTL_SECONDS)

    # reading ------------------------------------------------------------------------------

    def load(self, match_id: str, pipe: Pipeline | None = None) -> Loaded:
        """The match with its decoded state, or MatchNotFound."""
        record = self.store.load(match_id, pipe)
        if record is None:
            raise MatchNotFound(f"no match {match_id!r} (it may have expired)")
        return _decoded(record)

    def look(self, match_id: str) -> Loaded:
        """The match with its presence and the bot's progress, read in one round trip: all a
        view shows (MatchNotFound when there is no such match)."""
        record, seen, bot = self.store.load_for_view(match_id)
        if record is None:
            raise MatchNotFound(f"no match {match_id!r} (it may have expired)")
        loaded = _decoded(record)
        loaded.presence = Presence(seen, bot)
        return loaded

    def look_at(self, match_id: str, version: int) -> Loaded:
        """`look` for a follower told of `version`: this process's read of the last second when it
        is that version (the mover's own save, when the mover is served here), else a read now."""
        kept = self.recent.get(match_id)
        if kept is not None:
            record = MatchRecord.from_stored(match_id, kept[0])
            if record.version == version:
                loaded = _decoded(record)
                loaded.presence = kept[1]
                return loaded
        return self.look(match_id)

    def caller(self, match_id: str, token: str | None) -> Caller:
        """The match and the seat the bearer token holds (None: a spectator; 401 for a wrong token).

        A seat that asks is seen (its `last_seen`)."""
        loaded = self.look(match_id)
        seat = seat_of_token(loaded.record, token)
        loaded.presence = self._saw(match_id, seat, loaded.presence)
        if seat is not None:
            self.recent.keep(match_id, loaded.record.stored, loaded.presence)
        return loaded.seen_by(seat)

    def mover(self, match_id: str, token: str | None) -> Caller:
        """`caller` for a move: from this process's read of the last second when the token holds
        a seat in it (`Caller.kept`: `play` checks it), else read now."""
        kept = self.recent.get(match_id)
        if kept is None or token is None:
            return self.caller(match_id, token)
        record = MatchRecord.from_stored(match_id, kept[0])
        try:
            seat = seat_of_token(record, token)
        except Unauthorized:  # perhaps a seat taken since: a fresh read says
            return self.caller(match_id, token)
        loaded = _decoded(record)
        return Caller(record, loaded.game, loaded.state, seat, presence=kept[1], kept=True)

    def seat_mover(self, match_id: str, seat: int) -> Caller:
        """`mover` for a seat whose token was checked when its channel opened: this process's read
        of the last second (the channel's own, or its last move's), else a read now."""
        kept = self.recent.get(match_id)
        if kept is None:
            return self.look(match_id).seen_by(seat)
        loaded = _decoded(MatchRecord.from_stored(match_id, kept[0]))
        return Caller(loaded.record, loaded.game, loaded.state, seat, presence=kept[1], kept=True)

    # changing ------------------------------------------------------------------------------

    def create(
        self,
        game_id: str,
        seats: list[dict[str, Any]],
        options: dict[str, Any] | None,
        seed: str | None,
        name: str | None = None,
        visibility: Visibility = Visibility.PUBLIC,
        takeover_level: str = DEFAULT_LEVEL,
        clock: dict[str, float] | None = None,
    ) -> tuple[Caller, str | None]:
        """A new match, and the token of the creator's seat (the first human one; None without).

        A client `seed` is used as given only with at most one human seat (a practice match
        against bots, which says `seeded`); with two or more it is refused, since the creator
        could compute the other players' cards from it. It starts at once if no seat is open."""
        try:
            game = get_game(game_id)
        except UnknownGame as error:
            raise InvalidRequest(str(error), errors={"game": [str(error)]}) from None
        try:
            game.validate_players(len(seats))
        except InvalidOptions as error:
            raise InvalidRequest(str(error), errors=error.fields) from None
        try:
            options = game.validate_options(options)
        except InvalidOptions as error:
            raise InvalidRequest(str(error), errors={"options": error.fields}) from None
        records = [
            SeatRecord.bot(seat.get("level")) if seat["type"] == SeatType.BOT else SeatRecord.human()
            for seat in seats
        ]
        for index, seat in enumerate(records):
            if seat.is_bot and seat.bot_level not in LEVELS:
                raise InvalidRequest(
                    "unknown bot level",
                    errors={"seats": {str(index): {"level": [f"must be one of: {', '.join(LEVELS)}"]}}},
                )
        humans = [index for index, seat in enumerate(records) if not seat.is_bot]
        if seed is not None and len(humans) > 1:
            message = ("a seed is taken only with at most one human seat: with more, its creator "
                       "could compute the other players' hidden cards")
            raise InvalidRequest(message, errors={"seed": [message]})
        token, creator = None, None
        if humans:
            token, creator = new_token(), humans[0]
            records[creator].token_hash = hash_token(token)
            records[creator].name = name or default_name(creator)
        record, state, history = self._new_match(
            game, records, options, seed, visibility=visibility, takeover_level=takeover_level, clock=clock,
        )
        record.creator = creator
        created = Caller(record, game, state, creator)
        self._expect_turn(created)
        self.store.create(record, history)
        if creator is not None:
            self._saw(record.id, creator)
        self._schedule_bot(created)
        return created, token

    def join(self, match_id: str, seat: int | None, name: str | None = None) -> tuple[Caller, str]:
        """Take an open human seat (the first one unless `seat` names one); its token, once."""
        token = new_token()

        def change(pipe: Pipeline) -> Caller:
            loaded = self.load(match_id, pipe)
            record = loaded.record
            if record.status != MatchStatus.WAITING:
                raise MatchFull(f"the match is {record.status}: no seat can be joined",
                                match_status=record.status)
            if seat is not None:
                if not 0 <= seat < len(record.seats):
                    raise InvalidRequest(
                        "no such seat", errors={"seat": [f"must be between 0 and {len(record.seats) - 1}"]}
                    )
                if record.seats[seat].filled:
                    raise MatchFull(f"seat {seat} is already taken")
                if record.seats[seat].reserved:
                    raise MatchFull(f"seat {seat} is kept for a player of the previous match (rematch)")
                chosen = seat
            else:
                if not record.open_seats:
                    raise MatchFull("every seat of this match is taken")
                chosen = record.open_seats[0]
            record.seats[chosen].token_hash = hash_token(token)
            record.seats[chosen].name = name or default_name(chosen)
            self._fill(pipe, loaded)
            return loaded.seen_by(chosen)

        joined = self.store.transact(match_id, change)
        self._saw(match_id, joined.seat)
        self._after_change(joined)
        return joined, token

    def play(
        self,
        caller: Caller,
        move_data: Any,
        version: int | None = None,
        version_from_header: bool = False,
        idempotency_key: str | None = None,
    ) -> MoveResult:
        """Apply the caller's move with compare-and-set; replay the stored response of a retried key.

        A key keeps the version its move made, not the answer: a retry is answered with the seat's
        view of that version, rendered again (a view stored per move was ~1 KB for a day, seven
        times what the rest of a match keeps).

        The move is decided on the match as the caller read it (now, or `kept` by this process a
        moment ago: see `mover`), and saved by one script that writes only if the match is still
        at that version (and, with an Idempotency-Key, only if no response is stored under it);
        when it moved on, or a kept read refuses the move, the match is read again and the move
        decided anew. Without a race, on a single Redis: the save alone after a kept read, with
        the metrics, the notification and any change of the lobby in the same script."""
        match_id, seat = caller.record.id, caller.seat
        if seat is None:
            raise Unauthorized("send your seat token as 'Authorization: Bearer <token>' to move")
        idem = storage.idempotency_key(match_id, seat, idempotency_key) if idempotency_key else None
        request_digest = fingerprint({"move": move_data, "version": version}) if idem else ""
        loaded: Loaded = caller
        # A key's record is looked for only once the move was refused or not saved: the script
        # saves nothing while the record exists, so a retry is never played twice, and a first
        # try (nearly every keyed move) costs no read of it.
        tried = False
        while True:
            if idem is not None and tried and (replayed := self._replayed(idem, request_digest, match_id, seat)):
                return replayed
            tried = True
            base, listed_as = loaded.record.version, loaded.record.status
            writes = storage.WriteRecorder()
            try:
                result, after, rendered = self._decide_move(writes, loaded, seat, move_data, version,
                                                            version_from_header, idem, request_digest)
            except ServiceError as error:
                if loaded.kept:  # refused on a read kept from before: only a fresh one may refuse it
                    loaded = self.look(match_id)
                    continue
                if idem is not None and (replayed := self._replayed(idem, request_digest, match_id, seat)):
                    return replayed  # a retry of a move played: refused now, answered as then
                if isinstance(error, TimeRanOut):
                    self.ensure_progress(self.load(match_id))
                raise
            then = self._followups(after, moved_by=SeatType.HUMAN, done=base,  # `done`: its clock's deadline
                                   relist=after.record.status != listed_as)
            if self.store.compare_and_set(match_id, base, writes, (idem,) if idem else (), then):
                break
            loaded = self.look(match_id)  # it moved on meanwhile: decide again on what is there now
        self.views.keep(*rendered)
        self.recent.keep(match_id, after.record.stored, after.presence)
        self._schedule_bot(after)
        return result

    def _replayed(self, idem: storage.IdempotencyKey, request_digest: str, match_id: str,
                  seat: int) -> MoveResult | None:
        """The answer to a retry of the move recorded under `idem` (None: no record); 422 when
        the key was used for another request."""
        stored = self.store.idempotent_response(idem)
        if stored is None:
            return None
        if not request_digest.startswith(stored["fingerprint"]):  # a record keeps a prefix
            raise IdempotencyMismatch("this Idempotency-Key was used for a different request")
        body = stored.get("body") or self._answer_of(match_id, seat, stored["version"])
        return MoveResult(body, stored["version"], replayed=True)

    def _answer_of(self, match_id: str, seat: int, version: int) -> dict[str, Any]:
        """The seat's view of `version`: the answer to a replayed move (its key keeps no view; one
        stored before they stopped does)."""
        caller = self.look(match_id).seen_by(seat)
        if caller.record.version == version:
            return self.views.body(self.store, caller)
        return self.views.dump_view(next(replayed_views(self.store, caller, version - 1)))

    def _decide_move(self, writes: storage.WriteRecorder, loaded: Loaded, seat: int, move_data: Any,
                     version: int | None, version_from_header: bool, idem: storage.IdempotencyKey | None,
                     request_digest: str) -> tuple[MoveResult, Loaded, tuple[Caller, dict[str, Any]]]:
        """Check `seat`'s move on `loaded` (which it changes), record the writes of the version it
        makes on `writes` and render the mover's view of it (its version-fixed part returned, to
        be kept once the version is saved)."""
        record = loaded.record
        if record.status != MatchStatus.ACTIVE:
            raise NotYourTurn(f"the match is {record.status}", match_status=record.status)
        move = parse_move(loaded.game, move_data)  # malformed: 422 whatever the version
        if version is not None and version != record.version:
            error = PreconditionFailed if version_from_header else VersionConflict
            raise error(f"the match is at version {record.version}, not {version}", current_version=record.version)
        if loaded.to_act != seat:
            raise NotYourTurn(f"seat {loaded.to_act} is to act, you hold seat {seat}", to_act=loaded.to_act)
        if record.seats[seat].played_by_bot:
            raise NotYourTurn(f"a bot plays seat {seat} now ({record.seats[seat].takeover})", to_act=loaded.to_act)
        now = self.store.now() if record.clock is not None else time.time()  # Redis's clock when one runs
        if loaded.timed_out(now) is not None:
            raise TimeRanOut("your time for this move ran out: the takeover bot moves for you",
                             current_version=record.version)
        presence, seen_now = loaded.presence, time.time()
        # a move is presence (queued first: the version's writes then give every key one expiry)
        self.store.saw(record.id, seat, seen_now, self.config.IDLE_TTL_SECONDS, writes)
        after = self._commit(writes, loaded, move, now)
        if presence is not None:
            after.presence = Presence({**presence.seen, seat: seen_now}, presence.bot)
        viewer = after.seen_by(seat)
        fixed = self.views.render_fixed(viewer)  # kept once saved (`play`): this move may lose its race
        body = self.views.body(self.store, viewer, fixed=fixed)
        if idem is not None:
            self.store.keep_response(writes, idem, request_digest, after.record.version,
                                     self.config.IDEMPOTENCY_TTL_SECONDS)
        return MoveResult(body, after.record.version), after, (viewer, fixed)

    # leaving, resigning, cancelling, rematches -----------------------------------------------

    def resign(self, caller: Caller) -> Caller:
        """The caller's seat resigns: ranked last, a bot plays it on; with one seat left playing,
        the match ends and that seat wins (end reason `resigned`)."""
        seat = _seat_of(caller, "resign")

        def change(pipe: Pipeline) -> Caller:
            loaded = self.load(caller.record.id, pipe)
            record = loaded.record
            _require_active(record, "resign")
            if seat in record.resigned:
                raise MatchStateConflict(f"seat {seat} has already resigned", match_status=record.status)
            record.resigned.append(seat)
            record.hand_to_bot(seat, Takeover.RESIGNED)
            if len(record.seats) - len(record.resigned) <= 1:
                record.status = MatchStatus.FINISHED
            clocks.start_turn(record, loaded.to_act, self.store.now(pipe))
            self._bump(pipe, loaded)
            return loaded.seen_by(seat)

        return self._change(caller.record.id, change)

    def leave(self, caller: Caller) -> Caller:
        """The caller leaves: a running match's seat goes to the takeover bot; a waiting match's
        seat is free again (its creator cancels instead)."""
        seat = _seat_of(caller, "leave")

        def change(pipe: Pipeline) -> Caller:
            loaded = self.load(caller.record.id, pipe)
            record = loaded.record
            held = record.seats[seat]
            if record.status == MatchStatus.WAITING:
                if seat == record.creator:
                    raise MatchStateConflict("the creator of a waiting match cancels it (DELETE) instead",
                                             match_status=record.status)
                held.token_hash = held.name = None
                self._bump(pipe, loaded)
                return loaded.seen_by(None)
            _require_active(record, "leave")
            if held.takeover is not None:
                raise MatchStateConflict(f"a bot already plays seat {seat} ({held.takeover})",
                                         match_status=record.status)
            record.hand_to_bot(seat, Takeover.LEFT)
            clocks.start_turn(record, loaded.to_act, self.store.now(pipe))
            self._bump(pipe, loaded)
            return loaded.seen_by(seat)

        return self._change(caller.record.id, change)

    def cancel(self, caller: Caller) -> Caller:
        """The creator calls off a match that still waits for players."""
        seat = _seat_of(caller, "cancel")

        def change(pipe: Pipeline) -> Caller:
            loaded = self.load(caller.record.id, pipe)
            record = loaded.record
            if seat != record.creator:
                raise NotCreator("only the seat that created the match may cancel it")
            if record.status != MatchStatus.WAITING:
                raise MatchStateConflict(f"the match is {record.status}: only a waiting match can be cancelled",
                                         match_status=record.status)
            record.status = MatchStatus.CANCELLED
            self._bump(pipe, loaded)
            return loaded.seen_by(seat)

        return self._change(caller.record.id, change)

    def rematch(self, caller: Caller) -> tuple[Caller, str]:
        """The caller's seat in the follow-up of a finished match (created by the first to ask:
        same game, options and bots, seats rotated by one, a new secret seed), and its token."""
        seat = _seat_of(caller, "ask for a rematch")
        old = caller.record
        if old.status != MatchStatus.FINISHED:
            raise MatchStateConflict(f"the match is {old.status}: a rematch follows a finished match",
                                     match_status=old.status)
        follow_up = old.rematch or self._create_rematch(caller)
        token = new_token()
        new_seat = (seat - 1) % len(old.seats)

        def claim(pipe: Pipeline) -> Caller:
            loaded = self.load(follow_up, pipe)
            held = loaded.record.seats[new_seat]
            if held.filled:
                raise MatchStateConflict(f"you already hold seat {new_seat} of the rematch {follow_up}",
                                         match_status=loaded.record.status)
            held.token_hash, held.reserved = hash_token(token), False
            if loaded.record.creator is None:
                loaded.record.creator = new_seat
            self._fill(pipe, loaded)
            return loaded.seen_by(new_seat)

        claimed = self.store.transact(follow_up, claim)
        self._saw(follow_up, new_seat)
        self._after_change(claimed)
        return claimed, token

    def _create_rematch(self, caller: Caller) -> str:
        """Create the follow-up of a finished match and link it (once: a racing second one is dropped)."""
        old, game = caller.record, caller.game
        players = len(old.seats)
        seats = []
        for index in range(players):
            before = old.seats[(index + 1) % players]
            if before.is_bot:
                seats.append(SeatRecord.bot(before.level))
            else:
                seats.append(SeatRecord(SeatType.HUMAN, name=before.name, reserved=True))
        record, _, history = self._new_match(
            game, seats, old.options, None, visibility=old.visibility, takeover_level=old.takeover_level,
            clock=old.clock,
        )
        record.previous = old.id
        self.store.create(record, history)

        def link(pipe: Pipeline) -> tuple[str, Loaded | None]:
            loaded = self.load(old.id, pipe)
            if loaded.record.rematch is not None:
                return loaded.record.rematch, None
            loaded.record.rematch = record.id
            self._bump(pipe, loaded)
            return record.id, loaded

        linked, changed = self.store.transact(old.id, link)
        if changed is not None:
            self._after_change(changed)
        else:
            self.store.delete(record.id)
        return linked

    def _new_match(
        self,
        game: AnyGame,
        seats: list[SeatRecord],
        options: dict[str, Any],
        seed: str | None,
        visibility: Visibility,
        takeover_level: str,
        clock: dict[str, float] | None,
    ) -> tuple[MatchRecord, Any, list[Any]]:
        """A new match's record (not stored yet), its state and its history entries
        (`api.store.history`): before the deal, none, while a seat is open; else the deal."""
        secret = seed if seed is not None else new_seed()
        if clock is not None and "bank_seconds" in clock:
            for seat in seats:
                seat.bank = None if seat.is_bot else float(clock["bank_seconds"])
        state = game.new_state(len(seats), options)
        now = self.store.now()
        record = MatchRecord(
            id=secrets.token_hex(8),
            game=game.info.id,
            version=1,
            status=MatchStatus.WAITING,
            seats=seats,
            options=options,
            seed=secret,
            seeded=seed is not None,
            snapshot=game.encode(state),
            history_length=0,
            created=now,
            updated=now,
            visibility=visibility,
            takeover_level=takeover_level,
            clock=clock,
        )
        loaded = Loaded(record, game, state)
        history = self._start(loaded, now) if _is_full(record) else []
        return record, loaded.state, history

    def _change(self, match_id: str, change: Any) -> Caller:
        """Run a lifecycle change as a compare-and-set transaction, then notify and schedule."""
        changed: Caller = self.store.transact(match_id, change)
        self._saw(match_id, changed.seat)
        self._after_change(changed)
        return changed

    # bot turns -----------------------------------------------------------------------------

    def bot_turn(self, match_id: str, version: int) -> Caller | None:
        """The match and the seat a bot plays at `version` (a bot's, a taken-over one, or a human's
        whose time ran out), or None when that turn is over."""
        record = self.store.load(match_id)
        if record is None or record.version != version:
            return None
        loaded = _decoded(record)
        seat = loaded.bot_to_act
        if seat is None:
            seat = loaded.timed_out(self.store.now())
        return None if seat is None else loaded.seen_by(seat)

    def play_bot(self, match_id: str, version: int, move: Move) -> Loaded | None:
        """Apply a bot's move chosen at `version` (for a human seat: on its timeout); None when the
        turn is no longer current."""

        def change(pipe: Pipeline) -> Loaded | None:
            record = self.store.load(match_id, pipe)
            if record is None or record.version != version:
                return None
            loaded = _decoded(record)
            now = self.store.now(pipe)
            if loaded.bot_to_act is not None:
                return self._commit(pipe, loaded, move, now)
            if loaded.timed_out(now) is not None:
                return self._commit(pipe, loaded, move, now, timeout=True)
            return None

        after = self.store.transact(match_id, change)
        if after is not None:
            self._after_change(after, moved_by=SeatType.BOT, done=version)
        return after

    def report_bot(self, match_id: str, version: int, fields: dict[str, Any]) -> None:
        """Record what the bot thinking at `version` is doing (also its heartbeat)."""
        data = {"version": version, "heartbeat": repr(time.time()), **fields}
        self.store.report_bot(match_id, data, self.config.IDLE_TTL_SECONDS)

    def ensure_progress(self, loaded: Loaded) -> bool:
        """If a bot is to act (or a human's time ran out) and its turn's job is lost or dead (or was
        never queued), enqueue it (True then)."""
        record = loaded.record
        seat = loaded.bot_to_act
        timeout = seat is None
        if seat is None and record.deadline is not None:
            seat = loaded.timed_out(self.store.now())
        if seat is None:
            return False
        if not self.bots.ensure(record.id, record.version, loaded.level_of(seat), _has_human(record), timeout):
            return False
        if loaded.presence is not None:  # the bot's progress read with it is out of date now
            loaded.presence = Presence(loaded.presence.seen, self.store.bot_progress(record.id))
        return True

    def sweep_bots(self) -> int:
        """Look after the bot turns that are due; how many lost or dead ones were re-enqueued.

        Views and waits recover the turn of a match someone watches; this covers the rest
        (bots-only matches, players who went away). It reads only the due turns, so its cost
        grows with pending bot turns, not with matches.
        """
        recovered = 0
        started = time.time()  # a turn looked at now is due again later: each is seen once a round
        while turns := self.bots.due(by=started):
            for match_id, version in turns:
                record = self.store.load(match_id)
                loaded = _decoded(record) if record is not None else None
                if loaded is None or loaded.record.version != version:
                    self.bots.done(match_id, version)  # played, finished or expired meanwhile
                elif loaded.bot_to_act is not None or loaded.timed_out(self.store.now()) is not None:
                    recovered += self.ensure_progress(loaded)
                elif loaded.record.deadline is not None:  # not quite out of time by Redis's clock
                    self.store.mark_due(match_id, version, max(loaded.record.deadline, started + 0.05))
                else:
                    self.bots.done(match_id, version)
        return recovered

    # internals ------------------------------------------------------------------------------

    def _commit(self, pipe: storage.Writes, loaded: Loaded, move: Move, now: float, timeout: bool = False) -> Loaded:
        """Apply `move` and the chance that follows, keep the clocks (`clocks.after_move`, then
        the next seat's starts), and queue the writes of the new version (starts MULTI)."""
        record, game = loaded.record, loaded.game
        before = record.version_json()  # as stored: nothing changed the record yet
        try:
            state = game.apply(loaded.state, move)
        except IllegalMove as error:
            legal = [game.move_to_json(m) for m in game.legal_moves(loaded.state)]
            raise IllegalMoveError(str(error), rule=error.rule, legal_moves=legal) from None
        state, chance = resolve_chance(game, state, record.seed, record.history_length + 1)
        appended = entries_for(game, loaded.state, [move, *chance])
        clocks.after_move(record, loaded.to_act, now, timeout)
        record.snapshot = game.encode(state)
        record.history_length += len(appended)
        if game.is_terminal(state):
            record.status = MatchStatus.FINISHED
        after = Loaded(record, game, state)
        clocks.start_turn(record, after.to_act, now)
        self._bump(pipe, after, appended, before)
        return after

    def _bump(self, pipe: storage.Writes, loaded: Loaded, appended: list[Any] | None = None,
              before: dict[str, Any] | None = None) -> None:
        """A new version of the match: note the turn it makes due, queue its writes (starts MULTI).
        `before`: the stored version's `version_json`, when taken before the record changed."""
        record = loaded.record
        record.version += 1
        record.updated = time.time()
        self._expect_turn(loaded)
        pipe.multi()
        self.store.write(pipe, record, appended or [], before)

    def _fill(self, pipe: Pipeline, loaded: Loaded) -> None:
        """After a seat was taken: start the match once none is left, and write it (starts MULTI)."""
        appended = self._start(loaded, self.store.now(pipe)) if _is_full(loaded.record) else []
        self._bump(pipe, loaded, appended)

    def _start(self, loaded: Loaded, now: float) -> list[Any]:
        """Start a waiting match whose every seat is filled: deal (draw the chance that opens the
        game from the seed, at history positions from 0) and start the first clock. Changes
        `loaded`; returns the history entries of the deal."""
        record, game = loaded.record, loaded.game
        state, chance = resolve_chance(game, loaded.state, record.seed, record.history_length)
        appended = entries_for(game, loaded.state, chance)
        loaded.state = state
        record.snapshot = game.encode(state)
        record.history_length += len(appended)
        record.status = MatchStatus.FINISHED if game.is_terminal(state) else MatchStatus.ACTIVE
        clocks.start_turn(record, loaded.to_act, now)
        return appended

    def _saw(self, match_id: str, seat: int | None, presence: Presence | None = None) -> Presence | None:
        """Note that a seat acted or polled now; the presence read before (if any) as it stands
        after. Presence is shown to the second: a seat that `presence` says was seen less than
        PRESENCE_SECONDS ago is not written again."""
        if seat is None:
            return presence
        now = time.time()
        if presence is not None and now - presence.seen.get(seat, 0.0) < PRESENCE_SECONDS:
            return presence
        self.store.saw(match_id, seat, now, self.config.IDLE_TTL_SECONDS)
        return None if presence is None else Presence({**presence.seen, seat: now}, presence.bot)

    def _after_change(self, loaded: Loaded, moved_by: SeatType | None = None, done: int | None = None) -> None:
        """After a change is saved: what follows it (one round trip), then the bot's turn if it is one."""
        self.store.send(self._followups(loaded, moved_by, done))
        self._schedule_bot(loaded)

    def _followups(self, loaded: Loaded, moved_by: SeatType | None = None,
                   done: int | None = None, relist: bool = True) -> storage.WriteRecorder:
        """The writes that follow a saved change: the lobby (unless `relist` is False: the change
        left its status, so its listing, as it was), the waiters' notification, the move's
        metrics, and forgetting the due turn at `done` (now over)."""
        record = loaded.record
        writes = storage.WriteRecorder()
        if done is not None:
            self.store.unmark_due(record.id, done, writes)
        if moved_by is not None:
            metrics.queue_move(writes, record.game, moved_by, record.status == MatchStatus.FINISHED)
        self.store.queue_after_write(writes, record, relist)
        return writes

    def _expect_turn(self, loaded: Loaded) -> None:
        """Before saving a change that makes it a bot's turn, or a clocked human's, put that turn in
        the due set (a human's at its deadline): a process dying between the save and the enqueue
        cannot lose it, and the sweeper finds the clocks that run out."""
        record = loaded.record
        seat = loaded.bot_to_act
        if seat is not None:
            self.bots.expect(record.id, record.version, loaded.level_of(seat))
        elif record.deadline is not None and record.status == MatchStatus.ACTIVE:
            self.store.mark_due(record.id, record.version, record.deadline)

    def _schedule_bot(self, loaded: Loaded) -> None:
        seat = loaded.bot_to_act
        if seat is not None:
            record = loaded.record
            self.bots.enqueue(record.id, record.version, loaded.level_of(seat), _has_human(record))


def parse_move(game: AnyGame, data: Any) -> Move:
    """A move from its JSON form, or InvalidRequest naming the `move` field."""
    try:
        return cast(Move, game.move_from_json(data))
    except InvalidMove as error:
        raise InvalidRequest(str(error), errors={"move": [str(error)]}) from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
        # A game's parser that trips on odd JSON still means "malformed move", never a 500.
        message = f"not a move of {game.info.id}: {error}"
        raise InvalidRequest(message, errors={"move": [message]}) from None


def default_name(seat: int) -> str:
    """The name of a player who gave none."""
    return f"Player {seat + 1}"


def _seat_of(caller: Caller, action: str) -> int:
    """The caller's seat, or Unauthorized: only a seat may `action`."""
    if caller.seat is None:
        raise Unauthorized(f"send your seat token as 'Authorization: Bearer <token>' to {action}")
    return caller.seat


def _require_active(record: MatchRecord, action: str) -> None:
    """MatchStateConflict unless the match is running."""
    if record.status != MatchStatus.ACTIVE:
        raise MatchStateConflict(f"the match is {record.status}: you cannot {action} now",
                                 match_status=record.status)


def _is_full(record: MatchRecord) -> bool:
    """Whether a waiting match has every seat filled: it starts (and deals) now."""
    return record.status == MatchStatus.WAITING and not record.unfilled_seats


def _has_human(record: MatchRecord) -> bool:
    """Whether a person plays in the match (its bot turns then go to the first queue)."""
    return any(not seat.is_bot and seat.takeover is None for seat in record.seats)


def _decoded(record: MatchRecord) -> Loaded:
    """A record with its game and decoded state."""
    game = get_game(record.game)
    return Loaded(record, game, game.decode(record.snapshot))
