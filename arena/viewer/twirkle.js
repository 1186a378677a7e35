"use strict";
/* Twirkle: the grid of placed cards (this turn's placements and a shift's lifted card
   marked), every seat's hand, the bag, and the turn under way. */
ArenaViewer.LAYOUTS["twirkle"] = function (ctx) {
  const V = ArenaViewer, el = V.el, add = V.add;
  const env = ctx.view, view = env.game;
  const SHAPES = {
    swirl: () => V.svg("path", {d: "M20 20 m0 0 a3 3 0 0 1 6 0 a6 6 0 0 1 -12 0 a9 9 0 0 1 18 0 a12 12 0 0 1 -24 0",
                                fill: "none", "stroke-width": 3.2, "stroke-linecap": "round"}),
    star: () => V.svg("polygon", {points: "20,4 24.7,14.5 36,15.5 27.4,23 30,34 20,28.2 10,34 12.6,23 4,15.5 15.3,14.5"}),
    pyramid: () => V.svg("polygon", {points: "20,5 35,34 5,34"}),
    clover: () => {
      const g = V.svg("g");
      for (const [cx, cy] of [[20, 11], [11.5, 22], [28.5, 22]]) g.append(V.svg("circle", {cx: cx, cy: cy, r: 7.5}));
      g.append(V.svg("rect", {x: 18.5, y: 22, width: 3, height: 13}));
      return g;
    },
    rosette: () => {
      const g = V.svg("g");
      for (let i = 0; i < 8; i++) {
        const a = (i * Math.PI) / 4;
        g.append(V.svg("circle", {cx: 20 + 10 * Math.cos(a), cy: 20 + 10 * Math.sin(a), r: 5.5}));
      }
      g.append(V.svg("circle", {cx: 20, cy: 20, r: 6}));
      return g;
    },
    crystal: () => V.svg("polygon", {points: "20,3 33,20 20,37 7,20"}),
  };
  /* One drawn card per name, copied for every use (drawing SVG anew is slow). */
  const drawn = V.twirkleCards || (V.twirkleCards = {});
  function card(name, extra) {
    if (!drawn[name]) {
      const [colour, symbol] = name.split("-");
      const pic = V.svg("svg", {viewBox: "0 0 40 40", class: "symbol"});
      pic.append((SHAPES[symbol] || SHAPES.crystal)());
      drawn[name] = V.card(pic, "tw tw-" + colour, name);
      drawn[name].title = name;
    }
    const node = drawn[name].cloneNode(true);
    if (extra) node.className += " " + extra;
    return node;
  }
  const root = el("div", "layout twirkle");
  add(root, V.facts([["turn", view.turns], ["bag", view.bag],
                     ["start seat", view.start_seat], ["this turn", view.turn_action],
                     ["placement points", view.placement_points || undefined],
                     ["passes", view.passes], ["idle", view.idle_turns + " / " + view.idle_limit],
                     ["end", view.end ? view.end.reason : undefined]]));

  /* The board: a CSS grid spanning the placed cards plus one free ring. */
  const board = el("div", "board");
  const cells = view.board.slice();
  const placed = new Set(view.placed.map((p) => p.x + "," + p.y));
  const lifted = view.shift && view.shift.lifted;
  let minX = 0, maxX = 0, minY = 0, maxY = 0;
  for (const c of cells.concat(lifted ? [lifted] : [])) {
    minX = Math.min(minX, c.x); maxX = Math.max(maxX, c.x); minY = Math.min(minY, c.y); maxY = Math.max(maxY, c.y);
  }
  minX -= 1; minY -= 1; maxX += 1; maxY += 1;
  board.style.gridTemplateColumns = "repeat(" + (maxX - minX + 1) + ", var(--tw-cell))";
  board.style.gridTemplateRows = "repeat(" + (maxY - minY + 1) + ", var(--tw-cell))";
  board.dataset.cols = String(maxX - minX + 1);
  board.dataset.rows = String(maxY - minY + 1);
  for (const c of cells) {
    const node = card(c.card, placed.has(c.x + "," + c.y) ? "placed" : "");
    node.style.gridColumn = String(c.x - minX + 1);
    node.style.gridRow = String(c.y - minY + 1);
    node.dataset.x = String(c.x); node.dataset.y = String(c.y);
    board.append(node);
  }
  if (lifted) {
    const node = card(lifted.card, "lifted");
    node.style.gridColumn = String(lifted.x - minX + 1);
    node.style.gridRow = String(lifted.y - minY + 1);
    board.append(node);
  }
  const boardBox = el("div", "board-box");
  add(boardBox, board);
  if (!cells.length && !lifted) add(boardBox, el("div", "empty", "no card on the table yet"));
  root.append(boardBox);

  const seats = el("div", "seats");
  for (let s = 0; s < env.players; s++) {
    const last = view.last_turns[s];
    const extra = last ? "last: " + last.action + (last.cards ? " " + last.cards : "") + (last.points ? " +" + last.points : "") : "";
    const panel = V.seatPanel(ctx, s, extra);
    let hand;
    const own = ctx.all ? ctx.views[s].game : s === ctx.seat ? view : null;
    if (own) {
      hand = own.hand.map((n) => card(n, own.picked === n ? "picked" : ""));
    } else hand = Array.from({length: view.hand_sizes[s]}, () => V.back());
    const handBox = V.pile("hand (" + view.hand_sizes[s] + ")", hand, "hand");
    handBox.dataset.seat = String(s);
    panel.append(handBox);
    if (own && own.exchange_selected.length) panel.append(V.pile("chosen for the exchange", own.exchange_selected.map((n) => card(n, "small"))));
    if (own && own.returned.length) panel.append(V.pile("given back (still in the bag)", own.returned.map((n) => card(n, "small"))));
    seats.append(panel);
  }
  root.append(seats);
  const bag = V.secretOf(ctx, "bag");
  if (bag) {
    root.append(V.pile("bag, top first (hidden from every seat)", bag.slice(0, 12).map((n) => card(n, "small secret"))
      .concat(bag.length > 12 ? [el("span", "more", "+" + (bag.length - 12) + " more")] : [])));
  }
  return root;
};

/* Zoom to fit: once on the page, the board's cells shrink (never grow past 44 px) so
   that the whole board fits the width it is given and the window's height: a late
   board of 20 columns stays whole in a 900-pixel window, without scrolling sideways. */
ArenaViewer.LAYOUTS["twirkle"].fit = function (table) {
  const board = table.querySelector(".board");
  if (!board) return;
  const box = board.parentElement, style = getComputedStyle(box), gap = 2;
  const cols = Number(board.dataset.cols), rows = Number(board.dataset.rows);
  const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
  const width = box.clientWidth - padX;
  const height = window.innerHeight - padY - 8;
  const fit = Math.min((width - gap * (cols - 1)) / cols, (height - gap * (rows - 1)) / rows);
  const cell = Math.max(8, Math.min(44, Math.floor(fit)));
  board.style.setProperty("--tw-cell", cell + "px");
  board.classList.toggle("zoomed", cell < 44);
};
