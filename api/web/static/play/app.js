// The reference client: a lobby that creates matches, a join page, and the match page that
// follows a match live and plays legal moves. Game tables come from one module per game.

import { ApiError, call, follow, saveToken, savedToken } from "./api.js";
import { h, listed } from "./dom.js";
import * as cube from "./games/cube.js";
import * as enchanters from "./games/enchanters.js";
import * as generic from "./games/generic.js";
import * as witches from "./games/witches.js";

const main = document.getElementById("main");
// One table renderer per game; a registered game without one still plays with the generic one.
const RENDERERS = { cube, enchanters, witches };

function renderer(gameId) {
  return RENDERERS[gameId] || generic;
}

function show(...nodes) {
  main.replaceChildren(...nodes);
}

function failure(error) {
  const text = error instanceof ApiError ? `${error.status}: ${error.message}` : String(error);
  return h("p", { class: "error", role: "alert" }, text);
}

// --- the lobby: create a match ------------------------------------------------------------

async function lobby() {
  document.title = "Coven — new match";
  const { games } = await call("GET", "/v1/games");
  const form = h("form", { class: "create", "aria-labelledby": "create-title" });
  const gameSelect = h("select", { id: "game", name: "game" },
    games.map((g) => h("option", { value: g.id }, g.title)));
  const seatsBox = h("fieldset", { class: "seats" });
  const optionsBox = h("div", { class: "options" });
  const countSelect = h("select", { id: "count", name: "count" });
  const summary = h("p", { class: "summary" });
  const errors = h("div");

  function game() {
    return games.find((g) => g.id === gameSelect.value);
  }

  function seatRow(index) {
    const level = h("select", { name: `level-${index}`, "aria-label": `Bot level, player ${index + 1}` },
      game().bot_levels.map((l) => h("option", { value: l.name, selected: l.name === "easy" }, l.name)));
    const type = h("select", { name: `type-${index}`, "aria-label": `Player ${index + 1}` },
      h("option", { value: "human", selected: index === 0 }, index === 0 ? "You" : "A person (join link)"),
      h("option", { value: "bot", selected: index !== 0 }, "A bot"));
    const sync = () => { level.hidden = type.value !== "bot"; };
    type.addEventListener("change", sync);
    sync();
    return h("div", { class: "seat-row" }, h("span", { class: "seat-no" }, `Player ${index + 1}`), type, level);
  }

  function rebuild() {
    const g = game();
    summary.replaceChildren(g.summary, " ", h("a", { href: `/guide/play/${g.id}/`, class: "how-to-play" }, `How to play ${g.title}`),
      " · ", h("a", { href: `/play?rules=${g.id}` }, "the rules"));
    const count = Number(countSelect.value) || g.min_players;
    countSelect.replaceChildren(...Array.from({ length: g.max_players - g.min_players + 1 }, (_, i) => {
      const n = g.min_players + i;
      return h("option", { value: n, selected: n === Math.min(Math.max(count, g.min_players), g.max_players) }, `${n} players`);
    }));
    rebuildSeats();
    optionsBox.replaceChildren(...g.options.map((o) => {
      const id = `option-${o.name}`;
      const input = o.choices
        ? h("select", { id, name: o.name }, o.choices.map((c) => h("option", { value: c, selected: c === o.default }, c)))
        : h("input", { id, name: o.name, value: o.default ?? "" });
      return h("div", { class: "field" }, h("label", { for: id }, o.name.charAt(0).toUpperCase() + o.name.slice(1)), input,
        h("small", {}, o.description));
    }));
  }

  function rebuildSeats() {
    seatsBox.replaceChildren(h("legend", {}, "Players, in play order"),
      ...Array.from({ length: Number(countSelect.value) }, (_, i) => seatRow(i)));
  }

  gameSelect.addEventListener("change", rebuild);
  countSelect.addEventListener("change", rebuildSeats);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const g = game();
    const seats = Array.from({ length: Number(countSelect.value) }, (_, i) =>
      data.get(`type-${i}`) === "bot" ? { type: "bot", level: data.get(`level-${i}`) } : { type: "human" });
    const options = Object.fromEntries(g.options.map((o) => [o.name, data.get(o.name)]));
    try {
      const created = await call("POST", "/v1/matches", { body: { game: g.id, seats, options } });
      if (created.token) saveToken(created.id, created.token);
      navigate(`?match=${created.id}`);
    } catch (error) {
      errors.replaceChildren(failure(error));
    }
  });

  form.append(
    h("h2", { id: "create-title" }, "New match"),
    h("div", { class: "field" }, h("label", { for: "game" }, "Game"), gameSelect),
    summary,
    h("div", { class: "field" }, h("label", { for: "count" }, "Players"), countSelect),
    seatsBox, optionsBox, errors,
    h("button", { type: "submit", class: "primary" }, "Create the match"),
  );
  rebuild();
  const open = h("section", { class: "open-matches", "aria-labelledby": "open-title" },
    h("h2", { id: "open-title" }, "Matches waiting for players"), h("p", {}, "Loading…"));
  const live = h("section", { class: "open-matches", "aria-labelledby": "live-title" },
    h("h2", { id: "live-title" }, "Matches being played: watch one"), h("p", {}, "Loading…"));
  show(h("h1", {}, "Play The Witches' Wheel, The Enchanters' Gathering and The Magic Cube"), form, open, live);
  const titles = Object.fromEntries(games.map((g) => [g.id, g.title]));
  const players = (m) => `${m.seats.length} players`;
  try {
    const [waiting, active] = await Promise.all([
      call("GET", "/v1/matches?status=waiting"), call("GET", "/v1/matches?status=active")]);
    open.replaceChildren(open.firstChild, waiting.matches.length
      ? h("ul", {}, waiting.matches.map((m) => h("li", {}, h("a", { href: `?join=${m.id}` },
        `${titles[m.game] || m.game}, ${players(m)}: ${m.open_seats.length} open seat${m.open_seats.length === 1 ? "" : "s"}`))))
      : h("p", {}, "None right now."));
    live.replaceChildren(live.firstChild, active.matches.length
      ? h("ul", {}, active.matches.slice(0, 10).map((m) => h("li", {}, h("a", { href: `?match=${m.id}` },
        `${titles[m.game] || m.game}, ${players(m)} (version ${m.version})`))))
      : h("p", {}, "None right now."));
  } catch (error) {
    open.replaceChildren(open.firstChild, failure(error));
  }
}

