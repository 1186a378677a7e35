"use strict";
/* Krumme10: the display (sum against the target), the cards to take, every seat's
   cards (top sides are public; down sides only once seen, or in the all-seeing view,
   marked), the piles, the points piles and the team scores. */
ArenaViewer.LAYOUTS["krumme10"] = function (ctx) {
  const V = ArenaViewer, el = V.el, add = V.add;
  const env = ctx.view, view = env.game;
  /* `place` names the card for the secret lookup of its down side ("hand:1:0"). */
  function card(c, place, extra) {
    const node = V.card(null, "k10 k10-" + c.top + (c.pink === "top" ? " pink" : "") + " " + (extra || ""), c.top);
    add(node, el("span", "num", c.top));
    let down = c.down === null ? null : String(c.down) + (c.pink === "down" ? "p" : "");
    let secretDown = false;
    if (down === null && place) {
      const hidden = V.secretOf(ctx, place + ":down");
      if (hidden) { down = String(hidden[0]); secretDown = true; }
    }
    const back = el("span", "down" + (secretDown ? " secret" : ""), down === null ? "?" : "↓" + down);
    add(node, back);
    if (c.pink === "top") add(node, el("span", "tag", "pink"));
    return node;
  }
  const root = el("div", "layout krumme10");
  const teamNames = "ABC";
  add(root, V.facts([["turn", "seat " + view.turn], ["target", view.target],
                     ["draw pile", view.draw_pile], ["reshuffled", view.variant.long ? (view.reshuffled ? "yes" : "no") : undefined],
                     ["drawing", view.drawing ? undefined : "no (showdown)"],
                     ["scoring", view.score_highest === null ? undefined : view.score_highest ? "highest" : "lowest"],
                     ["teams", view.team_scores ? view.team_scores.map((t, i) => teamNames[i] + " " + V.fmt(t)).join(" · ") : undefined]]));
  const centre = el("div", "centre");
  const display = view.display.map((d, i) => {
    const node = card(d.card, "display:" + i, d.flipped ? "flipped" : "");
    add(node, el("span", "by", "s" + d.by + (d.stolen_from !== null ? " ← s" + d.stolen_from : "")));
    return node;
  });
  const sum = el("div", "sum" + (view.sum === view.target ? " hit" : view.sum > view.target ? " over" : ""), view.sum + " / " + view.target);
  const displayBox = V.pile("display", display, "display");
  displayBox.append(sum);
  centre.append(displayBox);
  if (view.to_take.length) centre.append(V.pile("to take", view.to_take.map((c, i) => card(c, "to_take:" + i))));
  const pile = view.draw_pile ? [V.back(view.draw_pile)] : [];
  const secretPile = V.secretOf(ctx, "draw_pile");
  if (secretPile && secretPile.length >= 2) {
    /* the pile's sides as (top, down) pairs, the top card last; "4p" is a pink 4 */
    const [top, down] = secretPile.slice(-2);
    const next = card({top: top === "4p" ? 4 : top, down: null, pink: top === "4p" ? "top" : null}, null, "secret");
    next.querySelector(".down").textContent = "↓" + down;
    pile.push(next);
  }
  centre.append(V.pile("draw pile (" + view.draw_pile + ")" + (secretPile && secretPile.length ? ", next card" : ""), pile));
  const discard = view.discard.length ? [card(view.discard[view.discard.length - 1], "discard:" + (view.discard.length - 1))] : [];
  centre.append(V.pile("discard (" + view.discard.length + ")", discard));
  root.append(centre);

  const seats = el("div", "seats");
  for (let s = 0; s < env.players; s++) {
    const team = view.teams ? "team " + teamNames[view.teams[s]] + " · " : "";
    const panel = V.seatPanel(ctx, s, team + env.scores[s] + " points");
    const hand = V.pile("cards", view.hands[s].map((c, i) => card(c, "hand:" + s + ":" + i)), "hand");
    hand.dataset.seat = String(s);
    panel.append(hand);
    panel.append(V.pile("points pile", view.points[s].map((c, i) => card(c, "points:" + s + ":" + i, "small"))));
    seats.append(panel);
  }
  root.append(seats);
  root.append(krumme10Legend(ctx, card));
  return root;
};

/* What the marks on Krumme10's cards mean: a sample card per mark, drawn by the same
   `card` as the table (the secret sample only in the all-seeing view, where it occurs). */
function krumme10Legend(ctx, card) {
  const V = ArenaViewer, el = V.el, add = V.add;
  const box = el("div", "legend");
  box.id = "legend";
  add(box, el("div", "label", "marks"));
  const stolen = card({top: 1, down: 2, pink: null}, null, "flipped");
  add(stolen, el("span", "by", "s1 ← s3"));
  const rows = [
    ["unseen", card({top: 3, down: null, pink: null}), "? — the down side was never seen"],
    ["seen", card({top: 3, down: 4, pink: null}), "↓4 — the down side, seen when the card was flipped"],
    ["flipped", card({top: 4, down: 3, pink: null}, null, "flipped"), "blue edge — laid flipped (the side shown was underneath)"],
    ["pink", card({top: 4, down: 5, pink: "top"}), "pink — a pink 4 (variant pink4); ↓4p: the down side is a pink 4"],
    ["by", stolen, "s1 — laid by seat 1; s1 ← s3: stolen from seat 3 by seat 1"],
  ];
  if (ctx.all) {
    const secret = card({top: 2, down: null, pink: null});
    const down = secret.querySelector(".down");
    down.textContent = "↓5";
    down.classList.add("secret");
    rows.push(["secret", secret, "pink ↓5 — a down side nobody has seen (all-seeing view only)"]);
  }
  rows.push(["sum", el("span", "sum hit", "10 / 10"), "the display's sum against its target: yellow on target, red over it"]);
  for (const [mark, sample, text] of rows) {
    const item = el("div", "legend-item");
    item.dataset.mark = mark;
    add(item, sample, el("span", "legend-text", text));
    box.append(item);
  }
  return box;
}
