"use strict";
/* Take That: the row in the middle, the draw pile, and per seat its hand, plus pile
   (twisted pairs) and minus pile (taken rows; unseen profi cards face down). */
ArenaViewer.LAYOUTS["take-that"] = function (ctx) {
  const V = ArenaViewer, el = V.el, add = V.add;
  const env = ctx.view, view = env.game;
  const TOADS = [22, 33, 44, 55, 66, 77, 88];
  function card(n, extra) {
    const toad = TOADS.includes(n);
    const node = V.card(null, "tt " + (toad ? "toad " : "") + (extra || ""), n);
    add(node, el("span", "num", n));
    if (toad) add(node, el("span", "tag", "toad −5"));
    return node;
  }
  const root = el("div", "layout take-that");
  add(root, V.facts([["round", view.round + " / " + view.rounds], ["draw pile", view.draw_pile],
                     ["to move", env.to_move.length ? env.to_move.join(", ") : null], ["must open a row", view.must_start_row ? "yes" : undefined]]));

  const centre = el("div", "centre");
  const pile = V.pile("draw pile (" + view.draw_pile + ")", view.draw_pile ? [V.back(view.draw_pile)] : []);
  const secretPile = V.secretOf(ctx, "draw_pile");
  if (secretPile) {
    const next = el("div", "cards secret-row");
    for (const n of secretPile) next.append(card(n, "small secret"));
    add(pile, el("div", "label", "pile, top first (hidden from every seat)"), next);
  }
  const row = V.pile("row", view.row.map((n) => card(n)), "row");
  add(centre, row, pile);
  root.append(centre);

  const seats = el("div", "seats");
  for (let s = 0; s < env.players; s++) {
    const panel = V.seatPanel(ctx, s, view.hand_sizes[s] + " in hand");
    let hand;
    if (ctx.all) hand = ctx.views[s].game.hand.map((n) => card(n));
    else if (s === ctx.seat) hand = view.hand.map((n) => card(n));
    else hand = Array.from({length: view.hand_sizes[s]}, () => V.back());
    const handBox = V.pile("hand", hand, "hand");
    handBox.dataset.seat = String(s);
    panel.append(handBox);
    panel.append(V.pile("plus pile (+" + view.plus[s].length + ")", view.plus[s].map((n) => card(n, "small"))));
    const minus = view.minus_seen[s].map((n) => card(n, "small"));
    const unseen = V.secretOf(ctx, "minus_unseen:" + s);
    if (unseen) for (const n of unseen) minus.push(card(n, "small secret"));
    else for (let i = 0; i < view.minus_unseen[s]; i++) minus.push(V.back());
    const toads = view.minus_seen[s].filter((n) => TOADS.includes(n)).length;
    panel.append(V.pile("minus pile (" + minus.length + " cards, " + toads + " toads seen)", minus));
    const rounds = view.round_scores.map((r) => r[s]);
    if (rounds.length) panel.append(V.facts([["rounds", rounds.join(", ")]]));
    seats.append(panel);
  }
  root.append(seats);
  return root;
};
