"use strict";
/* The rating-history plots of a bot's page, drawn by uPlot (vendor/uplot): per game and
   rules version, the bot's n-th rated match on the x axis; for each version its mu after
   that match as a line and a band from mu - 2 sigma to mu + 2 sigma. The points are the
   page's embedded JSON (#rating-data: arena/service/web/plots.py), every text of it put
   on the page as text (textContent), never as markup. For tests and scripts:
   window.arenaPlots, one {game, rules, versions, plot} per chart (plot: the uPlot). */
(function () {
  const source = document.getElementById("rating-data");
  const holder = document.getElementById("rating-plots");
  if (!source || !holder || typeof uPlot === "undefined") return;
  const PLOTS = JSON.parse(source.textContent);
  const COLOURS = ["#1f5f99", "#b3541e", "#2a7d3b", "#7b3a96", "#9a2f4a", "#52616b"];
  const made = [];

  function width() { return Math.max(240, Math.min(holder.clientWidth || 600, 900)); }

  PLOTS.forEach((found, index) => {
    const box = document.createElement("figure");
    box.className = "rating-plot";
    box.id = "rating-plot-" + index;
    const caption = document.createElement("figcaption");
    caption.textContent = found.game + " (rules v" + found.rules + "): mu after each rated match, band mu ± 2 sigma";
    box.append(caption);
    holder.append(box);
    const x = found.points.map((_, i) => i + 1);
    const data = [x];
    const series = [{label: "match"}];
    const bands = [];
    found.versions.forEach((version, k) => {
      const colour = COLOURS[k % COLOURS.length];
      const mine = (f) => found.points.map((p) => (p.version === version ? f(p) : null));
      const first = data.length;
      data.push(mine((p) => p.mu), mine((p) => p.mu + 2 * p.sigma), mine((p) => p.mu - 2 * p.sigma));
      series.push(
        {label: "v" + version + " mu", stroke: colour, width: 2, points: {show: found.points.length < 60}},
        {label: "v" + version + " mu + 2σ", stroke: colour, width: 0.5, dash: [4, 4], points: {show: false}},
        {label: "v" + version + " mu − 2σ", stroke: colour, width: 0.5, dash: [4, 4], points: {show: false}},
      );
      bands.push({series: [first + 1, first + 2], fill: colour + "22"});
    });
    const plot = new uPlot({
      width: width(),
      height: 260,
      scales: {x: {time: false}},
      axes: [{label: "rated match", incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000]}, {label: "rating (mu)"}],
      series: series,
      bands: bands,
    }, data, box);
    made.push({game: found.game, rules: found.rules, versions: found.versions, points: found.points, plot: plot});
  });
  window.arenaPlots = made;
  window.addEventListener("resize", () => { for (const m of made) m.plot.setSize({width: width(), height: 260}); });
})();
