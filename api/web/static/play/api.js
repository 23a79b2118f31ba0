// The Coven HTTP API as the page uses it: JSON calls with the seat token in a header, and a
// live stream opened with a short-lived ticket, so the seat token never appears in a URL.

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

/**
 * Follow a match live over Server-Sent Events: `onView(view)` at once and after every change,
 * `onBot(activity)` while a bot thinks. With a seat token the stream is the seat's own view:
 * the token buys a single-use ticket (POST …/stream-ticket) and only the ticket goes in the
 * URL. Reconnects with a fresh ticket when the server ends a stream; stops once finished.
 */
export function follow(matchId, token, { onView, onBot = () => {}, onTrouble = () => {} }) {
  let source = null;
  let stopped = false;
  let failures = 0;
  const base = `/v1/matches/${encodeURIComponent(matchId)}`;

  async function open() {
    let url = `${base}/events`;
    try {
      if (token) {
        const { ticket } = await call("POST", `${base}/stream-ticket`, { token });
        url += `?ticket=${encodeURIComponent(ticket)}`;
      }
    } catch (error) {
      onTrouble(error);
      retry();
      return;
    }
    if (stopped) return;
    source = new EventSource(url);
    source.addEventListener("match", (event) => {
      failures = 0;
      const view = JSON.parse(event.data);
      onView(view);
      if (view.status === "finished") stop();
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
    const delay = Math.min(250 * 2 ** failures, 8000);
    failures += 1;
    setTimeout(open, delay);
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
