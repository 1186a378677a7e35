"use strict";
/* Shared helpers of the replay viewer: DOM building (text only through textContent,
   never innerHTML: a replay's strings come from bots) and drawing cards. Every game
   layout registers itself in ArenaViewer.LAYOUTS[game id]. */
const ArenaViewer = {LAYOUTS: {}};

/* The characters never shown raw (arena/controls.py: controls, bidi, zero-width and
   other format characters), embedded by the page as [first, last] code points. The
   page's data is escaped already; `visible` spells them, as the terminal does, in any
   text put together here too. */
ArenaViewer.UNSAFE = new RegExp("[" + JSON.parse(document.getElementById("unsafe-chars").textContent)
  .map(([first, last]) => "\\u{" + first.toString(16) + "}-\\u{" + last.toString(16) + "}")
  .join("") + "]", "gu");

/* How one of them is shown: \x1b, \u202e, \U000e0041 (arena.controls.escape). */
ArenaViewer.escape = function (code) {
  const hex = (width) => code.toString(16).padStart(width, "0");
  if (code < 0x100) return "\\x" + hex(2);
  return code < 0x10000 ? "\\u" + hex(4) : "\\U" + hex(8);
};

ArenaViewer.visible = function (text) {
  return String(text).replace(ArenaViewer.UNSAFE, (c) => ArenaViewer.escape(c.codePointAt(0)));
};

/* An element with classes and, optionally, text (set as textContent, `visible`). */
ArenaViewer.el = function (tag, classes, text) {
  const node = document.createElement(tag);
  if (classes) node.className = classes;
  if (text !== undefined && text !== null) node.textContent = ArenaViewer.visible(text);
  return node;
};

/* Append children (nodes; strings become `visible` text nodes) and return the parent. */
ArenaViewer.add = function (parent, ...children) {
  for (const child of children) {
    if (child === null || child === undefined) continue;
    const node = typeof child === "string" ? document.createTextNode(ArenaViewer.visible(child)) : child;
    parent.append(node);
  }
  return parent;
};

const SVG_NS = "http://www.w3.org/2000/svg";
ArenaViewer.svg = function (tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  return node;
};

/* A card: `face` is what it shows (text or a node), `kind` extra classes; `value`
   goes to data-card so that tests (and people) can read what is shown. */
ArenaViewer.card = function (face, kind, value) {
  const node = ArenaViewer.el("div", "card " + (kind || ""));
  if (face instanceof Node) node.append(face);
  else if (face !== null && face !== undefined) ArenaViewer.add(node, ArenaViewer.el("span", "face", face));
  if (value !== undefined && value !== null) node.dataset.card = String(value);
  return node;
};

/* A face-down card; `count` > 1 draws a small stack with its size on it. */
ArenaViewer.back = function (count) {
  const node = ArenaViewer.el("div", "card back");
  if (count !== undefined && count !== 1) ArenaViewer.add(node, ArenaViewer.el("span", "count", count));
  return node;
};

/* A labelled group of cards. */
ArenaViewer.pile = function (label, cards, classes) {
  const box = ArenaViewer.el("div", "pile " + (classes || ""));
  ArenaViewer.add(box, ArenaViewer.el("div", "label", label));
  const row = ArenaViewer.el("div", "cards");
  for (const c of cards) row.append(c);
  if (!cards.length) row.append(ArenaViewer.el("span", "empty", "—"));
  box.append(row);
  return box;
};

/* A seat's panel: its name line and whatever the layout puts in it. */
ArenaViewer.seatPanel = function (ctx, seat, extra) {
  const panel = ArenaViewer.el("section", "seat-panel");
  panel.dataset.seat = String(seat);
  if (ctx.frame.to_move.includes(seat)) panel.classList.add("to-move");
  if (ctx.seat === seat) panel.classList.add("me");
  const bot = ctx.meta.seats[seat] ? ctx.meta.seats[seat].bot : "?";
  const head = ArenaViewer.el("div", "seat-name");
  ArenaViewer.add(head, ArenaViewer.el("b", null, "seat " + seat), " ", ArenaViewer.el("span", "bot", bot));
  if (extra) ArenaViewer.add(head, " ", ArenaViewer.el("span", "seat-extra", extra));
  panel.append(head);
  return panel;
};

/* A key/value line of facts about the state. */
ArenaViewer.facts = function (pairs) {
  const box = ArenaViewer.el("div", "facts");
  for (const [key, value] of pairs) {
    if (value === undefined) continue;
    const item = ArenaViewer.el("span", "fact");
    ArenaViewer.add(item, ArenaViewer.el("span", "key", key + " "), ArenaViewer.el("b", null, value === null ? "–" : value));
    box.append(item);
  }
  return box;
};

/* The secret value of one place (all-seeing view only), or undefined. */
ArenaViewer.secretOf = function (ctx, place) {
  if (!ctx.secret) return undefined;
  const value = ctx.secret[place];
  return value === undefined ? undefined : value;
};
