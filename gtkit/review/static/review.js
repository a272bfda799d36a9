// gtkit review: the page of `gtkit review`. Plain JavaScript, no framework, nothing loaded from elsewhere.
// Every value shown comes from the dataset and is set as text (never as HTML).
"use strict";

const TOKEN = document.body.dataset.token;
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const KIND_LABELS = {cell: "contested cell", extra_record: "extra record", draw: "box to draw", truth: "settled cell"};

const st = {
  items: [],        // [id, kind, doc, field, cause] per item, in queue order
  decided: [],      // whether each item is decided
  outcomes: [],     // how each item was decided: "confirmed", "corrected" or null
  mode: "consensus", // "any": a dataset that is not a consensus output, every cell an item
  shown: [],        // indexes of the items the filter keeps
  pos: 0,           // position of the current item in `shown`
  item: null,       // the current item's detail
  page: 1,          // the page on screen
  drawn: null,      // the box drawn on the page: {page, box: [x0, y0, x1, y1]}
  asked: 0,         // how many items were asked for: only the last answer is shown
};

function url(path, params) {
  const q = new URLSearchParams(Object.assign({token: TOKEN}, params || {}));
  return path + "?" + q.toString();
}

async function getJSON(path) {
  const r = await fetch(url(path));
  if (!r.ok) throw new Error((await r.text()) || r.statusText);
  return r.json();
}

function say(text, kind) {
  const m = $("message");
  m.textContent = text || "";
  m.className = kind || "";
}

function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function show(value) {
  return value === null || value === undefined ? "null" : (typeof value === "string" ? value : JSON.stringify(value));
}

// --- the list, its filter and the counter ---------------------------------------------------------

function fillFilter(select, values, label) {
  for (const v of values) {
    const o = el("option", label ? label(v) : v);
    o.value = v;
    select.appendChild(o);
  }
}

function applyFilter(keepId) {
  const field = $("filter-field").value, cause = $("filter-cause").value;
  st.shown = [];
  st.items.forEach((it, i) => {
    if (field && it[3] !== field) return;
    if (cause && (it[4] || it[1]) !== cause) return;
    st.shown.push(i);
  });
  const at = keepId === undefined ? -1 : st.shown.indexOf(keepId);
  st.pos = at >= 0 ? at : firstUndecided(0);
  counter();
}

function firstUndecided(from) {
  const n = st.shown.length;
  for (let k = 0; k < n; k++) {
    const p = (from + k) % n;
    if (!st.decided[st.shown[p]]) return p;
  }
  return Math.min(from, Math.max(n - 1, 0));
}

function counter() {
  const left = st.decided.filter((d) => !d).length;
  const leftShown = st.shown.filter((i) => !st.decided[i]).length;
  const done = st.mode === "any"
    ? `${st.outcomes.filter((o) => o === "corrected").length} corrected, ` +
      `${st.outcomes.filter((o) => o === "confirmed").length} confirmed, ` : "";
  $("counter").textContent = done + `${left} left of ${st.items.length}` +
    (st.shown.length !== st.items.length ? ` (this filter: ${leftShown} left of ${st.shown.length})` : "");
  $("position").textContent = st.shown.length ? `item ${st.pos + 1} of ${st.shown.length}` : "no item";
}

// --- one item -----------------------------------------------------------------------------------

async function open(pos) {
  if (!st.shown.length) {
    st.item = null;
    $("item-title").textContent = "nothing to review under this filter";
    counter();
    return;
  }
  st.pos = (pos + st.shown.length) % st.shown.length;
  const i = st.shown[st.pos];
  const asked = ++st.asked;
  const item = await getJSON("/api/item/" + i);
  if (asked !== st.asked) return;   // a later move was made while this item was on its way
  st.item = item;
  st.drawn = null;
  st.page = startPage(st.item);
  render();
}

function startPage(d) {
  for (const c of d.candidates) for (const b of c.boxes) if (b.page) return b.page;
  return d.cited.length ? d.cited[0] : 1;
}

