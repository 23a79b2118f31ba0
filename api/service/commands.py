"""The match service: the one code path that creates and changes matches.

HTTP views and the bot job both call it; nothing else writes a match. Each
change is load → validate → engine.apply → resolve chance with the match's
secret seed → save with compare-and-set on the version → notify waiters →
enqueue a bot turn. The stored state is therefore always at a player decision
or at the end, never at a chance node.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from typing import Any

from redis import Redis
from redis.client import Pipeline
from redis.cluster import RedisCluster

from ai.levels import LEVELS
from api import schemas, storage
from api.bots import BotScheduler
from api.config import Config
from api.connections import notification_redis
from api.notifications import Notifications
from api.records import MatchRecord, MatchStatus, SeatRecord, SeatType
from api.service.errors import (
    IdempotencyMismatch,
    IllegalMoveError,
    InvalidRequest,
    MatchFull,
    MatchNotFound,
    NotYourTurn,
    PreconditionFailed,
    Unauthorized,
    VersionConflict,
)
from api.service.history import entries_for
from api.service.model import Caller, Loaded, MoveResult
from api.service.presentation import match_view
from api.service.tokens import hash_token, new_token, seat_of_token
from api.storage import Store
from engine import Game, UnknownGame, get_game, resolve_chance
from engine.core import Move
from engine.errors import IllegalMove, InvalidMove, InvalidOptions


def fingerprint(data: Any) -> str:
    """A digest of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


