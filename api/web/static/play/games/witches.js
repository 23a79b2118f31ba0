// The Witches' Wheel as a table: the trump card and the wheel's ranking, the trick on the
// table, every player's captures and score, your hand (click a card to play it), and the
// trump decision after a won trick.

import { h, listed } from "../dom.js";

function parse(name) {
  const [colour, value] = name.split("-");
  return { colour, value: Number(value) };
}

function words(name) {
  const { colour, value } = parse(name);
  return `${colour} ${value}`;
}

/** A card face; a button when `onclick` is given. */
function card(name, { onclick, label, small = false, key, extra = "" } = {}) {
  const { colour, value } = parse(name);
  const cls = `card w-${colour}${small ? " small" : ""}${extra ? ` ${extra}` : ""}`;
  const face = [h("span", { class: "value" }, value), h("span", { class: "colour" }, colour)];
  if (onclick) {
    return h("button", { type: "button", class: cls, onclick, "aria-label": label || words(name), dataset: { key } }, face);
  }
  return h("span", { class: cls, role: "img", "aria-label": label || words(name) }, face);
}

export function moveLabel(move) {
  if (move.type === "play") return `Play ${words(move.card)}`;
  if (move.type === "trump") return `Give up ${words(move.card)}: it becomes the trump`;
  if (move.type === "keep") return "Keep the trump as it is";
  return move.type;
}

/** How the match ended, in words (shown with the result). */
export function endText(outcome) {
  if (outcome.reason === "hands_empty") {
    return "The last trick was played and every hand is empty: the most Magic Points wins (tied: more witches captured).";
  }
  return null;
}

export function describe(entry, ui) {
  const m = entry.move;
  const { who } = ui.actor(entry);
  switch (m.type) {
    case "deal":
      if (m.seat === undefined) return `Dealt: ${words(m.card)}`; // a finished log names no receiver
      return m.card ? `${ui.seatName(m.seat)} ${m.seat === ui.you ? "are" : "is"} dealt ${words(m.card)}` : `A card is dealt to ${ui.seatName(m.seat, { capital: false })}`;
    case "reveal": return `The trump card turned up: ${words(m.card)}`;
    case "first": return `${ui.seatName(m.seat)} lead${m.seat === ui.you ? "" : "s"} the first trick`;
    case "draw":
      if (m.seat === undefined) return `Drawn: ${words(m.card)}`;
      return m.card ? `${ui.seatName(m.seat)} draw${m.seat === ui.you ? "" : "s"} ${words(m.card)}` : `${ui.seatName(m.seat)} draws a card`;
    case "play": return `${who} play${entry.seat === ui.you ? "" : "s"} ${words(m.card)}`;
    case "trump": return `${who} give${entry.seat === ui.you ? "" : "s"} up ${words(m.card)}: the new trump`;
    case "keep": return `${who} keep${entry.seat === ui.you ? "" : "s"} the trump`;
    default: return `${who} ${m.type}`;
  }
}

