// Redline dashboard: a tiny SVG chart renderer over /dashboard/data/ (no library, no CDN,
// no inline script or style: it runs under a strict Content-Security-Policy).
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var COLORS = { APPROVE: "#2f855a", REVISE: "#b7791f", RETRY: "#2b6cb0", FAIL: "#c53030",
    accepted: "#2f855a", rejected: "#c53030", count: "#4a5568" };

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  // Horizontal stacked bars: rows [{label, values: {series: n}}], series in order.
  function bars(container, rows, series, format) {
    container.textContent = "";
    if (!rows.length) {
      var p = document.createElement("p");
      p.className = "dash-empty";
      p.textContent = "No data yet.";
      container.appendChild(p);
      return;
    }
    var labelW = 190, barW = 300, rowH = 22, width = labelW + barW + 60;
    var max = Math.max.apply(null, rows.map(function (r) {
      return series.reduce(function (s, k) { return s + (r.values[k] || 0); }, 0);
    })) || 1;
    var svg = el("svg", { viewBox: "0 0 " + width + " " + (rows.length * rowH + 24),
      role: "img", "class": "dash-svg" });
    rows.forEach(function (row, i) {
      var y = i * rowH;
      svg.appendChild(el("text", { x: labelW - 6, y: y + 15, "text-anchor": "end",
        "class": "dash-label" }, row.label));
      var x = labelW, total = 0;
      series.forEach(function (key) {
        var n = row.values[key] || 0;
        total += n;
        var w = (n / max) * barW;
        if (w > 0) {
          var rect = el("rect", { x: x, y: y + 3, width: w, height: rowH - 6, fill: COLORS[key] || "#4a5568" });
          rect.appendChild(el("title", {}, key + ": " + n));
          svg.appendChild(rect);
        }
        x += w;
      });
      svg.appendChild(el("text", { x: x + 4, y: y + 15, "class": "dash-value" },
        format ? format(row, total) : String(total)));
    });
    var legendY = rows.length * rowH + 16, lx = labelW;
    if (series.length > 1) {
      series.forEach(function (key) {
        svg.appendChild(el("rect", { x: lx, y: legendY - 9, width: 10, height: 10, fill: COLORS[key] || "#4a5568" }));
        svg.appendChild(el("text", { x: lx + 14, y: legendY, "class": "dash-label" }, key));
        lx += 90;
      });
    }
    container.appendChild(svg);
  }

  function hours(h) {
    if (h === null || h === undefined) { return "—"; }
    return h < 1 ? Math.round(h * 60) + " min" : h < 48 ? h.toFixed(1) + " h" : (h / 24).toFixed(1) + " d";
  }

  function draw(data) {
    var chart = function (name) { return document.querySelector('[data-chart="' + name + '"]'); };
    var decisions = ["APPROVE", "REVISE", "RETRY", "FAIL"];
    bars(chart("decisions"), data.decisions_by_day.map(function (d) {
      return { label: d.day, values: d };
    }), decisions);
    bars(chart("confidence"), data.confidence_histogram.map(function (b) {
      return { label: b.label, values: { count: b.count } };
    }), ["count"]);
    var rate = function (row) { return Math.round(row.rate * 100) + "%"; };
    var acceptance = function (rows) {
      return rows.map(function (r) {
        return { label: r.label, rate: r.rate, values: { accepted: r.accepted, rejected: r.rejected } };
      });
    };
    bars(chart("origin"), acceptance(data.fix_acceptance_by_origin), ["accepted", "rejected"], rate);
    bars(chart("kind"), acceptance(data.fix_acceptance_by_kind), ["accepted", "rejected"], rate);
    bars(chart("loops"), data.loop_outcomes.map(function (r) {
      return { label: r.label, values: { count: r.count } };
    }), ["count"]);
    document.getElementById("kpi-median").textContent = hours(data.median_hours_to_approval);
    document.getElementById("kpi-approved").textContent = String(data.approved);
    var list = document.getElementById("oldest");
    list.textContent = "";
    data.oldest_waiting.forEach(function (item) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = item.url;
      a.textContent = item.title;
      li.appendChild(a);
      li.appendChild(document.createTextNode(" · " + item.status.replace("_", " ") + " · " + hours(item.age_hours)));
      list.appendChild(li);
    });
    if (!data.oldest_waiting.length) { list.textContent = "Nothing is waiting."; }
    document.getElementById("dashboard").setAttribute("data-ready", "1");
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("dashboard");
    if (!root) { return; }
    fetch(root.getAttribute("data-source"), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(draw);
  });
})();
