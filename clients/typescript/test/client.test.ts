// The client against a live server (COVEN_API): run by tests/test_client_typescript.py.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Coven, CovenError, type MatchView } from "../src/index";

const API = process.env.COVEN_API!;

for (const game of ["witches", "cube", "enchanters"] as const) {
  test(`a seat plays ${game} to the end through its stream`, async () => {
    const seat = await new Coven(API).playAgainst(game, "random");
    const final = await seat.playWith((view) => view.legal_moves[0]);
    assert.equal(final.status, "finished");
    assert.equal(final.game, game);
    assert.equal(final.state.game, game);
    assert.ok(final.outcome && final.outcome.winners.length > 0);
  });
}

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
  const seat = await new Coven(API, { fetch: cutting }).playAgainst("witches", "random");
  const versions: number[] = [];
  for await (const view of seat.views()) {
    versions.push(view.version);
    if (seat.isMyTurn) await seat.play(view.legal_moves[0]);
  }
  assert.deepEqual(versions, Array.from({ length: versions.length }, (_, i) => versions[0] + i));
  assert.deepEqual(resumedFrom.slice(0, 4), [null, ...versions.slice(0, 3).map(String)]);
});

test("a refused move is a CovenError carrying the problem", async () => {
  const seat = await new Coven(API).playAgainst("cube", "random");
  let view: MatchView | undefined;
  for await (const v of seat.views()) {
    if (seat.isMyTurn) { view = v; break; }
  }
  assert.ok(view);
  const legal = new Set(view.legal_moves.map((move) => JSON.stringify(move)));
  const candidates = [{ type: "roll" }, { type: "choose", object: "book" }, { type: "turn", via: "red" }] as const;
  const illegal = candidates.find((move) => !legal.has(JSON.stringify(move)));
  assert.ok(illegal);
  await assert.rejects(seat.play(illegal),
    (error: unknown) => error instanceof CovenError && error.status === 422 && typeof error.problem.rule === "string");
});
