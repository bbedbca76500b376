"""The report page's stylesheet and script, inlined into every report.

Kept as Python strings (not package data) so that the page can be built
from any install without finding files.  The script unpacks the data the
page embeds and renders everything from it, always through ``textContent`` (never
``innerHTML``), except the control-flow graphs, which are SVG that
``cfg_svg`` builds with every text escaped.
"""

CSS = r"""
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#d8dde4; --bg:#fff; --panel:#f6f8fa; --accent:#2459c9;
        --ok:#1a7f37; --refused:#9a6700; --failed:#cf222e; --hl:#fff3b0; --hl-strong:#ffd84d; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 14px 20px 6px; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 19px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12px; }
.stats { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 8px; }
.stat { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; }
.stat b { font-size: 15px; margin-right: 4px; }
.summary-grid { display: flex; flex-wrap: wrap; gap: 18px; align-items: flex-start; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; background: var(--panel); }
#list th { position: sticky; top: 0; z-index: 1; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.reasons-box { max-height: 220px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; max-width: 760px; }
.reasons td:first-child { overflow-wrap: anywhere; }
main { padding: 0 20px 40px; }
#list-tools { display: flex; gap: 12px; align-items: center; margin: 14px 0 8px; }
#filter { flex: 0 1 520px; padding: 6px 10px; font-size: 14px; border: 1px solid var(--line); border-radius: 6px; }
#count { color: var(--muted); }
#list { max-height: 42vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
#shaders { width: 100%; }
#shaders tbody tr { cursor: pointer; }
#shaders tbody tr:hover { background: #eef3ff; }
#shaders tbody tr.current { background: #dce7ff; }
#shaders td.path { overflow-wrap: anywhere; max-width: 60vw; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
#shaders td.err { color: var(--failed); overflow-wrap: anywhere; max-width: 40vw; }
.st { display: inline-block; min-width: 18px; padding: 0 5px; border-radius: 4px; font-size: 12px; color: #fff; }
.st-converted { background: var(--ok); } .st-refused { background: var(--refused); } .st-failed { background: var(--failed); }
.st-none { background: #aab; }
#more { margin: 8px 0; }
#detail { margin-top: 10px; }
#detail-title { overflow-wrap: anywhere; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 15px; }
.meta { color: var(--muted); }
.tabs { display: flex; gap: 4px; flex-wrap: wrap; margin: 8px 0; }
.tabs button { border: 1px solid var(--line); background: var(--panel); border-radius: 6px 6px 0 0; padding: 4px 12px; cursor: pointer; }
.tabs button.active { background: var(--bg); border-bottom-color: var(--bg); font-weight: 600; color: var(--accent); }
.panes { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.3fr); gap: 12px; }
.pane { position: relative; border: 1px solid var(--line); border-radius: 6px; overflow: auto; max-height: 70vh; background: var(--bg); }
.pane-title { position: sticky; top: 0; background: var(--panel); border-bottom: 1px solid var(--line); padding: 3px 8px; font-weight: 600; z-index: 1; }
.lines { padding: 4px 0; white-space: pre; }
.ln { display: block; padding: 0 8px 0 0; min-height: 16px; line-height: 16px; }
.ln::before { content: attr(data-n); display: inline-block; width: 44px; padding-right: 8px; text-align: right; color: #9aa4b1; user-select: none; }
.asm-line.linked { cursor: pointer; }
.asm-line.linked:hover, .code-line.linked:hover { background: #eef3ff; }
.code-line.linked { cursor: pointer; }
.code-line.synthetic { color: #6b7685; font-style: italic; box-shadow: inset 3px 0 #c9d1db; }
.ln.hl, .ln.hl.linked:hover { background: var(--hl); }
.ln.hl-src, .ln.hl-src.linked:hover { background: var(--hl-strong); }
.hint { color: var(--muted); font-size: 12px; margin: 4px 0; }
ul.msgs { margin: 4px 0; padding-left: 20px; }
ul.msgs li { overflow-wrap: anywhere; white-space: pre-wrap; font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
ul.errors li { color: var(--failed); }
details.reflection { margin-top: 14px; }
details.reflection > summary { font-weight: 600; cursor: pointer; }
pre.json { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; max-height: 50vh; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.cfg-wrap { overflow: auto; border: 1px solid var(--line); border-radius: 6px; padding: 8px; background: var(--panel); max-height: 80vh; }
.cfg-wrap svg { margin-right: 24px; vertical-align: top; }
svg.cfg text { font: 11px ui-monospace, "DejaVu Sans Mono", monospace; fill: var(--fg); }
svg.cfg .cfg-title { font-weight: 700; font-size: 12px; }
svg.cfg .cfg-name { font-weight: 700; fill: var(--accent); }
svg.cfg .cfg-block rect { fill: #fff; stroke: #8796aa; }
svg.cfg .cfg-dead rect { fill: #f3f3f3; stroke: #aab; stroke-dasharray: 4 3; }
svg.cfg .cfg-end rect { fill: #e6ecf5; stroke: #8796aa; }
svg.cfg g[data-lines]:not([data-lines=""]) { cursor: pointer; }
svg.cfg g.sel rect { fill: var(--hl); stroke: var(--accent); stroke-width: 2; }
svg.cfg .cfg-edge { fill: none; stroke: #55657a; stroke-width: 1.2; }
svg.cfg .cfg-back { fill: none; stroke: #c4621b; stroke-width: 1.2; stroke-dasharray: 5 3; }
svg.cfg .cfg-head { fill: #55657a; }
.empty { color: var(--muted); font-style: italic; }
@media (max-width: 900px) { .panes { grid-template-columns: 1fr; } }
"""