class MatchService:
    """Creates, joins and plays matches, and keeps their bot turns moving."""

    def __init__(self, redis: Redis | RedisCluster, config: Config, queue_redis: Redis | None = None):
        """`redis` holds the matches (one Redis or a Cluster); `queue_redis` the bot queues
        (a single Redis; None: `redis`, which must then be a single Redis)."""
        self.redis = redis
        self.config = config
        self.store = Store(redis, self.ttl_for_status)
        queues = queue_redis if queue_redis is not None else redis
        if not isinstance(queues, Redis):
            raise TypeError("RQ needs a single Redis for the bot queues: pass queue_redis")
        self.bots = BotScheduler(queues, self.store, config)
        #: The process's one pub/sub subscription, shared by its waits (connects on first use).
        self.notifications = Notifications(notification_redis(config))

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

    def caller(self, match_id: str, token: str | None) -> Caller:
        """The match and the seat the bearer token holds (None: a spectator; 401 for a wrong token)."""
        loaded = self.load(match_id)
        return loaded.seen_by(seat_of_token(loaded.record, token))

    # changing ------------------------------------------------------------------------------

    def create(
        self,
        game_id: str,
        seats: list[dict[str, Any]],
        options: dict[str, Any] | None,
        seed: str | None,
    ) -> tuple[Caller, str | None]:
        """A new match, and the token of the creator's seat (the first human one; None without).

        It starts at once if no seat is open."""
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
        token, creator = None, None
        humans = [index for index, seat in enumerate(records) if not seat.is_bot]
        if humans:
            token, creator = new_token(), humans[0]
            records[creator].take(hash_token(token), 1)
        secret = seed if seed is not None else secrets.token_hex(32)
        initial = game.new_state(len(records), options)
        state, history = resolve_chance(game, initial, secret, 0)
        now = time.time()
        record = MatchRecord(
            id=secrets.token_hex(8),
            game=game_id,
            version=1,
            status=MatchStatus.ACTIVE if all(s.filled for s in records) else MatchStatus.WAITING,
            seats=records,
            options=options,
            seed=secret,
            seeded=seed is not None,
            snapshot=game.encode(state),
            history_length=len(history),
            created=now,
            updated=now,
        )
        if game.is_terminal(state):
            record.status = MatchStatus.FINISHED
        created = Caller(record, game, state, creator)
        self._expect_bot(created)
        self.store.create(record, entries_for(game, initial, history))
        self._schedule_bot(created)
        return created, token

    def join(self, match_id: str, seat: int | None) -> tuple[Caller, str]:
        """Take an open human seat (the first one unless `seat` names one); its token, once."""
        token = new_token()

        def change(pipe: Pipeline) -> Caller:
            loaded = self.load(match_id, pipe)
            record = loaded.record
            if seat is not None:
                if not 0 <= seat < len(record.seats):
                    raise InvalidRequest(
                        "no such seat", errors={"seat": [f"must be between 0 and {len(record.seats) - 1}"]}
                    )
                if record.seats[seat].filled:
                    raise MatchFull(f"seat {seat} is already taken")
                chosen = seat
            else:
                if not record.open_seats:
                    raise MatchFull("every seat of this match is taken")
                chosen = record.open_seats[0]
            record.version += 1
            record.seats[chosen].take(hash_token(token), record.version)
            if not record.open_seats and record.status == MatchStatus.WAITING:
                record.status = MatchStatus.ACTIVE
            record.updated = time.time()
            joined = loaded.seen_by(chosen)
            self._expect_bot(joined)
            pipe.multi()
            self.store.write(pipe, record, [])
            return joined

        joined = self.store.transact(match_id, change)
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
        """Apply the caller's move with compare-and-set; replay the stored response of a retried key."""
        match_id, seat = caller.record.id, caller.seat
        if seat is None:
            raise Unauthorized("send your seat token as 'Authorization: Bearer <token>' to move")
        idem = storage.idempotency_key(match_id, seat, idempotency_key) if idempotency_key else None
        request_digest = fingerprint({"move": move_data, "version": version})

        def change(pipe: Pipeline) -> tuple[MoveResult, Loaded | None]:
            if idem is not None:
                stored = self.store.idempotent_response(pipe, idem)
                if stored is not None:
                    if stored["fingerprint"] != request_digest:
                        raise IdempotencyMismatch(
                            "this Idempotency-Key was used for a different request"
                        )
                    return MoveResult(stored["body"], stored["version"], replayed=True), None
            loaded = self.load(match_id, pipe)
            record = loaded.record
            if version is not None and version != record.version:
                error = PreconditionFailed if version_from_header else VersionConflict
                raise error(
                    f"the match is at version {record.version}, not {version}",
                    current_version=record.version,
                )
            if record.status != MatchStatus.ACTIVE:
                raise NotYourTurn(f"the match is {record.status}", match_status=record.status)
            if loaded.to_act != seat:
                raise NotYourTurn(f"seat {loaded.to_act} is to act, you hold seat {seat}", to_act=loaded.to_act)
            after = self._commit(pipe, loaded, parse_move(loaded.game, move_data))
            body = schemas.MATCH_VIEW.dump(
                match_view(self.store, after.seen_by(seat))
            )
            if idem is not None:
                record_json = {"fingerprint": request_digest, "body": body, "version": after.record.version}
                pipe.set(idem, json.dumps(record_json), ex=self.config.IDEMPOTENCY_TTL_SECONDS)
            return MoveResult(body, after.record.version), after

        watch = (idem,) if idem else ()
        result, committed = self.store.transact(match_id, change, *watch)
        if committed is not None:
            self._after_change(committed)
        return result

    # bot turns -----------------------------------------------------------------------------

    def bot_turn(self, match_id: str, version: int) -> Caller | None:
        """The match and bot seat of the bot turn at `version`, or None when that turn is over."""
        record = self.store.load(match_id)
        if record is None or record.version != version:
            return None
        loaded = _decoded(record)
        seat = loaded.bot_to_act
        return None if seat is None else loaded.seen_by(seat)

    def play_bot(self, match_id: str, version: int, move: Move) -> Loaded | None:
        """Apply a bot's move chosen at `version`; None when the turn is no longer current."""

        def change(pipe: Pipeline) -> Loaded | None:
            record = self.store.load(match_id, pipe)
            if record is None or record.version != version:
                return None
            loaded = _decoded(record)
            return None if loaded.bot_to_act is None else self._commit(pipe, loaded, move)

        after = self.store.transact(match_id, change)
        if after is not None:
            self.bots.done(match_id, version)
            self._after_change(after)
        return after

    def report_bot(self, match_id: str, version: int, fields: dict[str, Any]) -> None:
        """Record what the bot thinking at `version` is doing (also its heartbeat)."""
        data = {"version": version, "heartbeat": repr(time.time()), **fields}
        self.store.report_bot(match_id, data, self.config.IDLE_TTL_SECONDS)

    def ensure_progress(self, loaded: Loaded) -> bool:
        """If a bot is to act and its turn's job is lost or dead, enqueue it again (True then)."""
        seat = loaded.bot_to_act
        if seat is None:
            return False
        record = loaded.record
        return self.bots.ensure(record.id, record.version, record.seats[seat].bot_level, _has_human(record))

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
                if loaded is None or loaded.record.version != version or loaded.bot_to_act is None:
                    self.bots.done(match_id, version)  # played, finished or expired meanwhile
                else:
                    recovered += self.ensure_progress(loaded)
        return recovered

    # internals ------------------------------------------------------------------------------

    def _commit(self, pipe: Pipeline, loaded: Loaded, move: Move) -> Loaded:
        """Apply `move` and the chance that follows, and queue the writes (starts MULTI)."""
        record, game = loaded.record, loaded.game
        try:
            moved = game.apply(loaded.state, move)
        except IllegalMove as error:
            legal = [game.move_to_json(m) for m in game.legal_moves(loaded.state)]
            raise IllegalMoveError(str(error), rule=error.rule, legal_moves=legal) from None
        state, chance = resolve_chance(game, moved, record.seed, record.history_length + 1)
        appended = [game.move_to_json(move), *entries_for(game, moved, chance)]
        record.snapshot = game.encode(state)
        record.history_length += len(appended)
        record.version += 1
        record.updated = time.time()
        if game.is_terminal(state):
            record.status = MatchStatus.FINISHED
        after = Loaded(record, game, state)
        self._expect_bot(after)
        pipe.multi()
        self.store.write(pipe, record, appended)
        return after

    def _after_change(self, loaded: Loaded) -> None:
        self.store.after_write(loaded.record)
        self._schedule_bot(loaded)

    def _expect_bot(self, loaded: Loaded) -> None:
        """Before saving a change that makes it a bot's turn, put that turn in the due set:
        a process dying between the save and the enqueue cannot lose it."""
        seat = loaded.bot_to_act
        if seat is not None:
            self.bots.expect(loaded.record.id, loaded.record.version, loaded.record.seats[seat].bot_level)

    def _schedule_bot(self, loaded: Loaded) -> None:
        seat = loaded.bot_to_act
        if seat is not None:
            record = loaded.record
            self.bots.enqueue(record.id, record.version, record.seats[seat].bot_level, _has_human(record))


def parse_move(game: Game, data: Any) -> Move:
    """A move from its JSON form, or InvalidRequest naming the `move` field."""
    try:
        return game.move_from_json(data)
    except InvalidMove as error:
        raise InvalidRequest(str(error), errors={"move": [str(error)]}) from None
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as error:
        # A game's parser that trips on odd JSON still means "malformed move", never a 500.
        message = f"not a move of {game.info.id}: {error}"
        raise InvalidRequest(message, errors={"move": [message]}) from None


def _has_human(record: MatchRecord) -> bool:
    """Whether a person plays in the match (its bot turns then go to the first queue)."""
    return any(not seat.is_bot for seat in record.seats)


def _decoded(record: MatchRecord) -> Loaded:
    """A record with its game and decoded state."""
    game = get_game(record.game)
    return Loaded(record, game, game.decode(record.snapshot))
