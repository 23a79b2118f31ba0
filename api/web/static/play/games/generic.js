// The fallback for a registered game without its own table: the state as text, a button per
// legal move. Every game module exports the same three functions: table, moveLabel, describe.

import { h } from "../dom.js";

/** A move as words: {"type": "take", "spot": 3} → "take: spot 3". */
export function moveLabel(move) {
  const { type, ...rest } = move;
  const details = Object.entries(rest).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : v}`);
  return details.length ? `${type}: ${details.join(", ")}` : type;
}

/** One log entry as a sentence. */
export function describe(entry, ui) {
  const who = entry.chance ? "Chance" : ui.seatName(entry.seat);
  return `${who}: ${moveLabel(entry.move)}`;
}

export function table(view, ui) {
  return h("section", { class: "generic", "aria-label": "The game" },
    h("pre", {}, JSON.stringify(view.state, null, 2)),
    ui.legal.length ? h("div", { class: "moves" }, ui.legal.map((move) =>
      h("button", { type: "button", onclick: () => ui.play(move) }, moveLabel(move)))) : null);
}
