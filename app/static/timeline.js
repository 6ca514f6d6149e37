// Step timeline and answer rendering. Everything from documents, the web or the model goes into
// the page through textContent (never parsed as HTML), so markup in a passage stays inert text.

export function el(tag, { className, text, attrs } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

const num = (x, digits = 2) => (typeof x === "number" ? x.toFixed(digits) : String(x ?? "?"));
const where = (p) => {
  if (!p) return "";
  if (typeof p === "string") return p;
  const base = p.url || p.source || p.from || p.title || "";
  return p.position === null || p.position === undefined ? base : `${base}#${p.position}`;
};
const clip = (text, n = 240) => {
  const s = String(text ?? "");
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

// Each describer returns [title, lines] for one event type.
const DESCRIBE = {
  question: (e) => ["Question", e.standalone && e.standalone !== e.question ? [`standalone: ${e.standalone}`] : []],
  route: (e) => [
    `Route ${e.route}`,
    [Object.entries(e.probabilities || {}).map(([k, v]) => `${k} ${num(v)}`).join(" · "), e.reason || ""].filter(Boolean),
  ],
  retrieval: (e) => [
    `Retrieved ${e.new ?? (e.passages || []).length} passage(s)${e.step ? ` (step ${e.step})` : ""}`,
    [`query: ${e.query ?? ""}`, ...(e.passages || []).map((p) => `${p.title || ""} — ${where(p)}`)],
  ],
  grades: (e) => [
    "Graded passages",
    (e.scores || []).map((s) => (typeof s === "number" ? num(s) : `${num(s.score)}  ${s.title || ""} — ${where(s)}`)),
  ],
  crag_action: (e) => [
    `CRAG action: ${e.action}`,
    [`${e.above_upper ?? "?"} of ${e.graded ?? "?"} above ${num(e.upper)} (lower ${num(e.lower)})`],
  ],
  strips: (e) => [
    `Strips: ${e.kept} kept, ${e.dropped} dropped`,
    (e.strips || []).map((s) => `${num(s.score)}  ${clip(s.text)}  (${where(s)})`),
  ],
  rewrite: (e) => [`Rewritten query: ${e.query}`, e.purpose ? [`for ${e.purpose}`] : []],
  web_results: (e) => [
    `Web results (${e.backend}${e.degraded ? ", degraded" : ""}): ${(e.results || []).length}`,
    (e.results || []).map((r) => `${r.title || ""} — ${r.url || ""}`),
  ],
  ircot_step: (e) => [`IRCoT step ${e.step}`, [e.sentence || "(no sentence)", e.answer ? `answer: ${e.answer}` : ""].filter(Boolean)],
  critique: (e) => [
    `Critique of ${(e.candidates || []).length} candidate(s)`,
    (e.candidates || []).map(
      (c) => `score ${num(c.score)} · IsRel ${num(c.is_rel)} · IsSup ${num(c.is_sup)} (${c.support ?? "?"}) · IsUse ${num(c.is_use)}  ${clip(c.text, 120)}`,
    ),
  ],
  retry: (e) => [`Retry ${e.attempt ?? ""}: ${e.action ?? ""}`, [e.why || e.reason || ""].filter(Boolean)],
  cap_reached: (e) => [`Cap reached: ${e.cap} (${e.limit ?? "?"})`, [e.reason || ""].filter(Boolean)],
  fallback: (e) => [`Fallback in ${e.judge ?? e.node}`, [`${e.problem ?? ""}`, `used: ${JSON.stringify(e.used)}`]],
  answer: (e) => [`Answer ready${e.route ? ` (route ${e.route})` : ""}`, e.stop_reason ? [e.stop_reason] : []],
};

export function renderStep(event) {
  const describe = DESCRIBE[event.type] || ((e) => [String(e.type || "event"), []]);
  let title;
  let lines;
  try {
    [title, lines] = describe(event);
  } catch {
    [title, lines] = [String(event.type), []];
  }
  const raw = el("details", {}, [el("summary", { text: "details" }), el("pre", { text: JSON.stringify(event, null, 2) })]);
  return el("li", { className: "step", attrs: { "data-type": event.type || "event" } }, [
    el("span", { className: "step-title", text: title }),
    lines.length ? el("ul", { className: "step-lines" }, lines.map((line) => el("li", { text: line }))) : null,
    raw,
  ]);
}

// Render answer text with [n] markers turned into buttons that open the cited strip.
export function renderAnswer(container, text, citations, onCite) {
  container.replaceChildren();
  const byMarker = new Map((citations || []).map((c) => [String(c.marker), c]));
  const parts = String(text ?? "").split(/(\[\d+\])/);
  for (const part of parts) {
    const match = /^\[(\d+)\]$/.exec(part);
    const citation = match && byMarker.get(match[1]);
    if (citation) {
      const button = el("button", { className: "cite", text: part, attrs: { type: "button", "data-marker": match[1] } });
      button.addEventListener("click", () => onCite(citation));
      container.append(button);
    } else {
      container.append(document.createTextNode(part));
    }
  }
}

export function renderSources(list, citations, onCite) {
  list.replaceChildren();
  for (const c of citations || []) {
    const button = el("button", { className: "cite", text: `[${c.marker}]`, attrs: { type: "button" } });
    button.addEventListener("click", () => onCite(c));
    list.append(el("li", {}, [button, document.createTextNode(` ${c.title || ""} — ${where(c)}`)]));
  }
}

export function showCitation(citation) {
  const panel = document.getElementById("citation-panel");
  document.getElementById("citation-title").textContent = `[${citation.marker}] ${citation.title || ""}`;
  const source = document.getElementById("citation-source");
  source.replaceChildren(document.createTextNode(`${citation.origin || "local"}: `));
  if (citation.url && /^https?:\/\//i.test(citation.url)) {
    const link = el("a", { text: citation.url, attrs: { target: "_blank", rel: "noopener noreferrer" } });
    link.href = citation.url;
    source.append(link);
  } else {
    source.append(document.createTextNode(where(citation)));
  }
  document.getElementById("citation-text").textContent = citation.text || "";
  panel.hidden = false;
}
