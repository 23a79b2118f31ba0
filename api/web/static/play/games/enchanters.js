// The Enchanters' Gathering as a table: the four table spots, the three Towers, the reward
// piles, every player's objects by pile, Proxima and the Elemental master, the Tricks played,
// your hand — and a gathering built by choosing three cards (with Air declarations).

import { h, listed, same } from "../dom.js";

const ELEMENT_MARK = { water: "≈", fire: "▲", earth: "■", air: "☁" };
const TRICK_TEXT = {
  proxima: "takes an object from the next gathering's pile",
  idem: "takes an object from the last gathering's pile",
  exodus: "empties a Tower",
  chaos: "every hand passes to the left",
  vademecum: "draw three cards",
  periculum: "shown and discarded: skip step 2",
};
const STEP_TEXT = {
  1: "Step 1: take two table cards",
  2: "Step 2: gather, play a Trick, or pass",
  3: "Step 3: discard down to five cards",
};

/** What a card name means: {kind, aspect, school, element, trick}. */
function parse(name) {
  const parts = name.split("-");
  if (parts.length === 3) return { kind: "enchanter", aspect: parts[0], school: parts[1], element: parts[2] };
  if (parts[0] === "air") return { kind: "air", aspect: parts[1] };
  if (parts[0] === "elemental") return { kind: "elemental", element: parts[1] };
  return { kind: "trick", trick: name };
}