function render() {
  const d = st.item;
  counter();
  $("item-title").textContent = d.id;
  const facts = $("item-facts");
  facts.replaceChildren();
  const rows = [["kind", KIND_LABELS[d.kind]], ["field", d.field],
    ["tier", d.tier], ["cause", d.cause || "-"], ["suggested fix", d.fix || "-"], ["trust", d.trust || "-"]];
  if (d.null_over_value) rows.push(["flag", "null over a value"]);
  if (d.row_presence_tie) rows.push(["flag", "row present in half of the families"]);
  if (d.trust === "human") rows.push(["a person's value", show(d.value)]);
  if (d.cited.length) rows.push(["cited pages", d.cited.join(", ")]);
  for (const [k, v] of rows) { facts.appendChild(el("dt", k)); facts.appendChild(el("dd", v)); }
  const dec = $("decided");
  dec.className = d.decided ? "on" : "";
  dec.textContent = d.decided ? `decided (decisions.jsonl line ${d.decided.line}): ${d.decided.action}` +
    (d.decided.value !== undefined ? " " + show(d.decided.value) : "") +
    (d.decided.candidate !== undefined ? " candidate " + (d.decided.candidate + 1) : "") +
    (d.decided.system ? " from " + d.decided.system : "") + (d.decided.box ? " with a box" : "") : "";
  renderCandidates(d);
  renderVotes(d);
  $("reject").disabled = d.kind !== "extra_record";
  $("accept-box").disabled = d.kind === "extra_record";
  $("null").disabled = d.kind === "extra_record";
  $("edit-value").value = d.kind === "extra_record" && d.candidates.length ? JSON.stringify(d.candidates[0].value) : "";
  renderPage();
}

function chip(colour) {
  const c = el("span", null, "chip");
  c.style.background = colour || "#999";
  return c;
}

function renderCandidates(d) {
  const body = $("candidates").tBodies[0];
  body.replaceChildren();
  d.candidates.forEach((c, k) => {
    const tr = document.createElement("tr");
    tr.appendChild(el("td", k < 9 ? String(k + 1) : ""));
    tr.appendChild(el("td", show(c.value), "value"));
    const who = el("td");
    for (const s of c.systems) {
      who.appendChild(chip(d.colours[s]));
      who.appendChild(document.createTextNode(`${s} (${d.families[s] || "?"}) `));
    }
    tr.appendChild(who);
    tr.appendChild(el("td", c.weight === undefined || c.weight === null ? "" : String(c.weight)));
    const boxes = el("td");
    const pages = [...new Set(c.boxes.map((b) => b.page))];
    for (const p of pages) {
      const b = el("button", "p" + p);
      b.onclick = () => { st.page = p; renderPage(); };
      boxes.appendChild(b);
    }
    if (!pages.length) boxes.textContent = "none";
    tr.appendChild(boxes);
    body.appendChild(tr);
  });
}

function renderVotes(d) {
  const body = $("votes").tBodies[0];
  body.replaceChildren();
  for (const v of d.votes) {
    const tr = document.createElement("tr");
    const s = el("td");
    s.appendChild(chip(d.colours[v.system]));
    s.appendChild(document.createTextNode(v.system));
    tr.appendChild(s);
    tr.appendChild(el("td", v.family));
    const value = d.kind === "extra_record" ? (v.present ? show(v.row) : "(no such row)") : show(v.value);
    tr.appendChild(el("td", value + (v.failure ? "  (wrong type)" : ""), "value" + (v.failure ? " failure" : "")));
    body.appendChild(tr);
  }
}

// --- the page and its boxes ---------------------------------------------------------------------

function renderPage() {
  const d = st.item;
  $("page").src = url(`/page/${encodeURIComponent(d.doc)}/${st.page}.png`);
  $("page-label").textContent = `page ${st.page} of ${d.pages}`;
  const links = $("page-links");
  links.replaceChildren();
  const pages = new Set(d.cited);
  for (const c of d.candidates) for (const b of c.boxes) pages.add(b.page);
  for (const p of [...pages].sort((a, b) => a - b)) {
    const b = el("button", (p === st.page ? "\u2022 " : "") + "p" + p, "cited");
    b.title = "a cited page";
    b.onclick = () => { st.page = p; renderPage(); };
    links.appendChild(b);
  }
  drawBoxes();
}