export function table(view, ui) {
  const s = view.state;
  const legal = ui.legal;
  const playable = new Set(legal.filter((m) => m.type === "play").map((m) => m.card));
  const root = h("div", { class: "witches" });

  // The wheel: trump card, side and ranking.
  root.append(h("section", { class: "wheel", "aria-labelledby": "wheel-title" },
    h("h2", { id: "wheel-title" }, "Trump and wheel"),
    h("div", { class: "row" },
      s.trump ? card(s.trump, { label: `Trump card: ${words(s.trump)}`, extra: "trump-card" }) : h("span", {}, "No trump yet"),
      h("div", {},
        s.trump_colour ? h("p", {}, "Trump colour: ", h("strong", { class: `w-text-${s.trump_colour}` }, s.trump_colour)) : null,
        s.ranking ? h("p", { class: "ranking" }, `Wheel (${s.wheel}), strongest first: `,
          h("span", { "aria-label": `strongest first: ${s.ranking.join(", ")}` }, s.ranking.join(" › "))) : null,
        h("p", {}, `Draw pile: ${s.pile_size} card${s.pile_size === 1 ? "" : "s"} · discarded: ${s.discard.length}`)))));

  // The trick on the table (or the last one, between tricks).
  const trick = s.trick.length ? s.trick : [];
  const last = s.tricks.length ? s.tricks[s.tricks.length - 1] : null;
  const trickBox = h("section", { class: "trick", "aria-labelledby": "trick-title" },
    h("h2", { id: "trick-title" }, trick.length ? "The trick" : last ? `Last trick (${s.tricks.length} played)` : "The trick"));
  const shown = trick.length ? trick : last ? last.cards : [];
  trickBox.append(shown.length
    ? h("ul", { class: "played" }, shown.map((p) => h("li", {},
      card(p.card, { label: `${ui.seatName(p.seat)}: ${words(p.card)}` }),
      h("span", { class: "who" }, ui.seatName(p.seat)),
      trick.length && p.seat === s.winning ? h("span", { class: "badge winning" }, "winning") : null,
      !trick.length && last && p.seat === last.winner ? h("span", { class: "badge" }, "won") : null)))
    : h("p", {}, s.leader !== null && s.leader !== undefined ? `${ui.seatName(s.leader)} lead${s.leader === ui.you ? "" : "s"}.` : "No card played yet."));
  root.append(trickBox);

  // The trump decision (W11): give up a card just captured, or keep.
  if (s.phase === "trump_decision") {
    const deciding = s.to_act;
    const box = h("section", { class: "decide", "aria-labelledby": "decide-title" },
      h("h2", { id: "decide-title" }, deciding === ui.you ? "You won the trick: change the trump?" : `${ui.seatName(deciding)} won the trick and may change the trump`));
    const trumps = legal.filter((m) => m.type === "trump");
    if (trumps.length) {
      box.append(h("p", {}, "Give up a card you just captured and it becomes the trump: its colour is trump, the wheel turns to its value, and it scores nothing. Or keep the trump as it is."));
    }
    box.append(h("div", { class: "hand" }, s.just_captured.map((name) => {
      const move = trumps.find((m) => m.card === name);
      return move
        ? card(name, { onclick: () => ui.play(move), label: `Make ${words(name)} the trump (it scores nothing)`, key: `trump-${name}` })
        : card(name);
    })));
    if (legal.some((m) => m.type === "keep")) {
      box.append(h("button", { type: "button", class: "primary", dataset: { key: "keep" }, onclick: () => ui.play({ type: "keep" }) }, "Keep the trump"));
    }
    root.append(box);
  }

  // Your hand.
  if (s.hand) {
    const yourTurn = playable.size > 0;
    root.append(h("section", { class: "your-hand", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title" }, yourTurn ? "Your hand: choose a card to play" : "Your hand"),
      s.hand.length ? h("div", { class: "hand" }, s.hand.map((name) => playable.has(name)
        ? card(name, { onclick: () => ui.play({ type: "play", card: name }), label: `Play ${words(name)}`, key: `play-${name}` })
        : card(name))) : h("p", {}, "No cards left.")));
  }

  // The players: hand size, captures, score.
  root.append(h("section", { class: "players", "aria-labelledby": "players-title" },
    h("h2", { id: "players-title" }, "Players"),
    h("ul", {}, s.captured.map((cards, seat) => h("li", { class: `player${s.to_act === seat ? " acting" : ""}${s.winners && s.winners.includes(seat) ? " winner" : ""}` },
      h("h3", {}, ui.seatName(seat), s.to_act === seat ? h("span", { class: "badge" }, "to play") : null,
        s.winners && s.winners.includes(seat) ? h("span", { class: "badge win" }, "winner") : null),
      h("p", {}, `${s.scores[seat]} point${s.scores[seat] === 1 ? "" : "s"} · ${cards.length} captured · ${s.hand_sizes[seat]} in hand`),
      cards.length ? h("div", { class: "captured", "aria-label": `Captured: ${listed(cards.map(words))}` },
        cards.map((name) => card(name, { small: true, extra: s.just_captured.includes(name) && s.phase === "trump_decision" ? "fresh" : "" }))) : null)))));
  return root;
}