function cap(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function words(name) {
  const c = parse(name);
  if (c.kind === "enchanter") return `${c.aspect} ${c.school} ${c.element} Enchanter`;
  if (c.kind === "air") return `${c.aspect} Air Enchanter`;
  if (c.kind === "elemental") return `${c.element} Elemental`;
  return `${cap(c.trick)} (Trick)`;
}

function face(name) {
  const c = parse(name);
  if (c.kind === "enchanter") {
    return [h("span", { class: "aspect" }, cap(c.aspect)), h("span", { class: "element" }, `${ELEMENT_MARK[c.element]} ${c.element}`),
      h("span", { class: "school" }, c.school)];
  }
  if (c.kind === "air") return [h("span", { class: "aspect" }, cap(c.aspect)), h("span", { class: "element" }, `${ELEMENT_MARK.air} Air`), h("span", { class: "school" }, "any")];
  if (c.kind === "elemental") return [h("span", { class: "aspect" }, "Elemental"), h("span", { class: "element" }, `${ELEMENT_MARK[c.element]} ${c.element}`)];
  return [h("span", { class: "aspect" }, "Trick"), h("span", { class: "element" }, cap(c.trick))];
}

function cardClass(name) {
  const c = parse(name);
  if (c.kind === "enchanter") return `ecard school-${c.school}`;
  return `ecard ${c.kind}${c.element ? ` el-${c.element}` : ""}`;
}

function card(name, { onclick, label, pressed, key, small, disabled, dim } = {}) {
  const cls = `${cardClass(name)}${small ? " small" : ""}${dim ? " dim" : ""}`;
  if (onclick || disabled) {
    return h("button", { type: "button", class: cls, onclick, disabled, "aria-label": label || words(name),
      "aria-pressed": pressed === undefined ? null : String(pressed), dataset: { key } }, face(name));
  }
  return h("span", { class: cls, role: "img", "aria-label": label || words(name) }, face(name));
}

/** E5: the reward pile a gathering's pattern names (a hint for the player; the server decides). */
function patternPile(cards, air) {
  const traits = cards.map((name) => {
    const c = parse(name);
    return c.kind === "air" ? { aspect: c.aspect, ...(air[name] || {}) } : c;
  });
  if (traits.some((t) => !t.school || !t.element)) return null;
  const shared = (key) => new Set(traits.map((t) => t[key])).size === 1;
  const [aspect, school, element] = [shared("aspect"), shared("school"), shared("element")];
  if (aspect && school) return "A";
  if (aspect && element) return "B";
  if (school && element) return "C";
  if (aspect) return "D";
  if (school) return "E";
  if (element) return "F";
  return "G";
}

function declaration(decl) {
  return `${decl.school} ${decl.element}`;
}

export function moveLabel(move) {
  switch (move.type) {
    case "take": return move.spot === 3 ? "Take the face-up card" : `Take face-down card ${move.spot + 1}`;
    case "gather": {
      const air = Object.entries(move.air || {}).map(([card, d]) => `${words(card)} as ${declaration(d)}`);
      return `Gather ${listed(move.cards.map(words))} into Tower ${move.tower + 1}${air.length ? ` (${air.join(", ")})` : ""}`;
    }
    case "trick": return `Play ${cap(move.trick)}${move.tower !== undefined ? ` on Tower ${move.tower + 1}` : ""}`;
    case "pass": return "Pass (no gathering, no Trick)";
    case "discard": return `Discard the ${words(move.card)}`;
    default: return move.type;
  }
}

/** How the match ended, in words (shown with the result): a special victory with 3 points
 * against 9 needs saying why. */
export function endText(outcome, ui) {
  const who = listed(outcome.winners.map((seat) => ui.seatName(seat, { capital: false })));
  switch (outcome.reason) {
    case "special_victory":
      return `A special victory: ${who.charAt(0).toUpperCase()}${who.slice(1)} held two Sorcerer's Stones and another Magic Object, which make an Artifact — it wins at once, whatever the points.`;
    case "fifteen_points":
      return `${who.charAt(0).toUpperCase()}${who.slice(1)} reached 15 Spell Points (objects, Elementals and the Elemental master), which wins at once.`;
    case "piles_empty":
      return "The last object of piles A–G was taken, which ends the game: the most Spell Points wins.";
    case "stalemate":
      return "A stalemate: for two rounds nobody gathered or played a Trick and the deck was empty, so the game ended; the most Spell Points wins.";
    default:
      return null;
  }
}

export function describe(entry, ui) {
  const m = entry.move;
  const { who, s } = ui.actor(entry);
  switch (m.type) {
    case "first": return `${ui.seatName(m.seat)} play${m.seat === ui.you ? "" : "s"} first`;
    case "take": return `${who} take${s} ${m.spot === 3 ? "the face-up card" : `face-down card ${m.spot + 1}`}${m.card ? `: ${words(m.card)}` : ""}`;
    case "gather": return `${who} gather${s} ${listed(m.cards.map(words))} into Tower ${m.tower + 1}${Object.keys(m.air || {}).length ? ` (${Object.entries(m.air).map(([c, d]) => `${words(c)} as ${declaration(d)}`).join(", ")})` : ""}`;
    case "trick": return `${who} play${s} ${cap(m.trick)}${m.tower !== undefined ? ` on Tower ${m.tower + 1}` : ""}`;
    case "pass": return `${who} pass${entry.seat === ui.you ? "" : "es"}`;
    case "discard": return `${who} discard${s} the ${words(m.card)}`;
    case "draw":
      if (m.spot !== undefined) return m.card ? `Table spot ${m.spot === 3 ? "face up" : m.spot + 1} refilled: ${words(m.card)}` : `Table spot ${m.spot + 1} refilled face down`;
      if (m.to === undefined) return `Drawn from the deck: ${words(m.card)}`; // a finished log names no receiver
      return m.card ? `${ui.seatName(m.to)} draw${m.to === ui.you ? "" : "s"} ${words(m.card)}` : `${ui.seatName(m.to)} draws a card`;
    case "object":
      if (m.seat === undefined) return `An object comes from pile ${m.pile}, worth ${m.value}`;
      return `${ui.seatName(m.seat)} take${m.seat === ui.you ? "" : "s"} an object from pile ${m.pile}${m.value !== undefined ? ` worth ${m.value}` : ""}`;
    default: return `${who} ${m.type}`;
  }
}

/** The gathering builder: pick three cards among the legal gatherings, then Tower and Air. */
function gatherBuilder(s, ui, me) {
  const gathers = ui.legal.filter((m) => m.type === "gather");
  const local = ui.local;
  const selection = local.selection || [];
  const containing = (cards) => gathers.filter((g) => cards.every((c) => g.cards.includes(c)));
  const possible = new Set(containing(selection).flatMap((g) => g.cards));
  const toggle = (name) => {
    local.selection = selection.includes(name) ? selection.filter((c) => c !== name) : [...selection, name];
    local.air = {};
    ui.rerender();
  };
  const selectable = (name) => selection.includes(name) || (selection.length < 3 && possible.has(name));
  const box = h("section", { class: "gather", "aria-labelledby": "gather-title" },
    h("h2", { id: "gather-title" }, "Organize a gathering"),
    h("p", {}, "Choose three cards (from your hand or the Towers) that share or differ in each of aspect, school and element. ",
      `Chosen: ${selection.length ? listed(selection.map(words)) : "none"}.`));
  const matches = selection.length === 3 ? gathers.filter((g) => g.cards.length === 3 && selection.every((c) => g.cards.includes(c))) : [];
  if (matches.length) {
    const airCards = Object.keys(matches[0].air || {});
    local.air = local.air || {};
    const pickers = airCards.map((name) => {
      const options = [...new Map(matches.map((g) => [declaration(g.air[name]), g.air[name]])).values()];
      if (!local.air[name]) local.air[name] = options[0];
      const id = `air-${name}`;
      return h("div", { class: "field" }, h("label", { for: id }, `Declare the ${words(name)} as`),
        h("select", {
          id, dataset: { key: id },
          onchange: (event) => { local.air[name] = options[Number(event.target.value)]; ui.rerender(); },
        }, options.map((d, i) => h("option", { value: i, selected: same(d, local.air[name]) }, declaration(d)))));
    });
    const towers = [...new Set(matches.map((g) => g.tower))].sort();
    const pile = patternPile(selection, local.air);
    const fromHand = me && selection.every((c) => me.hand.includes(c));
    const reward = pile ? h("p", {}, `Pays from pile ${pile} (${s.piles[pile]} object${s.piles[pile] === 1 ? "" : "s"} left)`,
      fromHand && s.new_gathering_left ? ", plus a New-gathering card: all three cards come from your hand" : "", ".") : null;
    box.append(...pickers, reward, h("div", { class: "actions" }, towers.map((tower) => {
      const move = matches.find((g) => g.tower === tower && airCards.every((c) => same(g.air[c], local.air[c])));
      return h("button", {
        type: "button", class: "primary", disabled: !move, dataset: { key: `gather-${tower}` },
        onclick: () => ui.play(move),
      }, `Gather into Tower ${tower + 1}${s.towers[tower].length ? ` (discards its ${s.towers[tower].length})` : ""}`);
    })));
  }
  if (selection.length) box.append(h("button", { type: "button", dataset: { key: "gather-clear" }, onclick: () => { local.selection = []; ui.rerender(); } }, "Clear the choice"));
  return { box, toggle, selectable, selection };
}

export function table(view, ui) {
  const s = view.state;
  const legal = ui.legal;
  const me = s.seat !== null && s.seat !== undefined ? s.players[s.seat] : null;
  const takes = legal.filter((m) => m.type === "take");
  const discards = new Set(legal.filter((m) => m.type === "discard").map((m) => m.card));
  const canGather = legal.some((m) => m.type === "gather");
  const builder = canGather ? gatherBuilder(s, ui, me) : null;
  const root = h("div", { class: "enchanters" });

  if (s.step && s.turn !== null) {
    root.append(h("p", { class: "step" }, `${ui.seatName(s.turn)}: ${STEP_TEXT[s.step]}${s.skip_step_2 ? " (a Periculum: no step 2 this turn)" : ""}.`));
  }

  // The table spots and the deck.
  const spots = s.table.map((spot) => {
    const move = takes.find((m) => m.spot === spot.spot);
    const label = spot.face === "up" ? (spot.card ? `Face-up card: ${words(spot.card)}` : "Face-up spot: empty")
      : spot.occupied ? `Face-down card ${spot.spot + 1}` : `Spot ${spot.spot + 1}: empty`;
    if (spot.face === "up" && spot.card) {
      return move ? card(spot.card, { onclick: () => ui.play(move), label: `Take the face-up ${words(spot.card)}`, key: `take-${spot.spot}` }) : card(spot.card, { label });
    }
    const content = [h("span", { class: "aspect" }, spot.occupied ? "Face down" : "Empty"), h("span", { class: "element" }, `${spot.spot + 1}`)];
    return move
      ? h("button", { type: "button", class: "ecard back", onclick: () => ui.play(move), "aria-label": `Take ${label.toLowerCase()}`, dataset: { key: `take-${spot.spot}` } }, content)
      : h("span", { class: `ecard back${spot.occupied ? "" : " empty"}`, role: "img", "aria-label": label }, content);
  });
  root.append(h("section", { class: "table-spots", "aria-labelledby": "spots-title" },
    h("h2", { id: "spots-title" }, takes.length ? "The table: take a card" : "The table"),
    h("div", { class: "hand" }, spots),
    h("p", {}, `Deck: ${s.deck_size} card${s.deck_size === 1 ? "" : "s"} · discard pile: ${s.discard.length}${s.reshuffles ? ` · reshuffled ${s.reshuffles}×` : ""}`)));

  // The Towers (their cards join a gathering when chosen).
  root.append(h("section", { class: "towers", "aria-labelledby": "towers-title" },
    h("h2", { id: "towers-title" }, "Towers"),
    h("ol", { class: "tower-list" }, s.towers.map((cards, i) => h("li", { class: "tower" },
      h("h3", {}, `Tower ${i + 1}`),
      cards.length ? h("div", { class: "hand" }, cards.map((name) => builder && builder.selectable(name)
        ? card(name, { onclick: () => builder.toggle(name), pressed: builder.selection.includes(name), key: `sel-${name}`, small: true,
          label: `${builder.selection.includes(name) ? "Unchoose" : "Choose"} the ${words(name)} from Tower ${i + 1}` })
        : card(name, { small: true, dim: Boolean(builder) }))) : h("p", {}, "empty"))))));

  // Your hand.
  if (me && me.hand) {
    const title = discards.size ? `Your hand (${me.hand.length}): choose a card to discard` : canGather ? "Your hand: choose cards for a gathering" : "Your hand";
    root.append(h("section", { class: "your-hand", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title" }, title),
      me.hand.length ? h("div", { class: "hand" }, me.hand.map((name) => {
        if (discards.has(name)) return card(name, { onclick: () => ui.play({ type: "discard", card: name }), label: `Discard the ${words(name)}`, key: `discard-${name}` });
        if (builder && builder.selectable(name)) {
          return card(name, { onclick: () => builder.toggle(name), pressed: builder.selection.includes(name), key: `sel-${name}`,
            label: `${builder.selection.includes(name) ? "Unchoose" : "Choose"} the ${words(name)}` });
        }
        return card(name, { dim: Boolean(builder) });
      })) : h("p", {}, "No cards in hand.")));
  }

  // Step 2 choices: the gathering, the Tricks, passing.
  if (builder) root.append(builder.box);
  const others = legal.filter((m) => m.type === "trick" || m.type === "pass");
  if (others.length) {
    root.append(h("section", { class: "tricks-to-play", "aria-labelledby": "act-title" },
      h("h2", { id: "act-title" }, canGather ? "…or" : "Step 2"),
      h("div", { class: "actions" }, others.map((move) => h("button", {
        type: "button", class: move.type === "pass" ? "" : "trick-button", dataset: { key: `act-${JSON.stringify(move)}` },
        title: move.trick ? TRICK_TEXT[move.trick] : null, onclick: () => ui.play(move),
      }, moveLabel(move), move.trick ? h("small", {}, ` — ${TRICK_TEXT[move.trick]}`) : null)))));
  }

  // The players: objects by pile, Elementals, Proxima and the Elemental master.
  root.append(h("section", { class: "players", "aria-labelledby": "players-title" },
    h("h2", { id: "players-title" }, "Players"),
    h("ul", {}, s.players.map((p) => {
      const byPile = {};
      for (const o of p.objects) (byPile[o.pile] = byPile[o.pile] || []).push(o.value);
      const won = s.outcome && s.outcome.winners.includes(p.seat);
      return h("li", { class: `player${s.to_act === p.seat ? " acting" : ""}` },
        h("h3", {}, ui.seatName(p.seat),
          s.to_act === p.seat ? h("span", { class: "badge" }, "to play") : null,
          p.proxima ? h("span", { class: "badge proxima" }, "Proxima") : null,
          p.elemental_master ? h("span", { class: "badge master" }, "Elemental master (5)") : null,
          won ? h("span", { class: "badge win" }, "winner") : null),
        h("p", {}, p.points !== undefined ? `${p.points} Spell Point${p.points === 1 ? "" : "s"} · ` : "", `${p.hand_size} card${p.hand_size === 1 ? "" : "s"} in hand`,
          p.new_gathering ? ` · ${p.new_gathering} New-gathering card${p.new_gathering === 1 ? "" : "s"}` : ""),
        Object.keys(byPile).length ? h("p", { class: "objects" }, "Objects: ", Object.keys(byPile).sort().map((pile) => h("span", { class: "pile-chip", "aria-label": `${byPile[pile].length} from pile ${pile}${byPile[pile][0] !== undefined ? ` worth ${byPile[pile].join(" and ")}` : ""}` },
          `${pile}×${byPile[pile].length}${byPile[pile][0] !== undefined ? ` (${byPile[pile].join(", ")})` : ""}`))) : null,
        p.elementals.length ? h("div", { class: "hand" }, p.elementals.map((name) => card(name, { small: true }))) : null,
        p.known_cards && p.known_cards.length ? h("p", { class: "known" }, `You know they hold: ${listed(p.known_cards.map(words))}`) : null);
    }))));

  // Reward piles and the Tricks and gatherings so far.
  root.append(h("section", { class: "piles", "aria-labelledby": "piles-title" },
    h("h2", { id: "piles-title" }, "Reward piles"),
    h("ul", { class: "pile-list" }, Object.entries(s.piles).map(([pile, n]) => h("li", { class: `pile-chip${s.last_pile === pile ? " last" : ""}` },
      `${pile}: ${n}`, s.last_pile === pile ? h("span", { class: "visually-hidden" }, " (last gathering)") : null)),
    h("li", { class: "pile-chip" }, `New gathering: ${s.new_gathering_left}`))));
  if (s.history.length) {
    root.append(h("details", { class: "history", open: true }, h("summary", {}, `Gatherings and Tricks (${s.history.length}), latest first`),
      h("ol", { reversed: true }, s.history.slice().reverse().map((e) => h("li", {},
        e.gathering ? `${ui.seatName(e.seat)} gathered: pile ${e.gathering}`
          : e.trick ? `${ui.seatName(e.seat)} played ${cap(e.trick)} — ${TRICK_TEXT[e.trick]}`
            : `Periculum (${e.periculum === "table" ? "taken from the table" : "drawn with Vademecum"}) hit ${ui.seatName(e.seat, { capital: false })}`)))));
  }
  return root;
}