function rect(box, colour, cls) {
  const r = document.createElementNS(SVG, "rect");
  r.setAttribute("x", box[0]);
  r.setAttribute("y", box[1]);
  r.setAttribute("width", box[2] - box[0]);
  r.setAttribute("height", box[3] - box[1]);
  if (colour) r.setAttribute("stroke", colour);
  if (cls) r.setAttribute("class", cls);
  return r;
}

function drawBoxes() {
  const svg = $("overlay");
  svg.replaceChildren();
  const d = st.item;
  d.candidates.forEach((c, k) => {
    for (const b of c.boxes) {
      if (b.page !== st.page || !b.box) continue;
      const r = rect(b.box, d.colours[c.source] || "#d62728");
      if (k > 0) r.setAttribute("stroke-dasharray", "5 3");   // the proposal solid, the other candidates dashed
      const t = document.createElementNS(SVG, "title");
      t.textContent = `candidate ${k + 1}: ${show(c.value)} (box cited by ${c.source})`;
      r.appendChild(t);
      svg.appendChild(r);
    }
  });
  if (st.drawn && st.drawn.page === st.page) svg.appendChild(rect(st.drawn.box, null, "drawn"));
  $("drawn").textContent = st.drawn
    ? `drawn box on page ${st.drawn.page}: [${st.drawn.box.join(", ")}] (it goes with the next accept, edit or box)`
    : "drag on the page to draw a box";
}

function pointAt(ev) {
  const r = $("overlay").getBoundingClientRect();
  const clamp = (v) => Math.min(1, Math.max(0, v));
  return [clamp((ev.clientX - r.left) / r.width), clamp((ev.clientY - r.top) / r.height)];
}

let dragFrom = null;

function dragBox(a, b) {
  const r6 = (v) => Math.round(v * 1e6) / 1e6;
  return [r6(Math.min(a[0], b[0])), r6(Math.min(a[1], b[1])), r6(Math.max(a[0], b[0])), r6(Math.max(a[1], b[1]))];
}

$("overlay").addEventListener("mousedown", (ev) => {
  if (!st.item) return;
  if (document.activeElement) document.activeElement.blur();
  dragFrom = pointAt(ev);
  ev.preventDefault();
});
window.addEventListener("mousemove", (ev) => {
  if (!dragFrom) return;
  st.drawn = {page: st.page, box: dragBox(dragFrom, pointAt(ev))};
  drawBoxes();
});
window.addEventListener("mouseup", (ev) => {
  if (!dragFrom) return;
  const box = dragBox(dragFrom, pointAt(ev));
  dragFrom = null;
  st.drawn = box[2] - box[0] > 0.002 && box[3] - box[1] > 0.002 ? {page: st.page, box: box} : null;
  drawBoxes();
});

// --- decisions ----------------------------------------------------------------------------------

async function decide(body) {
  const d = st.item;
  if (!d) return;
  if (d.decided) { say(`${d.id} is already decided (line ${d.decided.line}); gtkit adjudicate takes one decision per cell`, "error"); return; }
  const sent = Object.assign({item: d.i}, body);
  // a person's value is replaced only by naming it: the value shown here (the server refuses it, 409, when the
  // cell changed since)
  if (d.trust === "human") sent.supersedes = d.value;
  const r = await fetch("/api/decide", {
    method: "POST", headers: {"Content-Type": "application/json", "X-Gtkit-Token": TOKEN},
    body: JSON.stringify(sent),
  });
  const answer = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) { say(answer.error || r.statusText, "error"); return; }
  st.decided[d.i] = true;
  st.outcomes[d.i] = answer.outcome;
  if (document.activeElement) document.activeElement.blur();   // keys act on the next item at once
  say(`saved: ${d.id} ${body.action} (decisions.jsonl line ${answer.line}); ${answer.left} left`, "ok");
  await open(firstUndecided(st.pos));
}

function withBox(body) {
  if (st.drawn) body.box = st.drawn;
  return body;
}

function acceptCandidate(k) {
  const d = st.item;
  if (!d || k >= d.candidates.length) return;
  if (d.kind === "extra_record") decide({action: "accept", system: d.candidates[k].system});
  else if (d.kind === "cell" || d.kind === "truth") decide(withBox({action: "accept", candidate: k}));
  else say("a box to draw has one value: draw its box and press a", "error");
}

