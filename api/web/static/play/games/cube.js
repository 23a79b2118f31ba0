// The Magic Cube as a table: the cube's six sides (which is up, which holes face down), what
// it holds, the lid, the objects in front of each player, and each turn's roll, path and
// falls told step by step.

import { counted, h } from "../dom.js";

const SIDES = ["red", "yellow", "blue", "green", "orange", "violet"];
const HOLES = { red: "book", yellow: "ring", blue: "hat", green: "wand", orange: "every object", violet: "no object" };
/** The holes of a side, in words: "book holes", "holes for every object", "no holes". */
function holes(side) {
  if (side === "orange") return "holes for every object";
  if (side === "violet") return "no holes";
  return `${HOLES[side]} holes`;
}
const FACE_TARGET = { book: "red", ring: "yellow", hat: "blue", wand: "green", stars: "orange", square: "violet" };
const KINDS = ["book", "ring", "hat", "wand"];
const OPPOSITE = { red: "green", green: "red", yellow: "blue", blue: "yellow", orange: "violet", violet: "orange" };

const FACE_WORDS = {
  book: "a book", ring: "a ring", hat: "a hat", wand: "a wand",
  stars: "the stars (any object from the lid)", square: "the square (no object)",
};

export function moveLabel(move) {
  if (move.type === "roll") return "Roll the die";
  if (move.type === "choose") return `Take a ${move.object} from the lid`;
  if (move.type === "turn") return `Turn the cube through ${move.via}`;
  return move.type;
}

/** How the match ended, in words (shown with the result). */
export function endText(outcome) {
  if (outcome.reason === "object_unavailable") {
    return "The die asked for an object the lid no longer holds, which ends the game: the fewest objects in front of a player wins.";
  }
  return null;
}

export function describe(entry, ui) {
  const m = entry.move;
  const { who, s } = ui.actor(entry);
  switch (m.type) {
    case "first": return `${ui.seatName(m.seat)} play${m.seat === ui.you ? "" : "s"} first`;
    case "roll": return `${who} roll${s} the die`;
    case "face": return `The die shows ${FACE_WORDS[m.face]}: the ${FACE_TARGET[m.face]} side must come up`;
    case "choose": return `${who} take${s} a ${m.object} from the lid`;
    case "turn": return `${who} turn${s} the cube through ${m.via} (${holes(OPPOSITE[m.via])} face down)`;
    case "fall": {
      const fell = counted(m.objects, "");
      return fell ? `${fell} fell out of the cube` : "Nothing fell out of the cube";
    }
    default: return `${who} ${m.type}`;
  }
}

/** The turn record as a list of steps a person can follow. */
function story(turn, ui) {
  if (!turn) return [];
  const who = ui.seatName(turn.seat);
  const steps = [];
  if (turn.face) steps.push(`${who} rolled ${FACE_WORDS[turn.face]}.`);
  else steps.push(`${who} rolls the die…`);
  if (turn.ended_game) {
    steps.push(`No ${turn.face === "stars" ? "object" : turn.face} is left in the lid: the game ends.`);
    return steps;
  }
  if (turn.object) steps.push(`Took a ${turn.object} from the lid.`);
  if (turn.target) {
    const half = OPPOSITE[turn.start_up] === turn.target;
    if (turn.start_up === turn.target) steps.push(`The ${turn.target} side was already up.`);
    else if (!turn.complete && !turn.path.length) {
      steps.push(half ? `${turn.target} is opposite ${turn.start_up}: a half turn, through a side to choose.`
        : `The cube must turn from ${turn.start_up} up to ${turn.target} up.`);
    } else {
      const via = half && turn.path.length ? `, through ${turn.path[0]}` : "";
      steps.push(`Turned the cube from ${turn.start_up} up to ${turn.target} up${via}.`);
    }
  }
  for (const exposure of turn.exposures) {
    const where = exposure.before_throw ? `Passing through ${exposure.up}` : `With ${exposure.up} up`;
    const fell = counted(exposure.fell, "");
    steps.push(`${where}, the ${exposure.down} side (${holes(exposure.down)}) faced down: ${fell ? `${fell} fell out!` : "nothing fell."}`);
  }
  if (turn.returned_to_lid) steps.push(`The ${turn.object} went back to the lid; the ${turn.target} side was put up.`);
  else if (turn.thrown) steps.push(`Threw the ${turn.object} into the cube.`);
  if (turn.complete && turn.to_front) {
    const front = counted(turn.to_front, "");
    const gone = counted(turn.out_of_game, "");
    steps.push(front ? `${front} went in front of ${ui.seatName(turn.seat, { capital: false })}${gone ? `, ${gone} out of the game` : ""}.` : "Nothing fell: a clean turn.");
  }
  return steps;
}

