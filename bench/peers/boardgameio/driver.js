// The bench's load: N two-player matches at once, both seats scripted clients playing a legal move
// as soon as their view says they are to act. Usage:
//   node driver.js bgio|coven-ws|coven-sse|coven-longpoll URL MATCHES SECONDS PIDS
// Coven's seats send each move as the official clients do (a socket move with a `ref`, a posted
// one with an Idempotency-Key: each keeps a record, which counts in the memory a match holds).
// Prints one JSON line: moves (seen by the other seat), seconds, latency p50/p99 (ms, from a move
// sent to the other seat holding the new state), server CPU seconds (PIDS, comma-separated, read
// from /proc over the measured window) and the matches created.
const fs = require('fs');
const [target, base, matchesArg, secondsArg, pidsArg] = process.argv.slice(2);
const MATCHES = Number(matchesArg);
const SECONDS = Number(secondsArg);
const PIDS = (pidsArg || '').split(',').filter(Boolean).map(Number);
const TICK = 100; // clock ticks a second (/proc/<pid>/stat)

let measuring = false;
let moves = 0;
let created = 0;
let errors = 0;
const errorKinds = {}; // what the errors were: a problem's status and title, or the failure's name
function failed(kind) { errors += 1; errorKinds[kind] = (errorKinds[kind] || 0) + 1; }
const latencies = [];

function cpuSeconds() {
  let total = 0;
  for (const pid of PIDS) {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / TICK; // utime, stime
  }
  return total;
}

function seen(sentAt) {
  if (!measuring) return;
  moves += 1;
  if (sentAt) latencies.push(performance.now() - sentAt);
}

function pick(list) {
  return list[Math.floor(Math.random() * list.length)];
}

async function json(method, url, body, token, extra = {}) {
  const headers = { 'Content-Type': 'application/json', ...extra };
  if (token) headers.Authorization = `Bearer ${token}`;
  const answer = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await answer.json();
  if (!answer.ok) throw new Error(`${method} ${url}: ${answer.status} ${JSON.stringify(data)}`);
  return data;
}

// --- boardgame.io: its own client over socket.io ------------------------------------------------
async function bgioMatch(stop) {
  const { Client } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const { TrickGame, legalCards } = require('./game');
  while (!stop.done) {
    const { matchID } = await json('POST', `${base}/games/trick/create`, { numPlayers: 2 });
    created += 1;
    const sent = {}; // stateID a move was made at → when
    const clients = [];
    await new Promise((resolve) => {
      for (const playerID of ['0', '1']) {
        json('POST', `${base}/games/trick/${matchID}/join`, { playerID, playerName: `p${playerID}` }).then(({ playerCredentials }) => {
          const client = Client({ game: TrickGame, matchID, playerID, credentials: playerCredentials, debug: false,
            multiplayer: SocketIO({ server: base }) });
          let last = -1;
          client.subscribe((state) => {
            if (!state || !state.isConnected || !Array.isArray(state.G.hands[playerID]) || state._stateID === last) return;
            if (process.env.DEBUG_DRIVER) console.error(playerID, state._stateID, state.ctx.currentPlayer, JSON.stringify(state.G));
            if (state._stateID > last && last >= 0 && sent[state._stateID - 1] && sent[state._stateID - 1].by !== playerID) {
              seen(sent[state._stateID - 1].at);
              delete sent[state._stateID - 1];
            }
            last = state._stateID;
            if (state.ctx.gameover || stop.done) { resolve(); return; }
            if (state.ctx.currentPlayer === playerID && state.isActive) {
              const card = pick(legalCards(state.G, playerID));
              sent[state._stateID] = { at: performance.now(), by: playerID };
              client.moves.play(card);
            }
          });
          client.start();
          clients.push(client);
        }).catch(() => { failed("bgio: join"); resolve(); });
      }
    });
    for (const client of clients) client.stop();
  }
}

// --- Coven: one of its transports ---------------------------------------------------------------
async function covenMatch(stop, transport) {
  while (!stop.done) {
    const seats = [{ type: 'human' }, { type: 'human' }];
    const made = await json('POST', `${base}/v1/matches`, { game: 'witches', seats });
    const id = made.id;
    const joined = await json('POST', `${base}/v1/matches/${id}/join`, { name: 'b' });
    created += 1;
    const tokens = [made.token, joined.token];
    const sent = {}; // version a move was made at → {at, by}
    const ends = []; // what ends each seat's connection (when the match is over)
    const onView = (seat, view) => {
      if (view.status !== 'active') ends.forEach((end) => end());
      const before = sent[view.version - 1];
      if (before && before.by !== seat) { seen(before.at); delete sent[view.version - 1]; }
      if (view.status !== 'active' || stop.done) return null;
      if (view.to_act === seat && view.legal_moves.length) {
        if (!sent[view.version]) sent[view.version] = { at: performance.now(), by: seat };
        return { move: pick(view.legal_moves), version: view.version };
      }
      return null;
    };
    const seatLoops = [0, 1].map((seat) => ({ ws: coven_ws, sse: coven_sse, longpoll: coven_longpoll }[transport])(
      id, seat, tokens[seat], onView, stop, ends));
    await Promise.all(seatLoops);
  }
}

