"use strict";
/* A match in play, followed by server-sent events (/matches/ID/live): each frame is a
   spectator's (arena/service/live.py: no hand, no face-down card, no debug text), shown
   as text (textContent). At the end the page loads again: the recorded match and its
   replay viewer. For tests: window.arenaLive = {frames, ended}. */
(function () {
  const box = document.getElementById("live");
  if (!box || typeof EventSource === "undefined") return;
  const log = document.getElementById("live-log");
  const scores = document.getElementById("live-scores");
  const state = document.getElementById("live-state");
  const seen = {frames: [], ended: false};
  window.arenaLive = seen;
  const source = new EventSource(box.dataset.stream);
  state.textContent = "following the match as it is played";
  source.addEventListener("frame", (message) => {
    const frame = JSON.parse(message.data);
    seen.frames.push(frame);
    const item = document.createElement("li");
    item.className = "ev-" + frame.kind;
    item.textContent = frame.text;
    log.prepend(item);
    scores.textContent = "scores: " + frame.scores.join(", ") +
      (frame.over ? " · over" : " · to move: seat " + frame.to_move.join(", "));
  });
  source.addEventListener("end", () => {
    source.close();
    seen.ended = true;
    state.textContent = "the match is over: loading its record";
    if (box.dataset.reload !== "no") window.location.reload();
  });
})();
