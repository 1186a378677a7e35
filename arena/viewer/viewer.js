"use strict";
/* The replay viewer's page: reads the embedded replay data, rebuilds every frame's
   views, and draws the current frame with the game's layout. Controls: buttons,
   the arrow keys (Home/End for the ends), a slider over the whole match, and a
   switch between the all-seeing view and one seat's own view. A live page (DATA.live:
   arena.viewer.build_live) starts with no frame and follows the match's server-sent
   events: each frame is a spectator's, whose `view` is the public table (what every
   seat may know: arena/viewer/spectator.py), drawn as another seat's hand is, and
   the only view there is until the match is over and its page loads again. */
(function () {
  const V = ArenaViewer;
  const el = V.el, add = V.add;
  const DATA = JSON.parse(document.getElementById("replay-data").textContent);
  const META = DATA.meta;
  const layout = V.LAYOUTS[META.game];
  const LIVE = DATA.live || null;

  /* Frames carry changed keys only (see arena/viewer/__init__.py): rebuild them. A view
     is protocol 2's envelope (seat, players, phase, to_move, scores, game): the same keys
     in every game, the game's own fields under `game`, whose changes come one level down. */
  function merged(base, delta) {
    return Object.assign({}, base, delta, {game: Object.assign({}, base.game, delta.game)});
  }
  const FRAMES = [];
  let view0 = {game: {}}, secret = {};
  function rebuilt(raw) {
    if (LIVE) return raw;  /* a spectator's frame holds its whole public view */
    view0 = merged(view0, raw.views[0]);
    const views = [view0];
    for (let s = 1; s < raw.views.length; s++) views.push(merged(view0, raw.views[s]));
    secret = Object.assign({}, secret, raw.secret);
    for (const [place, cards] of Object.entries(raw.secret)) if (cards === null) delete secret[place];
    return Object.assign({}, raw, {views: views, secret: secret});
  }
  for (const raw of DATA.frames) FRAMES.push(rebuilt(raw));
  const state = {index: 0, seat: null};

  function fmt(value) {
    if (typeof value !== "number") return String(value);
    return Number.isInteger(value) ? String(value) : value.toFixed(2);
  }
  V.fmt = fmt;

  /* ----- the page's frame (built once) ----- */
  const app = document.getElementById("app");
  const header = el("header");
  const variant = Object.entries(META.variant || {}).map(([k, v]) => k + "=" + v).join(" ");
  add(header, el("h1", null, META.title + " — " + (META.match || "replay")),
      el("div", "meta", "rules v" + META.game_version + " · " + META.players + " players · seed " +
         META.seed + (variant ? " · " + variant : "") +
         (META.higher_score_wins ? " · highest total wins" : " · lowest total wins")));
  const controls = el("nav", "controls");
  const buttons = {};
  /* Steps are arrows, autoplay is play/pause: the two never look alike. */
  const PLAY = "▶ play", PAUSE = "❚❚ pause";
  for (const [name, label, title] of [["first", "⇤ first", "first event (Home)"], ["back", "← back", "one event back (←)"],
                                       ["play", PLAY, "play / pause (space)"], ["next", "next →", "one event forward (→)"],
                                       ["last", "last ⇥", "last event (End)"]]) {
    buttons[name] = el("button", "btn", label);
    buttons[name].id = "btn-" + name;
    buttons[name].title = title;
    controls.append(buttons[name]);
  }
  const slider = el("input");
  slider.type = "range"; slider.id = "slider"; slider.min = "0"; slider.max = String(FRAMES.length - 1);
  slider.value = "0";
  const counter = el("span", "counter");
  counter.id = "counter";
  const viewSelect = el("select");
  viewSelect.id = "view";
  if (LIVE) {
    add(viewSelect, Object.assign(el("option", null, "spectator's view"), {value: "all"}));
    viewSelect.disabled = true;
  } else {
    add(viewSelect, Object.assign(el("option", null, "all-seeing view"), {value: "all"}));
    for (const s of META.seats) {
      add(viewSelect, Object.assign(el("option", null, "seat " + s.seat + "'s view (" + s.bot + ")"), {value: String(s.seat)}));
    }
  }
  /* Autoplay speed: events per second at 1x is 2 (500 ms a step). */
  const BASE_MS = 500;
  const speedSelect = el("select");
  speedSelect.id = "speed";
  speedSelect.title = "autoplay speed";
  for (const factor of [0.25, 0.5, 1, 2, 4, 8]) {
    add(speedSelect, Object.assign(el("option", null, factor + "× speed"), {value: String(factor)}));
  }
  speedSelect.value = "1";
  add(controls, slider, counter, speedSelect, viewSelect);

  const decision = el("div", "decision");
  decision.id = "decision";
  const scores = el("table", "scores");
  scores.id = "scores";
  const viewNote = el("div", "view-note");
  viewNote.id = "view-note";
  const table = el("main", "table game-" + META.game);
  table.id = "table";
  const log = el("ol", "log");
  log.id = "log";
  const side = el("aside", "side");
  add(side, el("h2", null, "Scores"), scores, el("h2", null, "Events"), log);
  const body = el("div", "body");
  const left = el("div", "left");
  add(left, decision, viewNote, table);
  add(body, left, side);
  add(app, header, controls, body);

  /* What a view tells of an event: a seat's view tells the others' moves as that seat
     saw them (frame.told, made from its own observations: arena/viewer/events.py); the
     fallback tag only where the decision is the viewer's own or the view all-seeing. */
  function eventText(frame, seat) {
    let text = frame.text;
    if (seat !== null && frame.told) {
      const told = frame.told[String(seat)];
      text = told !== undefined ? told : frame.others !== undefined ? frame.others : frame.text;
    }
    const own = seat === null || frame.seat === seat;
    return text + (frame.fallback && own ? " [fallback]" : "");
  }

  /* The event list: built once, its texts redone on a change of view, the current line marked. */
  const logItems = [];
  function logItem(frame, i) {
    const item = el("li", "ev-" + frame.kind, eventText(frame, null));
    item.value = i + 1;
    item.addEventListener("click", () => go(i));
    log.append(item);
    logItems.push(item);
  }
  FRAMES.forEach(logItem);
  let logSeat = null;
  function relabelLog() {
    if (logSeat === state.seat) return;
    logSeat = state.seat;
    FRAMES.forEach((frame, i) => { logItems[i].textContent = V.visible(eventText(frame, state.seat)); });
  }

  function renderScores(frame) {
    scores.replaceChildren();
    const head = el("tr");
    add(head, el("th", null, "seat"), el("th", null, "bot"), el("th", null, frame.over ? "final" : META.score_label));
    if (META.time_control) add(head, el("th", null, "clock · " + META.time_control));
    if (frame.over && META.outcome) add(head, el("th", null, "rank"), el("th", null, "status"));
    scores.append(head);
    for (const s of META.seats) {
      const row = el("tr");
      row.dataset.seat = String(s.seat);
      if (frame.to_move.includes(s.seat)) row.classList.add("to-move");
      const cell = el("td", "score", fmt(frame.scores[s.seat]));
      const bot = el("td", "bot", s.bot);
      if (frame.forfeited.includes(s.seat)) {
        row.classList.add("forfeited");
        add(bot, " ", el("span", "forfeit-tag", "forfeited"));
      }
      add(row, el("td", null, s.seat), bot, cell);
      if (META.time_control) add(row, el("td", "clock", clockText(frame.clocks && frame.clocks[s.seat])));
      if (frame.over && META.outcome) {
        add(row, el("td", null, META.outcome.ranks[s.seat]), el("td", null, META.outcome.status[s.seat]));
      }
      scores.append(row);
    }
  }

  /* A seat's clock: the bank left under a bank time control, else what it was charged. */
  function clockText(clock) {
    if (!clock) return "";
    if (clock.bank_ms !== null && clock.bank_ms !== undefined) return (clock.bank_ms / 1000).toFixed(2) + " s left";
    return (clock.used_ms / 1000).toFixed(2) + " s used";
  }

  function render() {
    const frame = FRAMES[state.index];
    if (frame === undefined) {  /* a live page before the first event */
      counter.textContent = "waiting for the first event";
      decision.textContent = "The match is starting: its moves show here as they are played.";
      return;
    }
    slider.value = String(state.index);
    counter.textContent = "event " + (state.index + 1) + " / " + FRAMES.length;
    decision.replaceChildren();
    const who = frame.seat === null ? "" : (META.seats[frame.seat] || {}).bot;
    /* another seat's decision in a seat's view: its words only, not who ran how long */
    const others = LIVE !== null || (state.seat !== null && frame.kind === "decision" && frame.seat !== state.seat);
    const said = eventText(Object.assign({}, frame, {fallback: false}), state.seat);  /* fallback: tagged below */
    add(decision, el("span", "kind", frame.kind), " ", el("span", "text", said));
    decision.className = "decision ev-" + frame.kind;
    if (frame.kind === "decision" && !others) {
      const charged = frame.charged_ms === null || frame.charged_ms === undefined
        ? "" : ", charged " + fmt(frame.charged_ms) + " ms";
      add(decision, " ", el("span", "by", "<" + who + ", " + fmt(frame.ms || 0) + " ms" + charged + ">"));
      /* the bot's own words: text (el sets textContent, spelled by `visible`), never markup */
      if (frame.debug !== null && frame.debug !== undefined) add(decision, el("div", "debug", "debug: " + frame.debug));
      if (frame.fallback) add(decision, " ", el("span", "fallback", "fallback"));
      if (frame.pending) add(decision, " ", el("span", "pending", "(applies once every seat asked with it has decided)"));
    }
    if (frame.over) add(decision, resultBox());
    else add(decision, el("div", "next", "to move: seat " + frame.to_move.join(", ") + " · phase " + (LIVE ? frame.view : frame.views[0]).phase));
    renderScores(frame);
    const seat = state.seat;
    /* A seat's view gets its own observation and nothing else: no other views, no secret.
     A layout reads the envelope's common keys from `view` and the game's fields from
     `view.game`. */
    /* A spectator's view is the public table: no seat's own fields, no secret. */
    const ctx = LIVE
      ? {meta: META, frame: frame, seat: null, all: false, view: frame.view, views: null, secret: null}
      : seat === null
      ? {meta: META, frame: frame, seat: null, all: true, view: frame.views[0], views: frame.views, secret: frame.secret}
      : {meta: META, frame: frame, seat: seat, all: false, view: frame.views[seat], views: null, secret: null};
    viewNote.textContent = LIVE
      ? "Spectator's view, live: what every seat may know (hands and face-down cards stay hidden until the match is over)."
      : seat === null
      ? "All-seeing view: every hand and every face-down card (marked) is shown."
      : "Seat " + seat + "'s view: exactly its observation at this point, what arena sends it when it is asked to decide; the others' moves as it saw them.";
    table.replaceChildren(layout ? layout(ctx) : el("p", null, "no layout for " + META.game));
    if (layout && layout.fit) layout.fit(table);
    relabelLog();
    for (const item of log.querySelectorAll(".current")) item.classList.remove("current");
    logItems[state.index].classList.add("current");
    if (api.batch) return;
    /* a live page follows the match in the list alone: the table stays where the
       reader scrolled the page (scrollIntoView would scroll the page to the list) */
    const shown = logItems[state.index];
    if (LIVE) log.scrollTop = Math.max(0, shown.offsetTop - log.offsetTop - log.clientHeight / 2);
    else shown.scrollIntoView({block: "nearest"});
  }

  /* The end of the match: the winner, then every rank (arena/viewer/events.py). */
  function resultBox() {
    const box = el("div", "result");
    box.id = "result";
    META.result.forEach((line, i) => add(box, el("div", i === 0 ? "winner" : "rank", line)));
    /* a live match over, not recorded yet: its ranks come with its record */
    if (LIVE && !META.result.length) add(box, el("div", "winner", "The match is over: its result shows once it is recorded."));
    return box;
  }

  let timer = null;
  function go(index) {
    state.index = Math.max(0, Math.min(FRAMES.length - 1, index));
    render();
  }
  function stepMs() { return BASE_MS / Number(speedSelect.value); }
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    buttons.play.textContent = PLAY;
    buttons.play.classList.remove("playing");
  }
  function start() {
    if (timer !== null) clearInterval(timer);
    if (state.index >= FRAMES.length - 1) go(0);  /* play at the end starts over */
    buttons.play.textContent = PAUSE;
    buttons.play.classList.add("playing");
    timer = setInterval(() => {
      if (state.index >= FRAMES.length - 1) { pause(); return; }
      go(state.index + 1);
    }, stepMs());
  }
  function play() { if (timer === null) start(); else pause(); }
  buttons.first.addEventListener("click", () => go(0));
  buttons.back.addEventListener("click", () => go(state.index - 1));
  buttons.next.addEventListener("click", () => go(state.index + 1));
  buttons.last.addEventListener("click", () => go(FRAMES.length - 1));
  buttons.play.addEventListener("click", play);
  speedSelect.addEventListener("change", () => { if (timer !== null) start(); });
  slider.addEventListener("input", () => go(Number(slider.value)));
  viewSelect.addEventListener("change", () => {
    state.seat = viewSelect.value === "all" ? null : Number(viewSelect.value);
    render();
  });
  document.addEventListener("keydown", (event) => {
    if (event.target === viewSelect || event.target === speedSelect) return;
    const moves = {ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10};
    if (event.key in moves) go(state.index + moves[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(FRAMES.length - 1);
    else if (event.key === " ") play();
    else return;
    event.preventDefault();
  });

  /* For scripts and tests: go to an event, pick a view, read the state. */
  const api = {
    batch: false,
    get count() { return FRAMES.length; },
    frames: FRAMES,
    received: [],  /* a live page: every frame as the stream sent it */
    ended: false,
    meta: META,
    go: go,
    setSeat(seat) {
      state.seat = seat;
      viewSelect.value = seat === null ? "all" : String(seat);
      render();
    },
    state() { return {index: state.index, seat: state.seat, playing: timer !== null, stepMs: stepMs()}; },
  };
  window.arenaViewer = api;
  /* A layout that fits itself to the window (Twirkle's board) is redrawn on a resize. */
  window.addEventListener("resize", () => { if (layout && layout.fit) layout.fit(table); });
  render();

  /* A live page: each frame of the stream is one more event; a reader at the last one
     follows the match, one who went back stays where it is. */
  function follow(live) {
    if (typeof EventSource === "undefined") return;
    const source = new EventSource(live.stream);
    source.addEventListener("frame", (message) => {
      const frame = JSON.parse(message.data);
      api.received.push(frame);
      const following = state.index >= FRAMES.length - 1;
      FRAMES.push(frame);
      logItem(frame, FRAMES.length - 1);
      slider.max = String(FRAMES.length - 1);
      if (following) go(FRAMES.length - 1);
      else counter.textContent = "event " + (state.index + 1) + " / " + FRAMES.length;
    });
    source.addEventListener("end", () => {
      source.close();
      api.ended = true;
      counter.textContent = "the match is over: loading its record";
      if (window.top !== window) window.top.location.reload();  /* the match page, recorded */
      else window.location.replace(live.done);
    });
  }
  if (LIVE) follow(LIVE);
})();