function coven_ws(id, seat, token, onView, stop) {
  const WebSocket = require('ws');
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/matches/${id}/socket`, { headers: { Authorization: `Bearer ${token}` } });
    const timer = setInterval(() => { if (stop.done) ws.close(); }, 200);
    ws.on('message', (data) => {
      const message = JSON.parse(data);
      if (message.type === 'error') failed(`${message.problem.status} ${message.problem.title}`);
      if (message.type !== 'match') return;
      const move = onView(seat, message.view);
      // with a ref, as the official clients send a move: its idempotency key
      if (move) ws.send(JSON.stringify({ type: 'move', ...move, ref: crypto.randomUUID() }));
    });
    ws.on('close', () => { clearInterval(timer); resolve(); });
    ws.on('error', (error) => { if (!stop.done) failed(`socket: ${error.message}`); }); // closed by the stop: not an error
  });
}

async function play(id, token, move) {
  try {
    // with an Idempotency-Key, as the official clients post a move
    return await json('POST', `${base}/v1/matches/${id}/moves`, move, token, { 'Idempotency-Key': crypto.randomUUID() });
  } catch (error) {
    failed(`move: ${error.message}`.slice(0, 80));
    return null;
  }
}

async function coven_longpoll(id, seat, token, onView, stop) {
  let view = await json('GET', `${base}/v1/matches/${id}`, undefined, token);
  while (!stop.done) {
    const move = onView(seat, view);
    if (view.status !== 'active') return;
    if (move) {
      const answer = await play(id, token, move);
      if (answer) { view = answer; continue; }
    }
    view = await json('GET', `${base}/v1/matches/${id}?after_version=${view.version}&wait=30`, undefined, token);
  }
}

async function coven_sse(id, seat, token, onView, stop, ends) {
  const controller = new AbortController();
  ends.push(() => controller.abort());
  const timer = setInterval(() => { if (stop.done) controller.abort(); }, 200);
  let held = 0;
  let reader = null;
  try {
    const answer = await fetch(`${base}/v1/matches/${id}/events`, { headers: { Authorization: `Bearer ${token}` }, signal: controller.signal });
    // A reader, not `for await`: Node 20's fetch body iterator can hang when the stream ends and is
    // aborted at once (the final view); a pending read() rejects on abort, and cancel() is not awaited.
    reader = answer.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!event.includes('event: match')) continue;
        const view = JSON.parse(event.slice(event.indexOf('data: ') + 6));
        if (view.version <= held) continue; // the mover's answer already had it
        held = view.version;
        let next = onView(seat, view);
        if (view.status !== 'active') return;
        // The mover's answer is its next view: while it is still this seat's turn (a trick won, then
        // a lead), play on from the answers; the stream's copies of those versions are skipped.
        while (next) {
          const played = await play(id, token, next);
          if (!played || played.version <= held) break;
          held = played.version;
          next = onView(seat, played);
          if (played.status !== 'active') return;
        }
      }
    }
  } catch (error) {
    if (error.name !== 'AbortError') failed(`stream: ${error.name}`);
  } finally {
    clearInterval(timer);
    controller.abort();
    if (reader) reader.cancel().catch(() => {});
  }
}

async function main() {
  const stop = { done: false };
  const run = target === 'bgio' ? bgioMatch : (s) => covenMatch(s, target.slice('coven-'.length));
  const loops = Array.from({ length: MATCHES }, () => run(stop).catch((error) => { failed(`match: ${error.name}`); console.error(String(error)); }));
  // Every match created and joined (its seats connecting), then a second more: the window measures play, not setup.
  const setupDeadline = performance.now() + 120000;
  while (created < MATCHES && performance.now() < setupDeadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  measuring = true;
  const cpu0 = cpuSeconds();
  const t0 = performance.now();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  measuring = false;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds() - cpu0;
  stop.done = true;
  await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 5000))]);
  latencies.sort((a, b) => a - b);
  const at = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : null);
  console.log(JSON.stringify({ target, matches: MATCHES, moves, seconds, moves_per_s: moves / seconds, p50_ms: at(0.5),
    p99_ms: at(0.99), server_cpu_s: cpu, cpu_ms_per_move: moves ? (1000 * cpu) / moves : null, created, errors, error_kinds: errorKinds }));
  process.exit(0);
}

main();
