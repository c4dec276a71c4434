// tokenforge's visualizer page (written into the HTML by tokenforge/views/page.py).
// Byte-level BPE models are encoded here from the embedded vocabulary: the split regex,
// then lowest-rank-first byte-pair merging of each piece (tiktoken's rule).  Other models
// show the ids page.py precomputed for the sample text.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("data").textContent);
  const utf8 = new TextEncoder();
  const textOf = new TextDecoder("utf-8");
  const NS = "http://www.w3.org/2000/svg";

  // Tokens are "binary strings": one char per byte (what atob returns), usable as Map keys.
  function binary(bytes) { let s = ""; for (const b of bytes) s += String.fromCharCode(b); return s; }
  function bytesOf(s) { return Uint8Array.from(s, (c) => c.charCodeAt(0)); }
  function printable(s) {
    return textOf.decode(bytesOf(s)).replace(/[\u0000-\u001f\u007f]/g, (c) =>
      c === "\n" ? "\u21b5\n" : c === "\t" ? "\u21e5" : "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  }
  function hex(s) { return Array.from(bytesOf(s), (b) => b.toString(16).padStart(2, "0")).join(" "); }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function svg(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  class Model {
    constructor(m, index) {
      this.m = m;
      this.index = index;
      this.tokens = m.tokens.map((t) => (t === null ? null : atob(t)));
      this.rank = new Map();
      this.tokens.forEach((t, i) => { if (t !== null && !this.rank.has(t)) this.rank.set(t, i); });
      this.parents = new Map(m.parents.map(([i, a, b]) => [i, [a, b]]));
      this.cache = new Map();
      this.re = null;
      if (m.live) {
        try { this.re = new RegExp(m.pattern, "gu"); } catch (e) { this.re = null; }  // (page.py's js_pattern)
      }
    }
    bpe(piece) {
      let ids = this.cache.get(piece);
      if (ids) return ids;
      const parts = Array.from(piece);
      while (parts.length > 1) {
        let best = -1, bestRank = Infinity;
        for (let i = 0; i + 1 < parts.length; i++) {
          const r = this.rank.get(parts[i] + parts[i + 1]);
          if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
        }
        if (best < 0) break;
        parts.splice(best, 2, parts[best] + parts[best + 1]);
      }
      ids = parts.map((p) => (this.rank.has(p) ? this.rank.get(p) : -1));
      this.cache.set(piece, ids);
      return ids;
    }
    encode(text) {
      if (this.re === null) return null;
      const ids = [];
      for (const match of text.matchAll(this.re)) ids.push(...this.bpe(binary(utf8.encode(match[0]))));
      return ids;
    }
    label(id) { return id >= 0 && this.tokens[id] != null ? printable(this.tokens[id]) : "?"; }
  }

  const models = DATA.models.map((m, i) => new Model(m, i));
  const box = document.getElementById("text");
  const note = document.getElementById("note");
  const tip = document.getElementById("tip");
  const columns = [];

  function describe(model, id) {
    const t = model.tokens[id];
    const lines = ["id " + id, "text " + JSON.stringify(t == null ? "" : printable(t)), "bytes " + (t == null ? "" : hex(t))];
    const p = model.parents.get(id);
    lines.push(p ? "parents [" + model.label(p[0]) + "] " + p[0] + " + [" + model.label(p[1]) + "] " + p[1] : "parents - (a single byte or no merge)");
    return lines.join("\n");
  }

  function histogram(model) {
    const counts = model.m.hist, max = Math.max(1, ...counts), w = 18, h = 80;
    const s = svg("svg", { width: counts.length * w + 10, height: h + 30, class: "histogram" });
    counts.forEach((c, i) => {
      const bh = Math.round((c / max) * h);
      const bar = svg("rect", { x: i * w + 5, y: h - bh + 5, width: w - 3, height: bh, fill: "#7a9cc6" });
      bar.appendChild(svg("title", {}, (i + 1) + (i + 1 === counts.length ? "+" : "") + " bytes: " + c + " tokens"));
      s.appendChild(bar);
      s.appendChild(svg("text", { x: i * w + 6, y: h + 20, "font-size": 10 }, String(i + 1) + (i + 1 === counts.length ? "+" : "")));
    });
    return s;
  }

  // The merge tree of `id`: the token at the top, its two parents below it, down to bytes.
  function drawTree(model, id, into) {
    into.textContent = "";
    let leaves = 0, depth = 0;
    const nodes = [], edges = [];
    function place(i, d, seen) {
      depth = Math.max(depth, d);
      const p = model.parents.get(i);
      let x;
      if (!p || seen > 200) { x = leaves++; } else {
        const a = place(p[0], d + 1, seen + 1), b = place(p[1], d + 1, seen + 1);
        x = (a.x + b.x) / 2;
        edges.push([x, d, a.x, d + 1], [x, d, b.x, d + 1]);
      }
      const n = { id: i, x: x, d: d };
      nodes.push(n);
      return n;
    }
    place(id, 0, 0);
    const dx = 56, dy = 44;
    const s = svg("svg", { width: Math.max(1, leaves) * dx + 20, height: (depth + 1) * dy + 20 });
    for (const [x1, d1, x2, d2] of edges)
      s.appendChild(svg("line", { x1: x1 * dx + 30, y1: d1 * dy + 20, x2: x2 * dx + 30, y2: d2 * dy + 20, stroke: "#999" }));
    for (const n of nodes) {
      const g = svg("g", { class: "node", "data-id": n.id });
      g.appendChild(svg("rect", { x: n.x * dx + 4, y: n.d * dy + 8, width: dx - 8, height: 22, rx: 4, fill: n.d === 0 ? "#fde2a7" : "#eef" }));
      g.appendChild(svg("text", { x: n.x * dx + 30, y: n.d * dy + 23, "text-anchor": "middle" }, JSON.stringify(model.label(n.id)).slice(1, -1).replace(/ /g, "\u2423").slice(0, 8)));
      g.appendChild(svg("title", {}, describe(model, n.id)));
      s.appendChild(g);
    }
    into.appendChild(s);
  }

  function search(model, query, results, tree) {
    results.textContent = "";
    if (!query) return;
    let found = [];
    const asId = /^#?(\d+)$/.exec(query);
    if (asId && model.tokens[+asId[1]] != null) found.push(+asId[1]);
    model.tokens.forEach((t, i) => { if (t !== null && found.length < 2000 && printable(t).includes(query)) found.push(i); });
    found = Array.from(new Set(found)).sort((a, b) => model.tokens[a].length - model.tokens[b].length || a - b).slice(0, 40);
    for (const i of found) {
      const a = el("a", { "data-id": i }, JSON.stringify(model.label(i)) + " " + i);
      a.addEventListener("click", () => drawTree(model, i, tree));
      results.appendChild(a);
    }
    if (found.length) drawTree(model, found[0], tree);
    else results.textContent = "no token contains " + JSON.stringify(query);
  }

  for (const model of models) {
    const col = el("div", { class: "model", "data-model": model.index });
    col.appendChild(el("h2", {}, model.m.name + " (" + model.m.kind + ")"));
    const stats = el("div", { class: "stats" }), tokens = el("div", { class: "tokens" }), ids = el("div", { class: "ids" });
    col.append(stats, tokens, ids);
    col.appendChild(el("h3", {}, "Merge tree"));
    const input = el("input", { class: "search", placeholder: "search a token: text or #id" });
    const results = el("div", { class: "results" }), tree = el("div", { class: "tree" });
    input.addEventListener("input", () => search(model, input.value, results, tree));
    col.append(input, results, tree);
    col.appendChild(el("h3", {}, "Token lengths (bytes) in the vocabulary"));
    col.appendChild(histogram(model));
    const n = model.m.sample_ids.length;
    col.appendChild(el("div", { class: "stats sample" },
      "Sample (" + model.m.sample_bytes + " bytes): " + n + " tokens, " + (model.m.sample_bytes / Math.max(1, n)).toFixed(2) + " bytes/token"));
    document.getElementById("models").appendChild(col);
    columns.push({ model, stats, tokens, ids });
  }

  function update() {
    const text = box.value;
    const notes = [];
    for (const c of columns) {
      let idsOf = c.model.encode(text);
      if (idsOf === null) {
        idsOf = c.model.m.sample_ids;
        if (text !== DATA.sample) notes.push(c.model.m.name + ": tokens of the sample text (" + c.model.m.kind + " models are encoded in Python; run tokenforge show)");
      }
      c.tokens.textContent = "";
      idsOf.forEach((id, k) => {
        const span = el("span", { class: "tok c" + (k % 7), "data-id": id }, c.model.label(id));
        c.tokens.appendChild(span);
      });
      c.ids.textContent = "[" + idsOf.join(", ") + "]";
      const n = utf8.encode(text).length;
      c.stats.textContent = idsOf.length + " tokens, " + n + " bytes, " + (n / Math.max(1, idsOf.length)).toFixed(2) + " bytes/token";
    }
    note.textContent = notes.join(" · ");
  }

  document.getElementById("models").addEventListener("mouseover", (e) => {
    const t = e.target.closest(".tok");
    if (!t) return;
    const model = models[+t.closest(".model").dataset.model];
    tip.textContent = describe(model, +t.dataset.id);
    tip.hidden = false;
    tip.style.left = e.clientX + 12 + "px";
    tip.style.top = e.clientY + 12 + "px";
  });
  document.getElementById("models").addEventListener("mouseout", (e) => { if (e.target.closest(".tok")) tip.hidden = true; });
  box.addEventListener("input", update);
  box.value = DATA.sample;
  update();
})();
