"use strict";
/* LEYLO: every seat's 4×4 grid (face-down cells as backs; the all-seeing view shows
   their cards, marked), the discard pile, the draw pile and the card being held. */
ArenaViewer.LAYOUTS["leylo"] = function (ctx) {
  const V = ArenaViewer, el = V.el, add = V.add;
  const env = ctx.view, view = env.game;
  function colour(name) {
    if (name.startsWith("joker-")) return name.slice(6);
    if (name === "action") return "action";
    const n = Number(name);
    return n < 4 ? "green" : n < 8 ? "yellow" : "red";
  }
  function card(name, extra) {
    const joker = name.startsWith("joker-");
    const face = name === "action" ? "★" : joker ? "J" : name;
    const node = V.card(null, "ly ly-" + colour(name) + " " + (extra || ""), name);
    add(node, el("span", "num", face));
    if (joker || name === "action") add(node, el("span", "tag", joker ? "joker" : "action"));
    return node;
  }
  const root = el("div", "layout leylo");
  add(root, V.facts([["round", view.round + " / " + view.rounds], ["dealer", view.dealer],
                     ["turns", view.turns_taken + " / " + view.turn_limit], ["ender", view.ender],
                     ["final turns left", view.final_turns_left === null ? undefined : view.final_turns_left],
                     ["action card", view.action_card_value + " points"]]));
  const centre = el("div", "centre");
  const discard = view.discard.length ? [card(view.discard[view.discard.length - 1])] : [];
  add(centre, V.pile("discard (" + view.discard.length + ")", discard));
  const pileCards = view.draw_pile_size ? [V.back(view.draw_pile_size)] : [];
  const secretPile = V.secretOf(ctx, "draw pile");
  if (secretPile && secretPile.length) pileCards.push(card(secretPile[0], "secret"));
  add(centre, V.pile("draw pile (" + view.draw_pile_size + ")" + (secretPile ? ", next card" : ""), pileCards));
  if (view.draw_pile_known) add(centre, V.pile("known pile cards", view.draw_pile_known.map((n) => card(n, "small"))));
  if (view.holding) {
    /* all-seeing: the card as its holder sees it (a card drawn from the pile is
       hidden from the other seats only) */
    const holder = ctx.all ? ctx.views.map((v) => v.game).find((v) => v.holding && v.holding.card !== "hidden") : null;
    let held;
    if (view.holding.card !== "hidden") held = card(view.holding.card);
    else if (holder) held = card(holder.holding.card, "secret");
    else held = V.back();
    const who = view.current === null ? "" : " by seat " + view.current;
    add(centre, V.pile("held" + who + " (from the " + view.holding.source + ")", [held], "held"));
  }
  root.append(centre);

  const seats = el("div", "seats");
  for (let s = 0; s < env.players; s++) {
    const panel = V.seatPanel(ctx, s, "total " + env.scores[s] + " · " + view.face_down[s] + " face down");
    const grid = el("div", "grid4");
    grid.dataset.seat = String(s);
    view.grids[s].forEach((cell, i) => {
      let node;
      if (cell === "empty") node = el("div", "card slot");
      else if (cell === "hidden") {
        const secretCell = V.secretOf(ctx, "grid:" + s + ":cell:" + i);
        node = secretCell ? card(secretCell[0], "secret") : V.back();
      } else node = card(cell);
      node.dataset.cell = String(i);
      grid.append(node);
    });
    panel.append(grid);
    seats.append(panel);
  }
  root.append(seats);

  if (view.results.length) {
    const results = el("table", "results");
    const head = el("tr");
    add(head, el("th", null, "round"));
    for (let s = 0; s < env.players; s++) add(head, el("th", null, "seat " + s));
    results.append(head);
    for (const r of view.results) {
      const row = el("tr");
      add(row, el("td", null, r.round + (r.guard ? " (guard)" : r.doubled ? " (doubled)" : "")));
      for (let s = 0; s < env.players; s++) add(row, el("td", s === r.ender ? "ender" : null, r.scores[s]));
      results.append(row);
    }
    root.append(results);
  }
  return root;
};