// --- the join page --------------------------------------------------------------------------

async function joinPage(matchId) {
  document.title = "Coven — join";
  if (savedToken(matchId)) return navigate(`?match=${matchId}`, true);
  const view = await call("GET", `/v1/matches/${matchId}`);
  const open = view.seats.filter((s) => s.type === "human" && !s.filled);
  const { title } = await call("GET", `/v1/games/${view.game}`);
  const box = h("section", { class: "join", "aria-labelledby": "join-title" },
    h("h1", { id: "join-title" }, `Join a match of ${title}`),
    h("p", {}, `Players: ${listed(view.seats.map((s) => `${s.seat + 1} ${s.type === "bot" ? `(${s.level} bot)` : s.filled ? "(taken)" : "(free)"}`))}.`));
  if (!open.length) {
    box.append(h("p", {}, "Every seat is taken."), h("a", { href: `?match=${matchId}` }, "Watch the match"));
  } else {
    const errors = h("div");
    box.append(h("button", {
      class: "primary",
      onclick: async () => {
        try {
          const joined = await call("POST", `/v1/matches/${matchId}/join`);
          saveToken(matchId, joined.token);
          navigate(`?match=${matchId}`, true);
        } catch (error) {
          errors.replaceChildren(failure(error));
        }
      },
    }, `Join as Player ${open[0].seat + 1}`), " ", h("a", { href: `?match=${matchId}` }, "or just watch"), errors);
  }
  show(box);
}

// --- the rules page: the rules document the API serves, as a page -----------------------------