JS = r"""
"use strict";
// The data: gzip-compressed JSON in base64 (see xlate/report/page.py).
async function xlateData() {
  const text = atob(document.getElementById("xlate-data").textContent);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}
(async function () {
  if (typeof DecompressionStream === "undefined") {
    document.getElementById("count").textContent = "This browser cannot unpack the report (it lacks DecompressionStream: use Chrome 80, Firefox 113, Safari 16.4 or later).";
    return;
  }
  document.getElementById("count").textContent = "Loading\u2026";
  const DATA = await xlateData();
  const ENTRIES = DATA.entries, TARGETS = DATA.targets, PAGE = 500, LONG = 160;
  // Control and bidirectional-formatting characters are shown as escapes:
  // names come from shaders and must not hide or reorder what is shown.
  // Names and listing lines are one line (a newline in a name is shown as
  // \u000a); messages may run over several.
  const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
  const HIDDEN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;
  const escapeChar = c => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  function show(s) { return String(s).replace(HIDDEN, escapeChar); }
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = show(text);
    return e;
  }
  function message(tag, cls, text) {
    const e = el(tag, cls);
    e.textContent = String(text).replace(HIDDEN_TEXT, escapeChar);
    return e;
  }
  const $ = id => document.getElementById(id);

  // ---- summary ------------------------------------------------------------
  function renderSummary() {
    const s = DATA.summary, box = $("summary");
    const stats = el("div", "stats");
    for (const [k, v] of Object.entries(s)) {
      if (v !== null && typeof v === "object") continue;
      const t = el("span", "stat");
      t.appendChild(el("b", null, v));
      t.appendChild(document.createTextNode(show(k.replace(/_/g, " "))));
      stats.appendChild(t);
    }
    box.appendChild(stats);
    const grid = el("div", "summary-grid");
    const per = s.targets || {};
    if (Object.keys(per).length) {
      const tbl = el("table", "targets");
      const head = tbl.createTHead().insertRow();
      for (const h of ["target", "converted", "refused", "failed"]) head.appendChild(el("th", null, h));
      const body = tbl.createTBody();
      for (const [t, c] of Object.entries(per)) {
        const r = body.insertRow();
        r.appendChild(el("td", "mono", t));
        for (const k of ["converted", "refused", "failed"]) r.appendChild(el("td", "num", (c && c[k]) || 0));
      }
      grid.appendChild(tbl);
    }
    const reasons = Array.isArray(s.reasons) ? s.reasons : Object.entries(s.reasons || {});
    if (reasons.length) {
      const tbl = el("table", "reasons");
      const head = tbl.createTHead().insertRow();
      head.appendChild(el("th", null, "reason (refused or failed)"));
      head.appendChild(el("th", null, "count"));
      const body = tbl.createTBody();
      for (const [why, n] of reasons) {
        const r = body.insertRow();
        r.appendChild(el("td", "mono", why));
        r.appendChild(el("td", "num", n));
      }
      const scroll = el("div", "reasons-box");
      scroll.appendChild(tbl);
      grid.appendChild(scroll);
    }
    box.appendChild(grid);
    const rest = Object.entries(s).filter(([k, v]) => v !== null && typeof v === "object" && k !== "targets" && k !== "reasons");
    for (const [k, v] of rest) {
      const d = el("details");
      d.appendChild(el("summary", null, k));
      d.appendChild(message("pre", "json", JSON.stringify(v, null, 2)));
      box.appendChild(d);
    }
  }

  // ---- table ----------------------------------------------------------------
  const HAY = ENTRIES.map(e => [e.p, e.k, e.v, ...Object.entries(e.o).map(([t, o]) => t + ":" + o),
                                ...e.e, ...e.g].join("\n").toLowerCase());
  let matches = [], shown = 0, current = -1;
  // (a path longer than LONG shows its ends in the table, whole in its tooltip and detail)
  function statusCell(e, t) {
    const td = el("td");
    const o = e.o[t];
    const s = el("span", "st st-" + (o || "none"), o === "converted" ? "\u2713" : o === "refused" ? "refused" : o === "failed" ? "failed" : "\u2013");
    s.title = t + ": " + (o || "not asked");
    td.appendChild(s);
    return td;
  }
  function row(i) {
    const e = ENTRIES[i], tr = document.createElement("tr");
    tr.dataset.index = i;
    tr.tabIndex = 0;
    if (i === current) tr.className = "current";
    const path = el("td", "path", e.p.length > LONG ? e.p.slice(0, LONG / 2) + "\u2026" + e.p.slice(-LONG / 2) : e.p);
    if (e.p.length > LONG) path.title = show(e.p);
    tr.appendChild(path);
    tr.appendChild(el("td", null, e.k));
    tr.appendChild(el("td", "mono", e.v || "\u2013"));
    for (const t of TARGETS) tr.appendChild(statusCell(e, t));
    tr.appendChild(el("td", "num", e.g.length || ""));
    tr.appendChild(el("td", "err", e.e.length ? e.e[0] : ""));
    return tr;
  }
  function renderHead() {
    const tr = $("shaders").tHead.rows[0];
    for (const h of ["path", "kind", "model", ...TARGETS, "warnings", "error"]) tr.appendChild(el("th", null, h));
  }
  function applyFilter() {
    const terms = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
    matches = [];
    for (let i = 0; i < ENTRIES.length; i++) {
      const h = HAY[i];
      if (terms.every(t => h.includes(t))) matches.push(i);
    }
    const body = $("shaders").tBodies[0];
    body.replaceChildren();
    shown = 0;
    showMore();
  }
  function showMore() {
    const body = $("shaders").tBodies[0], frag = document.createDocumentFragment();
    const end = Math.min(matches.length, shown + PAGE);
    for (let k = shown; k < end; k++) frag.appendChild(row(matches[k]));
    body.appendChild(frag);
    shown = end;
    $("count").textContent = matches.length + " of " + ENTRIES.length + " shaders" + (shown < matches.length ? " (" + shown + " listed)" : "");
    $("more").hidden = shown >= matches.length;
    $("more").textContent = "Show " + Math.min(PAGE, matches.length - shown) + " more";
  }

  // ---- detail ---------------------------------------------------------------
  let target = null;
  function open(i, scroll) {
    if (!(i >= 0 && i < ENTRIES.length)) return;
    current = i;
    for (const tr of document.querySelectorAll("#shaders tr.current")) tr.classList.remove("current");
    const tr = document.querySelector('#shaders tr[data-index="' + i + '"]');
    if (tr) tr.classList.add("current");
    const e = ENTRIES[i];
    const targets = Object.keys(e.c);
    if (!targets.includes(target)) target = targets[0] || null;
    renderDetail(e);
    if (history.replaceState) history.replaceState(null, "", "#shader-" + i);
    if (scroll) $("detail").scrollIntoView({block: "start"});
  }
  function lines(cls, texts, title) {
    const pane = el("div", "pane " + cls + "-pane");
    pane.appendChild(el("div", "pane-title", title));
    const box = el("div", "lines mono");
    texts.forEach((t, n) => {
      const d = el("span", "ln " + cls + "-line", t);
      d.dataset.n = n + 1;
      d.dataset.line = n;
      box.appendChild(d);
    });
    pane.appendChild(box);
    return pane;
  }
  function renderDetail(e) {
    const d = $("detail");
    d.hidden = false;
    d.replaceChildren();
    d.appendChild(el("h2", null, "Shader"));
    const title = el("div", null, e.p);
    title.id = "detail-title";
    d.appendChild(title);
    d.appendChild(el("div", "meta", e.k + (e.v ? " \u00b7 " + e.v : "")));
    if (e.e.length) {
      d.appendChild(el("h3", null, "Errors"));
      const ul = el("ul", "msgs errors");
      for (const m of e.e) ul.appendChild(message("li", null, m));
      d.appendChild(ul);
    }
    d.appendChild(el("h3", null, "Diagnostics"));
    if (e.g.length) {
      const ul = el("ul", "msgs");
      for (const m of e.g) ul.appendChild(message("li", null, m));
      d.appendChild(ul);
    } else d.appendChild(el("div", "empty", "none"));
    const targets = Object.keys(e.c);
    if (targets.length) {
      d.appendChild(el("h3", null, "Listing and generated code"));
      const tabs = el("div", "tabs");
      for (const t of targets) {
        const b = el("button", t === target ? "active" : "", t);
        b.dataset.target = t;
        b.addEventListener("click", () => { target = t; renderDetail(e); });
        tabs.appendChild(b);
      }
      d.appendChild(tabs);
      d.appendChild(el("div", "hint", (e.l[target] || []).length
        ? "Click an instruction to highlight the code it became, or a line of code to find its instruction. " +
          "Code in italics comes from no instruction (added by xlate, such as the position fix-ups)."
        : "No instruction links for this target."));
      const panes = el("div", "panes");
      const asm = lines("asm", e.d, "D3D listing");
      const code = lines("code", String(e.c[target]).split("\n"), target);
      panes.appendChild(asm);
      panes.appendChild(code);
      d.appendChild(panes);
      wireLinks(e, asm, code);
    } else if (e.d.length) {
      d.appendChild(el("h3", null, "Listing"));
      d.appendChild(lines("asm", e.d, "D3D listing"));
    }
    d.appendChild(el("h3", null, "Control-flow graph"));
    if (e.f) {
      const wrap = el("div", "cfg-wrap");
      wrap.innerHTML = e.f;  // built by xlate.report.cfg_svg, every text escaped
      d.appendChild(wrap);
      const asmPane = d.querySelector(".asm-pane");
      wrap.addEventListener("click", ev => {
        const g = ev.target.closest("g[data-lines]");
        if (!g || !asmPane) return;
        for (const s of wrap.querySelectorAll("g.sel")) s.classList.remove("sel");
        g.classList.add("sel");
        const want = new Set(g.dataset.lines.split(" ").filter(Boolean).map(Number));
        highlight(asmPane, want, "hl-src");
      });
    } else d.appendChild(el("div", "empty", "not available"));
    if (target !== null) {
      const refl = el("details", "reflection");
      refl.appendChild(el("summary", null, "Reflection (" + target + ")"));
      refl.appendChild(message("pre", "json", JSON.stringify(e.r[target] || {}, null, 2)));
      d.appendChild(refl);
    }
  }
  function highlight(pane, set, cls) {
    let first = null;
    for (const ln of pane.querySelectorAll(".ln")) {
      const on = set.has(Number(ln.dataset.line));
      ln.classList.toggle("hl", on && cls === "hl");
      ln.classList.toggle("hl-src", on && cls === "hl-src");
      if (on && first === null) first = ln;
    }
    if (first) pane.scrollTop = Math.max(0, first.offsetTop - pane.clientHeight / 3);
  }
  function wireLinks(e, asm, code) {
    const links = e.l[target] || [];
    const byAsm = new Map(), codeTo = new Map();
    for (const [a, first, last] of links) {
      if (!byAsm.has(a)) byAsm.set(a, []);
      byAsm.get(a).push([first, last]);
      for (let n = first; n <= last; n++) {
        if (!codeTo.has(n)) codeTo.set(n, new Set());
        codeTo.get(n).add(a);
      }
    }
    for (const ln of asm.querySelectorAll(".ln")) if (byAsm.has(Number(ln.dataset.line))) ln.classList.add("linked");
    for (const ln of code.querySelectorAll(".ln")) if (codeTo.has(Number(ln.dataset.line))) ln.classList.add("linked");
    // code from no D3D instruction (position fix-ups): marked, linked to nothing
    const synthetic = new Set();
    for (const [first, last] of (e.x || {})[target] || []) for (let n = first; n <= last; n++) synthetic.add(n);
    for (const ln of code.querySelectorAll(".ln")) if (synthetic.has(Number(ln.dataset.line))) {
      ln.classList.add("synthetic");
      ln.title = "added by xlate: from no D3D instruction";
    }
    function select(asmSet) {
      const codeSet = new Set();
      for (const a of asmSet) for (const [f, l] of byAsm.get(a) || []) for (let n = f; n <= l; n++) codeSet.add(n);
      highlight(asm, asmSet, "hl-src");
      highlight(code, codeSet, "hl");
    }
    asm.addEventListener("click", ev => {
      const ln = ev.target.closest(".ln");
      if (ln && byAsm.has(Number(ln.dataset.line))) select(new Set([Number(ln.dataset.line)]));
    });
    code.addEventListener("click", ev => {
      const ln = ev.target.closest(".ln");
      if (ln && codeTo.has(Number(ln.dataset.line))) select(codeTo.get(Number(ln.dataset.line)));
    });
  }

  // ---- start ------------------------------------------------------------------
  renderSummary();
  renderHead();
  $("filter").addEventListener("input", applyFilter);
  $("more").addEventListener("click", showMore);
  const tbody = $("shaders").tBodies[0];
  tbody.addEventListener("click", ev => {
    const tr = ev.target.closest("tr[data-index]");
    if (tr) open(Number(tr.dataset.index), true);
  });
  tbody.addEventListener("keydown", ev => {
    const tr = ev.target.closest("tr[data-index]");
    if (tr && ev.key === "Enter") open(Number(tr.dataset.index), true);
  });
  applyFilter();
  const m = /^#shader-(\d+)$/.exec(location.hash);
  if (m) open(Number(m[1]), true);
  document.body.dataset.ready = "1";
})();
"""
