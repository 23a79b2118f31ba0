"""The match service: the one code path that creates and changes matches.

HTTP views and the bot worker both call this module; nothing else writes a
match. Each change is load → validate → engine.apply → resolve chance with the
match's secret seed → save with compare-and-set on the version → notify
waiters → enqueue a bot turn. The stored state is therefore always at a
player decision or at the end, never at a chance node.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from redis import Redis
from redis.client import Pipeline

from ai.levels import LEVELS
from api import metrics, storage
from api.bots import BotScheduler
from api.config import Config
from api.storage import MatchRecord, SeatRecord, Store
from engine import CHANCE, TERMINAL, Game, UnknownGame, get_game, resolve_chance
from engine.core import Move, State
from engine.errors import IllegalMove, InvalidMove, InvalidOptions

# --- errors the service raises (the HTTP layer maps each to one problem+json status)


class ServiceError(Exception):
    """Base of the service's errors. `status` is the HTTP status the edge should use."""

    status = 400
    title = "Bad request"

    def __init__(self, detail: str, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra  # extra problem members, e.g. rule=..., legal_moves=[...]


class MatchNotFound(ServiceError):
    status = 404
    title = "Match not found"


class NotYourTurn(ServiceError):
    """The caller holds no seat, or it is not that seat's turn (or the match is not active)."""

    status = 403
    title = "Not your turn"


class Unauthorized(ServiceError):
    """A bearer token was sent but matches no seat of this match."""

    status = 401
    title = "Invalid seat token"


class VersionConflict(ServiceError):
    """The move names a version that is no longer current (extra: current_version)."""

    status = 409
    title = "Version conflict"


class PreconditionFailed(VersionConflict):
    """Same as VersionConflict, when the version came from If-Match."""

    status = 412
    title = "Precondition failed"


class MatchFull(ServiceError):
    status = 409
    title = "No seat available"


class IllegalMoveError(ServiceError):
    """The engine refused the move (extra: rule, legal_moves)."""

    status = 422
    title = "Illegal move"


class InvalidRequest(ServiceError):
    """Semantically invalid input the schema could not catch (extra: errors={field: [msg]})."""

    status = 422
    title = "Invalid request"


@dataclass(frozen=True)
class SeatGrant:
    """A seat handed to a caller: the token is shown once and stored only hashed."""

    seat: int
    token: str


class IdempotencyMismatch(ServiceError):
    """An Idempotency-Key was reused with a different request."""

    status = 422
    title = "Idempotency key reused"


# --- helpers ------------------------------------------------------------------------------


def hash_token(token: str) -> str:
    """The SHA-256 under which a seat token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A fresh 256-bit seat token, URL-safe."""
    return secrets.token_urlsafe(32)


def bot_rng(seed: str, version: int) -> random.Random:
    """The bot's generator for the turn at `version`: seeded matches replay exactly."""
    digest = hashlib.sha256(f"{seed}:bot:{version}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def iso(timestamp: float) -> str:
    """An epoch time as ISO 8601 UTC, to the second."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def fingerprint(data: Any) -> str:
    """A digest of a request body, to tell a retry from a different request."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@dataclass
class Loaded:
    """A match record with its game and decoded state."""

    record: MatchRecord
    game: Game
    state: State

    @property
    def to_act(self) -> int | None:
        player = self.game.current_player(self.state)
        return player if player >= 0 else None


@dataclass(frozen=True)
class MoveResult:
    """What a move submission returns: the body, and whether it replays a stored response."""

    body: dict[str, Any]
    version: int
    replayed: bool = False


# --- the service ----------------------------------------------------------------------------


class MatchService:
    """Creates, joins, plays and shows matches; the web views and the bot job both use it."""

    def __init__(self, redis: Redis, config: Config):
        self.redis = redis
        self.config = config
        self.store = Store(redis, self.ttl_for_status)
        self.bots = BotScheduler(redis, config)

    def ttl_for_status(self, status: str) -> int:
        """How long a match in `status` lives without a change."""
        return {
            "waiting": self.config.WAITING_TTL_SECONDS,
            "active": self.config.IDLE_TTL_SECONDS,
        }.get(status, self.config.MATCH_TTL_SECONDS)

    # reading ------------------------------------------------------------------------------

    def load(self, match_id: str) -> Loaded:
        """The match with its decoded state, or MatchNotFound."""
        record = self.store.load(match_id)
        if record is None:
            raise MatchNotFound(f"no match {match_id!r} (it may have expired)")
        return self._loaded(record)

    def seat_for_token(self, record: MatchRecord, token: str | None) -> int | None:
        """The seat whose token this is; None without a token; Unauthorized for a wrong one."""
        if token is None:
            return None
        digest = hash_token(token)
        found = None
        for index, seat in enumerate(record.seats):
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                found = index
        if found is None:
            raise Unauthorized("this token holds no seat of this match")
        return found

    def view(self, loaded: Loaded, seat: int | None) -> dict[str, Any]:
        """The match as `seat` (None: a spectator) may see it."""
        record, game, state = loaded.record, loaded.game, loaded.state
        to_act = loaded.to_act
        outcome = game.outcome(state) if game.current_player(state) == TERMINAL else None
        mine = record.status == "active" and seat is not None and seat == to_act
        return {
            "id": record.id,
            "game": record.game,
            "version": record.version,
            "status": record.status,
            "to_act": to_act,
            "you": seat,
            "seats": [
                {"seat": index, "type": s.type, "level": s.level, "filled": s.filled}
                for index, s in enumerate(record.seats)
            ],
            "state": game.view(state, seat),
            "legal_moves": [game.move_to_json(m) for m in game.legal_moves(state)] if mine else [],
            "outcome": outcome.to_json() if outcome is not None else None,
            "bot": self._bot_activity(loaded),
            "seeded": record.seeded,
            "options": record.options,
            "created": iso(record.created),
            "updated": iso(record.updated),
        }

    def log(self, loaded: Loaded, seat: int | None) -> list[dict[str, Any]]:
        """The move history as `seat` may see it: redacted while the match runs, full after."""
        record, game = loaded.record, loaded.game
        state = game.new_state(len(record.seats), record.options)
        finished = record.status == "finished"
        entries = []
        for index, data in enumerate(self.store.history(record.id)):
            move = game.move_from_json(data)
            player = game.current_player(state)
            shown = game.move_to_json(move) if finished else game.log_entry(state, move, seat)
            entries.append({
                "index": index,
                "seat": player if player >= 0 else None,
                "chance": player == CHANCE,
                "move": shown,
            })
            game.step(state, move)
        return entries

    def listing(self, game: str | None, status: str | None) -> list[dict[str, Any]]:
        """Joinable and live matches, newest first, optionally filtered."""
        rows = []
        for record in self.store.listed(self.config.LIST_LIMIT):
            if (game and record.game != game) or (status and record.status != status):
                continue
            rows.append({
                "id": record.id,
                "game": record.game,
                "status": record.status,
                "version": record.version,
                "seats": [
                    {"seat": i, "type": s.type, "level": s.level, "filled": s.filled}
                    for i, s in enumerate(record.seats)
                ],
                "open_seats": [i for i, s in enumerate(record.seats) if not s.filled],
                "created": iso(record.created),
            })
            if len(rows) >= self.config.LIST_LIMIT:
                break
        return rows

    # changing ------------------------------------------------------------------------------

    def create(
        self,
        game_id: str,
        seats: list[dict[str, Any]],
        options: dict[str, Any] | None,
        seed: str | None,
    ) -> tuple[Loaded, SeatGrant | None]:
        """A new match; the creator takes the first human seat. Starts at once if no seat is open."""
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
        for index, seat in enumerate(seats):
            if seat["type"] == "bot" and seat.get("level", "medium") not in LEVELS:
                raise InvalidRequest(
                    "unknown bot level",
                    errors={"seats": {str(index): {"level": [f"must be one of: {', '.join(LEVELS)}"]}}},
                )
        records = [
            SeatRecord("bot", seat.get("level") or "medium") if seat["type"] == "bot" else SeatRecord("human")
            for seat in seats
        ]
        grant = None
        humans = [index for index, seat in enumerate(records) if seat.type == "human"]
        if humans:
            token = new_token()
            records[humans[0]].token_hash = hash_token(token)
            grant = SeatGrant(humans[0], token)
        secret = seed if seed is not None else secrets.token_hex(32)
        state = game.new_state(len(records), options)
        state, history = resolve_chance(game, state, secret, 0)
        now = time.time()
        record = MatchRecord(
            id=secrets.token_hex(8),
            game=game_id,
            version=1,
            status="active" if all(s.filled for s in records) else "waiting",
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
            record.status = "finished"
        self.store.create(record, [game.move_to_json(m) for m in history])
        loaded = Loaded(record, game, state)
        self._schedule_bot(loaded)
        return loaded, grant

    def join(self, match_id: str, seat: int | None) -> tuple[Loaded, SeatGrant]:
        """Take an open human seat (the first one unless `seat` names one)."""
        token = new_token()

        def change(pipe: Pipeline) -> Loaded:
            record = self.store.load(match_id, pipe)
            if record is None:
                raise MatchNotFound(f"no match {match_id!r} (it may have expired)")
            if seat is not None:
                if not 0 <= seat < len(record.seats):
                    raise InvalidRequest(
                        "no such seat", errors={"seat": [f"must be between 0 and {len(record.seats) - 1}"]}
                    )
                if record.seats[seat].filled:
                    raise MatchFull(f"seat {seat} is already taken")
                chosen = seat
            else:
                open_seats = [i for i, s in enumerate(record.seats) if not s.filled]
                if not open_seats:
                    raise MatchFull("every seat of this match is taken")
                chosen = open_seats[0]
            record.seats[chosen].token_hash = hash_token(token)
            if all(s.filled for s in record.seats) and record.status == "waiting":
                record.status = "active"
            record.version += 1
            record.updated = time.time()
            pipe.multi()
            self.store.write(pipe, record, [])
            return self._loaded(record)

        loaded = self.store.transact(match_id, change)
        chosen = next(
            i for i, s in enumerate(loaded.record.seats) if s.token_hash == hash_token(token)
        )
        self.store.after_write(loaded.record)
        self._schedule_bot(loaded)
        return loaded, SeatGrant(chosen, token)

    def play(
        self,
        match_id: str,
        seat: int | None,
        move_data: Any,
        version: int | None = None,
        version_from_header: bool = False,
        idempotency_key: str | None = None,
    ) -> MoveResult:
        """Apply a human's move with compare-and-set; replay the stored response of a retried key."""
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
            loaded = self._load_in(pipe, match_id)
            record, game = loaded.record, loaded.game
            if version is not None and version != record.version:
                error = PreconditionFailed if version_from_header else VersionConflict
                raise error(
                    f"the match is at version {record.version}, not {version}",
                    current_version=record.version,
                )
            if record.status != "active":
                raise NotYourTurn(f"the match is {record.status}", match_status=record.status)
            if loaded.to_act != seat:
                raise NotYourTurn(f"seat {loaded.to_act} is to act, you hold seat {seat}", to_act=loaded.to_act)
            move = self.parse_move(game, move_data)
            after = self._commit(pipe, loaded, move)
            body = self.view(after, seat)
            if idem is not None:
                record_json = {"fingerprint": request_digest, "body": body, "version": after.record.version}
                pipe.set(idem, json.dumps(record_json), ex=self.config.IDEMPOTENCY_TTL_SECONDS)
            return MoveResult(body, after.record.version), after

        watch = (idem,) if idem else ()
        result, committed = self.store.transact(match_id, change, *watch)
        if committed is not None:
            self._after_change(committed, moved_by="human")
        return result

    def play_bot(self, match_id: str, version: int, move: Move) -> Loaded | None:
        """Apply a bot's move chosen at `version`; None when the turn is no longer current."""

        def change(pipe: Pipeline) -> Loaded | None:
            record = self.store.load(match_id, pipe)
            if record is None or record.version != version or record.status != "active":
                return None
            loaded = self._loaded(record)
            to_act = loaded.to_act
            if to_act is None or record.seats[to_act].type != "bot":
                return None
            return self._commit(pipe, loaded, move)

        after = self.store.transact(match_id, change)
        if after is not None:
            self._after_change(after, moved_by="bot")
        return after

    def bot_turn(self, match_id: str, version: int) -> tuple[Loaded, int] | None:
        """The match and seat of a bot turn at `version`, or None when that turn is over."""
        record = self.store.load(match_id)
        if record is None or record.version != version or record.status != "active":
            return None
        loaded = self._loaded(record)
        seat = loaded.to_act
        if seat is None or record.seats[seat].type != "bot":
            return None
        return loaded, seat

    def report_bot(self, match_id: str, version: int, fields: dict[str, Any]) -> None:
        """Record what the bot thinking at `version` is doing (also its heartbeat)."""
        data = {"version": version, "heartbeat": repr(time.time()), **fields}
        self.store.report_bot(match_id, data, self.config.IDLE_TTL_SECONDS)

    def ensure_progress(self, loaded: Loaded) -> bool:
        """If a bot is to act and its turn's job is lost or dead, enqueue it again (True then)."""
        record = loaded.record
        seat = loaded.to_act
        if record.status == "active" and seat is not None and record.seats[seat].type == "bot":
            return self.bots.ensure(record.id, record.version, record.seats[seat].level or "medium")
        return False

    def sweep_bots(self) -> int:
        """Recover the lost or dead bot turn of every active match; how many were re-enqueued.

        Views and waits recover the turn of a match someone watches; this covers the rest
        (bots-only matches, players who went away).
        """
        recovered = 0
        for record in self.store.indexed():
            if record.status == "active" and any(seat.type == "bot" for seat in record.seats):
                recovered += self.ensure_progress(self._loaded(record))
        return recovered

    # waiting -------------------------------------------------------------------------------

    def wait(self, match_id: str, after_version: int, timeout: float) -> Loaded:
        """The match as soon as its version passes `after_version`, or after `timeout` seconds."""
        loaded = self.load(match_id)
        if loaded.record.version > after_version or timeout <= 0:
            return loaded
        self.ensure_progress(loaded)
        deadline = time.monotonic() + timeout
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe(storage.channel_for(match_id))
            while True:
                loaded = self.load(match_id)
                remaining = deadline - time.monotonic()
                if loaded.record.version > after_version or remaining <= 0:
                    return loaded
                pubsub.get_message(timeout=remaining)
        finally:
            pubsub.close()

    def events(self, match_id: str, seat: int | None, last_version: int | None) -> Iterator[str]:
        """Server-sent events: the view at each new version, bot progress, keep-alives."""
        pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(storage.channel_for(match_id))
        sent = last_version if last_version is not None else -1
        deadline = time.monotonic() + self.config.SSE_MAX_SECONDS
        try:
            yield "retry: 2000\n\n"
            send_view = True
            while True:
                loaded = self.load(match_id)
                if send_view and loaded.record.version > sent:
                    sent = loaded.record.version
                    data = json.dumps(self.view(loaded, seat), separators=(",", ":"))
                    yield f"id: {sent}\nevent: match\ndata: {data}\n\n"
                    if loaded.record.status == "finished":
                        return
                    self.ensure_progress(loaded)
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                asked = time.monotonic()
                message = pubsub.get_message(
                    timeout=min(remaining, self.config.SSE_KEEPALIVE_SECONDS)
                )
                if message is None:
                    # None also follows an ignored subscribe confirmation: only a real lull is idle.
                    if time.monotonic() - asked >= self.config.SSE_KEEPALIVE_SECONDS * 0.9:
                        yield ": keep-alive\n\n"
                    send_view = True
                    continue
                note = json.loads(message["data"])
                if note.get("kind") == "bot":
                    activity = self._bot_activity(loaded)
                    if activity is not None:
                        yield f"event: bot\ndata: {json.dumps(activity, separators=(',', ':'))}\n\n"
                    send_view = False
                else:
                    send_view = True
        finally:
            pubsub.close()

    # engine edge --------------------------------------------------------------------------

    @staticmethod
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

    # internals ------------------------------------------------------------------------------

    def _loaded(self, record: MatchRecord) -> Loaded:
        game = get_game(record.game)
        return Loaded(record, game, game.decode(record.snapshot))

    def _load_in(self, pipe: Pipeline, match_id: str) -> Loaded:
        record = self.store.load(match_id, pipe)
        if record is None:
            raise MatchNotFound(f"no match {match_id!r} (it may have expired)")
        return self._loaded(record)

    def _commit(self, pipe: Pipeline, loaded: Loaded, move: Move) -> Loaded:
        """Apply `move` and the chance that follows, and queue the writes (starts MULTI)."""
        record, game = loaded.record, loaded.game
        try:
            state = game.apply(loaded.state, move)
        except IllegalMove as error:
            legal = [game.move_to_json(m) for m in game.legal_moves(loaded.state)]
            raise IllegalMoveError(str(error), rule=error.rule, legal_moves=legal) from None
        state, chance = resolve_chance(game, state, record.seed, record.history_length + 1)
        appended = [game.move_to_json(move), *(game.move_to_json(m) for m in chance)]
        record.snapshot = game.encode(state)
        record.history_length += len(appended)
        record.version += 1
        record.updated = time.time()
        if game.is_terminal(state):
            record.status = "finished"
        pipe.multi()
        self.store.write(pipe, record, appended)
        return Loaded(record, game, state)

    def _after_change(self, loaded: Loaded, moved_by: str | None = None) -> None:
        self.store.after_write(loaded.record)
        if moved_by is not None:
            metrics.count_move(self.redis, loaded.record.game, moved_by)
            if loaded.record.status == "finished":
                metrics.count_finished(self.redis, loaded.record.game)
        self._schedule_bot(loaded)

    def _schedule_bot(self, loaded: Loaded) -> None:
        record = loaded.record
        seat = loaded.to_act
        if record.status == "active" and seat is not None and record.seats[seat].type == "bot":
            self.bots.enqueue(record.id, record.version, record.seats[seat].level or "medium")

    def _bot_activity(self, loaded: Loaded) -> dict[str, Any] | None:
        """What the bot to act is doing: queued, or thinking with its progress so far."""
        record = loaded.record
        seat = loaded.to_act
        if record.status != "active" or seat is None or record.seats[seat].type != "bot":
            return None
        progress = self.store.bot_progress(record.id)
        activity: dict[str, Any] = {
            "seat": seat,
            "level": record.seats[seat].level,
            "status": "queued",
            "iterations": 0,
            "elapsed": 0.0,
            "best_move": None,
            "best_visits": 0,
        }
        if progress.get("version") == str(record.version) and progress.get("status") == "thinking":
            activity["status"] = "thinking"
            activity["iterations"] = int(progress.get("iterations", 0))
            activity["elapsed"] = round(float(progress.get("elapsed", 0.0)), 3)
            activity["best_visits"] = int(progress.get("best_visits", 0))
            # The move a bot leans to would reveal its hidden hand: shown only in open games.
            if not loaded.game.info.hidden_information and progress.get("best_move"):
                activity["best_move"] = json.loads(progress["best_move"])
        return activity
