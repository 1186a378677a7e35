"use strict";
/* A leaderboard that follows the recording: every few seconds the same page is asked
   for again and its board (#board-area) put in place of this one. The new board is the
   server's escaped HTML, parsed by the browser; its nodes are moved, never made from a
   string here. The browser asks with the page's ETag (cache "no-cache"): an unchanged
   board is a 304, not sent or rendered again. window.arenaRefresh counts the boards put
   in place (for tests). */
(function () {
  const area = document.getElementById("board-area");
  if (!area || typeof fetch === "undefined") return;
  const every = Number(area.dataset.refresh || "5") * 1000;
  const seen = {refreshed: 0, last: area.dataset.stamp || ""};
  window.arenaRefresh = seen;
  async function look() {
    try {
      const answer = await fetch(window.location.href, {headers: {"Accept": "text/html"}, cache: "no-cache"});
      if (answer.ok) {
        const page = new DOMParser().parseFromString(await answer.text(), "text/html");
        const fresh = page.getElementById("board-area");
        const now = document.getElementById("board-area");
        if (fresh && now && fresh.dataset.stamp !== now.dataset.stamp) {
          now.replaceWith(document.adoptNode(fresh));
          seen.refreshed += 1;
          seen.last = fresh.dataset.stamp;
        }
      }
    } catch (error) { /* the service restarting: look again later */ }
    setTimeout(look, every);
  }
  setTimeout(look, every);
})();
