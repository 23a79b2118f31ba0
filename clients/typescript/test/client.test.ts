// The client against a live server (COVEN_API): run by tests/test_client_typescript.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Coven, CovenError, type MatchView, type WebSocketClass } from "../src/index";

const API = process.env.COVEN_API!;

/** A fetch that records each request's method and path. */
function recording(requests: string[]): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    requests.push(`${request.method} ${new URL(request.url).pathname}`);
    return fetch(input, init);
  };
}

for (const game of ["witches", "cube", "enchanters"] as const) {
  test(`a seat plays ${game} to the end over its socket: no move posted, no stream opened`, async () => {
    const requests: string[] = [];
    const seat = await new Coven(API, { fetch: recording(requests) }).playAgainst(game, "random");
    let moves = 0;
    const final = await seat.playWith((view) => {
      assert.ok(seat.socket, "not over the socket");
      moves++;
      return view.legal_moves[0];
    });
    assert.equal(final.status, "finished");
    assert.equal(final.game, game);
    assert.equal(final.state.game, game);
    assert.ok(final.outcome && final.outcome.winners.length > 0);
    assert.ok(moves > 0);
    assert.deepEqual(requests, ["POST /v1/matches", `POST /v1/matches/${seat.id}/stream-ticket`]);
  });
}

test("a cut socket is reopened from the last version and its unanswered move sent again", async () => {
  const { WebSocket: NodeWebSocket } = await import("ws");
  const opened: string[] = [];
  const sent: { ref: string }[] = [];
  let cuts = 2;
  class Cutting extends NodeWebSocket {
    constructor(url: string) {
      super(url);
      opened.push(url);
    }

    send(data: string): void {
      const message = JSON.parse(data);
      const first = !sent.some((earlier) => earlier.ref === message.ref);
      super.send(data);
      sent.push(message);
      if (cuts > 0 && first) {
        cuts--;
        setImmediate(() => this.terminate()); // the move went out; its answer never comes back
      }
    }
  }
  const coven = new Coven(API, { WebSocket: Cutting as unknown as WebSocketClass });
  const seat = await coven.playAgainst("witches", "random");
  const versions: number[] = [];
  for await (const view of seat.views()) {
    versions.push(view.version);
    if (seat.isMyTurn) await seat.play(view.legal_moves[0]);
  }
  assert.equal(seat.view.status, "finished");
  assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => versions[0] + i));
  assert.equal(opened.length, 3);
  assert.ok(!opened[0].includes("last_version") && opened.slice(1).every((url) => /last_version=\d+/.test(url)));
  const refs = sent.map((message) => message.ref);
  const distinct = new Set(refs);
  assert.equal([...distinct].filter((ref) => refs.filter((r) => r === ref).length === 2).length, 2);
  const { data: log } = await coven.api.GET("/v1/matches/{match_id}/log", {
    params: { path: { match_id: seat.id } }, headers: { Authorization: `Bearer ${seat.token}` } });
  assert.ok(log);
  assert.equal(log.entries.filter((entry) => entry.seat === 0 && !entry.chance).length, distinct.size);
});

test("a socket that cannot be reopened hands its move to POST under its ref, and the match goes on", async () => {
  // The server plays a move; its ack is lost with the connection, which never opens again: the
  // move is posted as `Idempotency-Key: ws:<ref>` and answered (not refused as a conflict).
  const { WebSocket: NodeWebSocket } = await import("ws");
  const requests: string[] = [];
  let lost: string | undefined;
  class Dying extends NodeWebSocket {
    constructor(url: string) {
      super(lost ? "ws://127.0.0.1:9/refused" : url); // once cut, the socket cannot be had
    }

    emit(event: string | symbol, ...args: unknown[]): boolean {
      if (event === "message" && lost === undefined) {
        const message = JSON.parse(String(args[0]));
        if (message.type === "ack") {
          lost = message.ref;
          this.terminate();
        }
      }
      if (event === "message" && lost !== undefined) return true; // lost with the connection
      return super.emit(event, ...args);
    }
  }
  const coven = new Coven(API, { WebSocket: Dying as unknown as WebSocketClass, fetch: recording(requests) });
  const seat = await coven.playAgainst("witches", "random");
  const versions: number[] = [];
  let played = 0;
  for await (const view of seat.views()) {
    versions.push(view.version);
    if (seat.isMyTurn) {
      await seat.play(view.legal_moves[0]);
      played++;
    }
  }
  assert.ok(lost);
  assert.equal(seat.view.status, "finished");
  assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => versions[0] + i));
  // after the match: tickets for the socket and its tries to reopen, then the move, then the stream
  const after = requests.slice(1).filter((request) => !request.endsWith("/stream-ticket"));
  assert.equal(after[0], `POST /v1/matches/${seat.id}/moves`);
  assert.ok(after.includes(`GET /v1/matches/${seat.id}/events`));
  const { data: log } = await coven.api.GET("/v1/matches/{match_id}/log", {
    params: { path: { match_id: seat.id } }, headers: { Authorization: `Bearer ${seat.token}` } });
  assert.ok(log);
  assert.equal(log.entries.filter((entry) => entry.seat === 0 && !entry.chance).length, played);
});

test("a cut stream resumes with Last-Event-ID on a new ticket, skipping no version", async () => {
  let cuts = 3;
  const resumedFrom: (string | null)[] = [];
  const cutting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = String(input instanceof Request ? input.url : input);
    if (!url.includes("/events?ticket=")) return response;
    resumedFrom.push(new Headers(init?.headers).get("Last-Event-ID"));
    if (cuts === 0 || !response.body) return response;
    cuts--;
    const reader = response.body.getReader();
    let seen = "";
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        controller.enqueue(value);
        seen += new TextDecoder().decode(value);
        if (seen.includes("event: match") && seen.endsWith("\n\n")) {
          await reader.cancel();
          controller.error(new TypeError("the connection dropped"));
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const seat = await new Coven(API, { fetch: cutting, transport: "http" }).playAgainst("witches", "random");
  const versions: number[] = [];
  for await (const view of seat.views()) {
    versions.push(view.version);
    if (seat.isMyTurn) await seat.play(view.legal_moves[0]);
  }
  assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => versions[0] + i));
  assert.deepEqual(resumedFrom.slice(0, 4), [null, ...versions.slice(0, 3).map(String)]);
});

test("a refused move is a CovenError carrying the problem, on the socket and posted", async () => {
  const seat = await new Coven(API).playAgainst("cube", "random");
  const candidates = [{ type: "roll" }, { type: "choose", object: "book" }, { type: "turn", via: "red" }] as const;
  const refused = (error: unknown) =>
    error instanceof CovenError && error.status === 422 && typeof error.problem.rule === "string";
  let view: MatchView | undefined;
  let illegal: (typeof candidates)[number] | undefined;
  for await (const v of seat.views()) {
    if (!seat.isMyTurn) continue;
    view = v;
    const legal = new Set(view.legal_moves.map((move) => JSON.stringify(move)));
    illegal = candidates.find((move) => !legal.has(JSON.stringify(move)));
    assert.ok(illegal && seat.socket);
    await assert.rejects(seat.play(illegal), refused); // on the socket
    break;
  }
  assert.ok(view && illegal && !seat.socket);
  await assert.rejects(seat.play(illegal), refused); // posted
});