function side(name, cube) {
  const up = cube.up === name;
  const down = cube.down === name;
  return h("div", { class: `side s-${name}${up ? " up" : ""}${down ? " down" : ""}`, role: "listitem",
    "aria-label": `${name} side, holes for ${HOLES[name]}${up ? ", up" : ""}${down ? ", down" : ""}` },
  h("span", { class: "side-name" }, name), h("span", { class: "holes" }, HOLES[name]),
  up ? h("span", { class: "badge" }, "up") : null, down ? h("span", { class: "badge" }, "down") : null);
}

function objects(counts, label) {
  return h("ul", { class: "objects", "aria-label": label },
    KINDS.map((kind) => h("li", { class: `obj o-${kind}` }, h("span", { class: "n" }, counts[kind]), ` ${kind}${counts[kind] === 1 ? "" : "s"}`)));
}

export function table(view, ui) {
  const s = view.state;
  const legal = ui.legal;
  const root = h("div", { class: "cube" });

  const net = h("div", { class: "net", role: "list", "aria-label": "The cube's sides" }, SIDES.map((name) => side(name, s.cube)));
  root.append(h("section", { class: "the-cube", "aria-labelledby": "cube-title" },
    h("h2", { id: "cube-title" }, `The cube: ${s.cube.up} up, ${s.cube.down} down`),
    h("div", { class: "row" }, net,
      h("div", {},
        h("h3", {}, "Inside the cube"), objects(s.cube.objects, "Inside the cube"),
        h("h3", {}, "In the lid"), objects(s.lid, "In the lid"),
        s.in_hand ? h("p", { class: "in-hand" }, `In hand: a ${s.in_hand}`) : null,
        h("p", {}, `Out of the game: ${counted(s.out_of_game, "none")}`)))));

  // The turn told step by step, with the actions of the player to act.
  const steps = story(s.turn, ui);
  const turnBox = h("section", { class: "turn", "aria-labelledby": "turn-title" },
    h("h2", { id: "turn-title" }, s.turn && s.turn.complete ? "The last turn" : "This turn"),
    steps.length ? h("ol", { class: "steps" }, steps.map((line) => h("li", {}, line))) : h("p", {}, "No turn played yet."));
  const actions = h("div", { class: "actions" });
  for (const move of legal) {
    const cls = move.type === "turn" ? `s-${move.via}` : move.type === "choose" ? `o-${move.object}` : "primary";
    actions.append(h("button", { type: "button", class: cls, dataset: { key: `cube-${JSON.stringify(move)}` }, onclick: () => ui.play(move) }, moveLabel(move)));
  }
  if (legal.length) {
    const hint = legal[0].type === "turn" ? `A half turn: choose the side the cube passes through (its opposite side faces down on the way).`
      : legal[0].type === "choose" ? "Stars: choose which object to take from the lid." : null;
    turnBox.append(...[h("h3", {}, "Your move"), hint ? h("p", {}, hint) : null, actions].filter(Boolean));
  }
  root.append(turnBox);

  // Ongoing journal of the turns this page has seen.
  const journal = ui.local.journal || (ui.local.journal = new Map());
  if (s.turn && s.turn.complete) journal.set(`${s.turns}`, steps.join(" "));
  if (journal.size > 1) {
    root.append(h("details", { class: "journal" }, h("summary", {}, `Turns seen (${journal.size})`),
      h("ol", {}, [...journal.values()].map((line) => h("li", {}, line)))));
  }

  root.append(h("section", { class: "players", "aria-labelledby": "players-title" },
    h("h2", { id: "players-title" }, "In front of each player (fewest wins)"),
    h("ul", {}, s.front.map((counts, seat) => h("li", { class: `player${s.to_act === seat ? " acting" : ""}` },
      h("h3", {}, ui.seatName(seat), s.to_act === seat ? h("span", { class: "badge" }, "to play") : null,
        view.outcome && view.outcome.winners.includes(seat) ? h("span", { class: "badge win" }, "winner") : null),
      h("p", {}, `${s.front_totals[seat]} object${s.front_totals[seat] === 1 ? "" : "s"}: ${counted(counts, "none")}`))))));
  return root;
}