/** Markdown's few forms the rules use (headings, list items, paragraphs, **bold**, `code`) as nodes. */
function markdown(text) {
  const inline = (line) => line.split(/(\*\*[^*]+\*\*|`[^`]+`)/).map((part) =>
    part.startsWith("**") ? h("strong", {}, part.slice(2, -2)) : part.startsWith("`") ? h("code", {}, part.slice(1, -1)) : part);
  const nodes = [];
  let list = null;
  for (const block of text.split(/\n\s*\n/)) {
    for (const line of block.replace(/\n\s+/g, " ").split("\n")) {
      const heading = line.match(/^(#{1,3}) (.*)$/);
      if (heading) {
        list = null;
        nodes.push(h(`h${heading[1].length}`, {}, inline(heading[2])));
      } else if (line.startsWith("- ")) {
        if (!list) nodes.push(list = h("ul", {}));
        list.append(h("li", {}, inline(line.slice(2))));
      } else if (line.trim()) {
        list = null;
        nodes.push(h("p", {}, inline(line)));
      }
    }
    list = null;
  }
  return nodes;
}

async function rulesPage(gameId) {
  const game = await call("GET", `/v1/games/${gameId}`);
  document.title = `Coven — the rules of ${game.title}`;
  show(h("p", { class: "help-links" }, h("a", { href: `/guide/play/${gameId}/` }, `How to play ${game.title}, in plain words`)),
    h("article", { class: "rules" }, markdown(game.rules)));
}

// --- the match page -------------------------------------------------------------------------

async function matchPage(matchId) {
  const token = savedToken(matchId);
  const first = await call("GET", `/v1/matches/${matchId}`, { token });
  const module = renderer(first.game);
  const { games } = await call("GET", "/v1/games");
  const info = games.find((g) => g.id === first.game) || { title: first.game, bot_levels: [] };
  const page = new MatchPage(matchId, token, module, info);
  page.update(first);
  page.live = follow(matchId, token, {
    onView: (view) => page.update(view),
    onBot: (activity) => page.botProgress(activity),
  });
}

class MatchPage {
  constructor(matchId, token, module, info) {
    this.matchId = matchId;
    this.token = token;
    this.module = module;
    this.info = info;
    this.view = null;
    this.seen = new Map(); // version → the view this page saw then, for stepping through the log
    this.local = {}; // per-renderer UI state (selections) kept across re-renders of one version
    this.busy = false;
    this.header = h("div", { class: "match-head" });
    this.status = h("p", { class: "status", role: "status", tabindex: "-1" });
    this.bot = h("div", { class: "bot-activity" });
    this.share = h("div", { class: "share" });
    this.table = h("div", { class: "table-area" });
    this.errors = h("div", { class: "move-errors" });
    this.after = h("div", { class: "after" });
    this.feed = h("section", { class: "feed", "aria-label": "Latest moves" });
    this.feedVersion = 0; // the version whose log the feed shows
    this.movesOpen = false; // whether "Every legal move" is unfolded, kept across re-renders
    // Whose turn it is (and a thinking bot's progress) stays in sight while the table scrolls;
    // after the end, the replay's controls come before the table they step through.
    this.turnBar = h("div", { class: "turn-bar" }, this.status, this.bot);
    // The table comes before the feed, so that at phone size your hand and moves are on the first screen.
    show(this.header, this.turnBar, this.share, this.errors, this.after, this.table, this.feed);
  }

  seatName(seat, { capital = true } = {}) {
    if (seat === null || seat === undefined) return "nobody";
    if (seat === this.view.you) return capital ? "You" : "you";
    const s = this.view.seats[seat];
    return `Player ${seat + 1}${s && s.type === "bot" ? ` (${s.level} bot)` : ""}`;
  }

  update(view) {
    if (this.view && view.version < this.view.version) return; // a late answer
    const changed = !this.view || view.version !== this.view.version;
    this.view = view;
    this.seen.set(view.version, view);
    if (changed) this.local = { ...this.local, selection: undefined };
    this.render();
    if (view.bot) this.botProgress(view.bot);
    if (changed && view.status !== "finished") this.refreshFeed();
  }

  /** The last few log entries in words: what the others (and chance) just did. */
  async refreshFeed() {
    if (this.feedBusy) return;
    this.feedBusy = true;
    try {
      while (this.feedVersion < this.view.version && this.view.status !== "finished") {
        const log = await call("GET", `/v1/matches/${this.matchId}/log`, { token: this.token });
        this.feedVersion = log.version;
        const describe = this.module.describe || generic.describe;
        const ui = this.ui();
        const recent = log.entries.slice(-4);
        this.feed.replaceChildren(...(recent.length ? [h("h2", { class: "visually-hidden" }, "Latest moves"),
          h("ol", { class: "feed-list", start: log.entries.length - recent.length + 1 }, recent.map((entry) =>
            h("li", { class: entry.chance ? "chance" : "" }, describe(entry, ui))))] : []));
      }
    } catch {
      // the feed is a convenience: the table itself is always current
    } finally {
      this.feedBusy = false;
    }
  }

  ui() {
    const page = this;
    return {
      view: this.view,
      you: this.view.you,
      legal: this.view.legal_moves,
      local: this.local,
      seatName: (seat, opts) => page.seatName(seat, opts),
      // who made a log entry's move ("" for chance), and the verb's "s" ("you take", "Ada takes")
      actor: (entry) => ({
        who: entry.seat !== null && entry.seat !== undefined ? page.seatName(entry.seat) : "",
        s: entry.seat === page.view.you ? "" : "s",
      }),
      play: (move) => page.play(move),
      rerender: () => page.render(),
    };
  }

  render() {
    const view = this.view;
    const active = document.activeElement;
    const focused = active && active.dataset ? active.dataset.key : undefined;
    const hadFocus = active && active !== main && main.contains(active);
    this.header.replaceChildren(
      h("h1", {}, this.info.title),
      h("p", { class: "meta" }, `Match ${view.id} · version ${view.version} · `,
        view.you === null ? "you are watching" : `you are Player ${view.you + 1}`,
        view.seeded ? " · seeded" : "", " · ",
        h("a", { href: `/guide/play/${view.game}/`, class: "how-to-play" }, "How to play"), " · ",
        h("a", { href: `/play?rules=${view.game}`, class: "rules-link" }, "Rules")));
    this.status.textContent = this.statusLine();
    const yourTurn = view.status === "active" && view.you !== null && view.to_act === view.you;
    this.turnBar.classList.toggle("your-turn", yourTurn);
    document.title = `${yourTurn ? "▶ Your turn · " : view.status === "finished" ? "Finished · " : ""}${this.info.title} — Coven`;
    if (!view.bot) this.bot.replaceChildren();
    this.renderShare();
    const ui = this.ui();
    this.table.replaceChildren(this.module.table(view, ui), this.allMoves(ui));
    if (view.status === "finished") this.renderAfter();
    // Keep keyboard focus where it was; when that control is gone (the card was played), put
    // it on the turn line just above the table, so Tab leads straight back into it.
    const again = focused && main.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again && !again.disabled) again.focus();
    else if (hadFocus && !main.contains(document.activeElement)) this.status.focus({ preventScroll: true });
  }

  statusLine() {
    const view = this.view;
    if (view.status === "waiting") {
      const open = view.seats.filter((s) => !s.filled).length;
      return `Waiting for ${open} more player${open === 1 ? "" : "s"} to join.`;
    }
    if (view.status === "finished") return `Finished. ${this.outcomeLine()}`;
    if (view.you !== null && view.to_act === view.you) return "Your turn.";
    if (view.to_act === null || view.to_act === undefined) return "Waiting.";
    return `${this.seatName(view.to_act)} to play.`;
  }

  outcomeLine() {
    const outcome = this.view.outcome;
    if (!outcome) return "";
    const winners = outcome.winners.map((s) => this.seatName(s));
    const verb = winners.length === 1 && winners[0] !== "You" ? "wins" : "win";
    const scores = outcome.scores.map((score, seat) => `${this.seatName(seat)}: ${score}`).join(", ");
    const explain = (this.module.endText && this.module.endText(outcome, this.ui())) || endText(outcome);
    return `${listed(winners)} ${verb}. ${explain} Scores: ${scores}.`;
  }

  botProgress(activity) {
    if (!this.view || this.view.status !== "active" || activity.seat !== this.view.to_act) return; // stale
    const level = this.info.bot_levels.find((l) => l.name === activity.level);
    const budget = level ? level.iterations : 0;
    const name = this.seatName(activity.seat);
    const text = {
      thinking: `${name} is thinking: ${activity.iterations.toLocaleString("en")} of at most ${budget.toLocaleString("en")} simulations, ${activity.elapsed.toFixed(1)} s`,
      failed: `${name}'s turn failed on the server; it will be tried again shortly.`,
    }[activity.status] || `${name} is choosing a move…`;
    const bar = budget && activity.status === "thinking"
      ? h("progress", { max: budget, value: Math.min(activity.iterations, budget), "aria-label": `${name}'s search` })
      : null;
    this.bot.replaceChildren(...[h("p", {}, text), bar].filter(Boolean));
  }

  renderShare() {
    const view = this.view;
    const open = view.seats.filter((s) => s.type === "human" && !s.filled);
    if (view.status !== "waiting" || !open.length) {
      this.share.replaceChildren();
      return;
    }
    const link = `${location.origin}/play?join=${view.id}`;
    const input = h("input", { id: "join-link", readonly: true, value: link, size: link.length });
    const copied = h("span", { role: "status" });
    this.share.replaceChildren(h("label", { for: "join-link" }, "Send this join link to the other players: "), input, " ",
      h("button", {
        type: "button",
        onclick: async () => {
          input.select();
          try {
            await navigator.clipboard.writeText(link);
            copied.textContent = "Copied.";
          } catch {
            copied.textContent = "Select the link and copy it.";
          }
        },
      }, "Copy"), " ", copied);
  }

  allMoves(ui) {
    const legal = this.view.legal_moves;
    if (!legal.length) return h("span");
    const label = this.module.moveLabel || generic.moveLabel;
    return h("details", { class: "all-moves", open: this.movesOpen, ontoggle: (event) => { this.movesOpen = event.target.open; } },
      h("summary", {}, `Every legal move (${legal.length})`),
      h("ul", {}, legal.map((move, i) => h("li", {}, h("button", {
        type: "button", dataset: { key: `any-${i}-${JSON.stringify(move)}` }, onclick: () => ui.play(move),
      }, label(move, ui))))));
  }

  async play(move) {
    if (this.busy) return;
    this.busy = true;
    this.errors.replaceChildren();
    try {
      await this.live.play(move, this.view.version); // its view comes through `update`
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) {
        this.update(await call("GET", `/v1/matches/${this.matchId}`, { token: this.token }));
      } else {
        this.errors.replaceChildren(failure(error));
      }
    } finally {
      this.busy = false;
    }
  }

  /** During the replay, the table as it stood at `version` (or the latest earlier one seen). */
  showTableAt(version, caption) {
    const versions = [...this.seen.keys()].filter((v) => v <= version).sort((a, b) => b - a);
    const shown = this.seen.get(versions[0]) || this.view;
    const final = shown === this.view;
    caption.textContent = final ? "The table below is the final one."
      : `The table below is as it stood at version ${shown.version}${shown.version === version ? "" : ` (the latest this page saw before version ${version})`}.`;
    const past = { ...shown, legal_moves: [] };
    const ui = { ...this.ui(), view: past, legal: [], play: () => {}, rerender: () => {} };
    this.table.replaceChildren(this.module.table(past, ui));
  }

  async renderAfter() {
    if (this.after.dataset.done) return;
    this.after.dataset.done = "yes";
    this.feed.replaceChildren(); // the replay below tells it all
    const log = await call("GET", `/v1/matches/${this.matchId}/log`, { token: this.token });
    const describe = this.module.describe || generic.describe;
    const ui = this.ui();
    const lines = log.entries.map((entry) => describe(entry, ui));
    // Every player's move made one version (joins made the first ones): the table after entry i
    // is the view of version `first + moves up to i`, if this page saw it.
    const movesUpTo = [];
    let count = 0;
    for (const entry of log.entries) movesUpTo.push(entry.chance ? count : ++count);
    const firstVersion = this.view.version - count;
    const caption = h("p", { class: "replay-caption" });
    let at = lines.length - 1;
    const counter = h("p", { class: "replay-at", "aria-live": "polite" });
    const list = h("ol", { class: "replay-list" });
    const slider = h("input", { type: "range", min: 0, max: lines.length - 1, value: at, id: "replay-slider" });
    const go = (index) => {
      at = Math.max(0, Math.min(lines.length - 1, index));
      slider.value = at;
      counter.textContent = `Step ${at + 1} of ${lines.length}: ${lines[at]}`;
      this.showTableAt(firstVersion + movesUpTo[at], caption);
      list.replaceChildren(...lines.slice(0, at + 1).map((line, i) =>
        h("li", { "aria-current": i === at ? "step" : null, class: log.entries[i].chance ? "chance" : "" }, line)));
      const current = list.lastElementChild;
      if (current) current.scrollIntoView({ block: "nearest" });
    };
    slider.addEventListener("input", () => go(Number(slider.value)));
    const button = (text, key, delta) => h("button", { type: "button", dataset: { key }, onclick: () => go(delta(at)) }, text);
    this.after.replaceChildren(h("section", { class: "replay", "aria-labelledby": "replay-title" },
      h("h2", { id: "replay-title" }, "Step through the match"),
      h("div", { class: "replay-controls" },
        button("« First", "replay-first", () => 0),
        button("‹ Previous", "replay-prev", (i) => i - 1),
        h("label", { for: "replay-slider", class: "visually-hidden" }, "Step"), slider,
        button("Next ›", "replay-next", (i) => i + 1),
        button("Last »", "replay-last", () => lines.length - 1)),
      counter, caption, list),
    h("p", {}, h("a", { href: "/play" }, "Play another match")));
    go(at);
  }
}

/** How a match ended, in words, for the ends every game shares (a game module explains its own). */
function endText(outcome) {
  if (outcome.reason === "resigned") return "Every other player resigned.";
  return `The game ended: ${outcome.reason.replaceAll("_", " ")}.`;
}

// --- routing ----------------------------------------------------------------------------------

function navigate(query, replace = false) {
  const url = `/play${query}`;
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  route();
}

async function route() {
  const params = new URLSearchParams(location.search);
  try {
    if (params.get("rules")) await rulesPage(params.get("rules"));
    else if (params.get("join")) await joinPage(params.get("join"));
    else if (params.get("match")) await matchPage(params.get("match"));
    else await lobby();
  } catch (error) {
    show(failure(error), h("p", {}, h("a", { href: "/play" }, "Back to the lobby")));
  }
}

window.addEventListener("popstate", () => location.reload());
route();
