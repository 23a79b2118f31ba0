// The Coven HTTP API as the page uses it: JSON calls with the seat token in a header, and the
// match followed live over its WebSocket (or its event stream), opened with a short-lived ticket,
// so the seat token never appears in a URL.

/** An answer other than 2xx: the RFC 9457 problem the server sent. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/** Call the API: `call("POST", "/v1/matches", {body, token})` → the JSON answer. */
export async function call(method, path, { body, token, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new ApiError(response.status, data || {});
  return data;
}

const ENDED = new Set(["finished", "cancelled"]);
/** Connections in a row that fail to open before the socket is given up for the event stream
 * (at once when it never opened: the server or a proxy before it does not speak WebSocket). */
const SOCKET_TRIES = 3;

function backoff(failures) {
  return Math.min(250 * 2 ** failures, 8000);
}

/** A seat token's single-use stream ticket, so that only the ticket goes in a URL. */
async function ticketQuery(base, token) {
  if (!token) return "";
  const { ticket } = await call("POST", `${base}/stream-ticket`, { token });
  return `ticket=${encodeURIComponent(ticket)}`;
}

/**
 * Follow a match live and play on it: `onView(view)` after every change, `onBot(activity)`
 * while a bot thinks. Over the match's WebSocket when the browser can open it (views pushed,
 * moves sent on it with a `ref`, reconnected with `last_version` after a cut); over the event
 * stream and POST /moves otherwise, or once the socket fails SOCKET_TRIES times in a row.
 * Returns `{ play(move, version) → Promise, stop() }`; `play` rejects with an ApiError when
 * the server refuses the move, and its view comes through `onView`.
 */
export function follow(matchId, token, { onView, onBot = () => {}, onTrouble = () => {} }) {
  const base = `/v1/matches/${encodeURIComponent(matchId)}`;
  let stopped = false;
  let stream = null; // the event stream, once the socket is given up
  let socket = null;
  let lastVersion = null; // the last version the page got
  let failures = 0; // socket connections in a row that failed to open
  let everOpened = false;
  let pending = null; // the move sent and not yet answered: { ref, frame, acked, resolve, reject }

  function seen(view) {
    lastVersion = Math.max(lastVersion ?? 0, view.version);
    onView(view);
    if (ENDED.has(view.status)) stopped = true;
    answered();
  }

  /** Settle the move in flight once its ack and its view have both come (in either order). */
  function answered() {
    if (pending && pending.acked !== undefined && lastVersion >= pending.acked) {
      const { resolve, acked } = pending;
      pending = null;
      resolve(acked);
    }
  }

  async function openSocket() {
    if (stopped) return;
    let query;
    try {
      query = await ticketQuery(base, token);
    } catch (error) {
      onTrouble(error);
      return socketLost(false);
    }
    if (lastVersion !== null) query += `${query ? "&" : ""}last_version=${lastVersion}`;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${base}/socket${query ? `?${query}` : ""}`);
    let opened = false;
    socket = ws;
    ws.onopen = () => {
      opened = everOpened = true;
      failures = 0;
      // a move whose answer was lost goes again: the same ref plays it at most once
      if (pending && pending.acked === undefined) ws.send(pending.frame);
    };
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "match") {
        seen(message.view);
      } else if (message.type === "bot") {
        onBot(message.bot);
      } else if (message.type === "ack" && pending && message.ref === pending.ref) {
        pending.acked = message.version;
        answered();
      } else if (message.type === "error" && pending && message.ref === pending.ref) {
        const { reject } = pending;
        pending = null;
        reject(new ApiError(message.problem.status, message.problem));
      }
    };
    ws.onclose = () => {
      if (socket === ws) socket = null;
      socketLost(opened);
    };
  }

  function socketLost(opened) {
    if (stopped) return;
    if (!opened) failures += 1;
    if (!everOpened || failures >= SOCKET_TRIES) return fallBack();
    setTimeout(openSocket, backoff(failures));
  }

  /** The socket cannot be had: the event stream follows, and a move in flight goes by POST. */
  function fallBack() {
    stream = followStream(base, token, { onView: seen, onBot, onTrouble });
    if (pending) {
      // posted under its ref: a move the server played before the cut is answered, not refused
      const { ref, move, version, resolve, reject } = pending;
      pending = null;
      postMove(move, version, `ws:${ref}`).then(resolve, reject);
    }
  }

  async function postMove(move, version, key = crypto.randomUUID()) {
    const headers = { "Idempotency-Key": key };
    const view = await call("POST", `${base}/moves`, { token, body: { move, version }, headers });
    seen(view);
    return view.version;
  }

  function play(move, version) {
    if (stream || !token) return postMove(move, version);
    if (pending) return Promise.reject(new Error("a move is already on its way"));
    const ref = crypto.randomUUID();
    const frame = JSON.stringify({ type: "move", move, version, ref });
    return new Promise((resolve, reject) => {
      pending = { ref, frame, move, version, resolve, reject };
      if (socket && socket.readyState === WebSocket.OPEN) socket.send(frame);
    });
  }

  function stop() {
    stopped = true;
    if (socket) socket.close();
    if (stream) stream.stop();
  }

  if (typeof WebSocket === "function") openSocket();
  else fallBack();
  return { play, stop };
}

/**
 * Follow a match over Server-Sent Events: with a seat token the stream is the seat's own view,
 * opened with a single-use ticket. Reconnects with a fresh ticket when the server ends a
 * stream; stops once the match has ended.
 */
function followStream(base, token, { onView, onBot, onTrouble }) {
  let source = null;
  let stopped = false;
  let failures = 0;

  async function open() {
    let query;
    try {
      query = await ticketQuery(base, token);
    } catch (error) {
      onTrouble(error);
      retry();
      return;
    }
    if (stopped) return;
    source = new EventSource(`${base}/events${query ? `?${query}` : ""}`);
    source.addEventListener("match", (event) => {
      failures = 0;
      const view = JSON.parse(event.data);
      onView(view);
      if (ENDED.has(view.status)) stop();
    });
    source.addEventListener("bot", (event) => onBot(JSON.parse(event.data)));
    // The stream ended (time limit) or broke: a ticket is single-use, so open a new one
    // ourselves rather than let EventSource retry the spent URL.
    source.onerror = () => {
      source.close();
      retry();
    };
  }

  function retry() {
    if (stopped) return;
    setTimeout(open, backoff(failures));
    failures += 1;
  }

  function stop() {
    stopped = true;
    if (source) source.close();
  }

  open();
  return { stop };
}

// Seat tokens live in this tab's sessionStorage: a reload keeps the seat, another tab (or a
// person opening the join link) is someone else.
const KEY = (matchId) => `coven:seat:${matchId}`;

export function savedToken(matchId) {
  return sessionStorage.getItem(KEY(matchId));
}

export function saveToken(matchId, token) {
  sessionStorage.setItem(KEY(matchId), token);
}