function acceptBox() {
  const d = st.item;
  if (!d || d.kind === "extra_record") return;
  if (st.mode === "any" && !st.drawn) { acceptCandidate(0); return; }   // a: confirm the cell as it is
  if (d.kind === "cell" && !d.decided && d.trust === "pending") {
    say("settle the value first: accept a candidate (1-9) or edit it; a drawn box goes with it", "error");
    return;
  }
  decide(st.drawn ? {action: "box", box: st.drawn} : {action: "box", accept_box: true});
}

function editValue() {
  const text = $("edit-value").value;
  if (!st.item) return;
  decide(st.item.kind === "extra_record" ? {action: "edit", text: text} : withBox({action: "edit", text: text}));
}

$("edit-form").addEventListener("submit", (ev) => { ev.preventDefault(); editValue(); });
$("edit-value").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); editValue(); }
  if (ev.key === "Escape") $("edit-value").blur();
});
$("null").onclick = () => decide({action: "null"});
$("accept-box").onclick = acceptBox;
$("reject").onclick = () => decide({action: "reject"});
$("apply").onclick = async () => {
  if (!window.confirm("Apply every decision so far to the dataset (gtkit adjudicate)?")) return;
  const r = await fetch("/api/apply", {method: "POST", headers: {"X-Gtkit-Token": TOKEN}});
  const answer = await r.json().catch(() => ({error: r.statusText}));
  if (!r.ok) { say(answer.error || r.statusText, "error"); return; }
  window.location.reload();
};
$("clear-box").onclick = () => { st.drawn = null; drawBoxes(); };
$("prev").onclick = () => open(st.pos - 1);
$("next").onclick = () => open(st.pos + 1);
$("skip").onclick = () => open(firstUndecided(st.pos + 1));
$("page-prev").onclick = () => { if (st.item && st.page > 1) { st.page--; renderPage(); } };
$("page-next").onclick = () => { if (st.item && st.page < st.item.pages) { st.page++; renderPage(); } };
$("filter-field").onchange = () => { applyFilter(); open(st.pos); };
$("filter-cause").onchange = () => { applyFilter(); open(st.pos); };

document.addEventListener("keydown", (ev) => {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (tag === "textarea" || tag === "input" || tag === "select" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const k = ev.key;
  if (k >= "1" && k <= "9") acceptCandidate(Number(k) - 1);
  else if (k === "e") { ev.preventDefault(); $("edit-value").focus(); }
  else if (k === "n" && st.item && st.item.kind !== "extra_record") decide({action: "null"});
  else if (k === "a") acceptBox();
  else if (k === "r" && st.item && st.item.kind === "extra_record") decide({action: "reject"});
  else if (k === "j" || k === "ArrowRight") open(st.pos + 1);
  else if (k === "k" || k === "ArrowLeft") open(st.pos - 1);
  else if (k === "s") open(firstUndecided(st.pos + 1));
  else if (k === "[") $("page-prev").click();
  else if (k === "]") $("page-next").click();
  else if (k === "Escape") { st.drawn = null; drawBoxes(); }
  else return;
  ev.preventDefault();
});

// --- start: the list, then the first undecided item ---------------------------------------------

(async function start() {
  try {
    const s = await getJSON("/api/state");
    st.items = s.items;
    st.decided = s.decided;
    st.outcomes = s.outcomes;
    st.mode = s.mode;
    if (st.mode === "any") {
      $("accept-box").textContent = "confirm, or the drawn box (a)";
      $("reject").hidden = true;
      KIND_LABELS.truth = "cell";
    }
    fillFilter($("filter-field"), [...new Set(s.items.map((it) => it[3]))].sort());
    fillFilter($("filter-cause"), [...new Set(s.items.map((it) => it[4] || it[1]))].sort(),
      (c) => KIND_LABELS[c] || c);
    applyFilter();
    say(`decisions go to ${s.file} as ${s.who}`);
    await open(st.pos);
  } catch (e) {
    say("cannot load the review: " + e.message, "error");
  }
})();
