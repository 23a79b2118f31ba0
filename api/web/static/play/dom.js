// Tiny DOM helpers: h() builds elements, so renderers read like the markup they make.

/** An element: h("button", {class: "card", onclick: f, "aria-label": "Play red 7"}, "7"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (name === "class") {
      el.className = value;
    } else if (name === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(name, "");
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : String(child));
  }
}

/** "1 book, 2 rings" from {book: 1, ring: 2, hat: 0}; `empty` when all are zero. */
export function counted(counts, empty = "nothing") {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`);
  return parts.length ? listed(parts) : empty;
}

/** "a, b and c". */
export function listed(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Same JSON (moves are compared by value). */
export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
