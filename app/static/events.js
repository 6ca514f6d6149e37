// Plain-language descriptions of the run's typed events (graphs/events.py), one per type.
// Pure functions, no DOM: the page renders them and tests run them in node or a browser.

// Show where a passage comes from without the ingest machine's directories:
// "/home/me/docs/harrow.txt#0" -> "harrow.txt#0"; URLs are kept whole.
export function tail(source) {
  const text = String(source ?? "");
  if (/^https?:\/\//i.test(text)) return text;
  const parts = text.split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : text;
}

// A passage's short name: the tail of its label (file#position), or the URL. The label is
// built once, by the graph (`source_label` in graphs/events.py).
export function refName(ref) {
  return ref ? tail(ref.label) : "";
}

export const num = (x, digits = 2) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–");
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const clip = (text, n = 160) => {
  const s = String(text ?? "").replace(/\s+/g, " ").trim();
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};
const line = (text, extra = {}) => ({ text, ...extra });

// How a follow-up became standalone (graphs/events.py `Condensed`), in plain words.
const CONDENSED = {
  model: "the rewriter model",
  resolved: "rule (its pronoun replaced by what it refers to)",
  template: "template (the previous question as context)",
  kept: "nothing (it already names its topic)",
  off: "nothing (condensing is off)",
};

// Each describer returns {title, facts, details}: the title and its decisive facts make the one
// line shown per step; details (a list of {text, kind?, url?}) open one click deeper.
const DESCRIBE = {
  question: (e) => ({
    title: "Question",
    facts: e.standalone && e.standalone !== e.question ? `read as “${e.standalone}”${e.referent ? ` (${e.referent})` : ""}` : "as asked",
    details: e.condensed && e.condensed !== "first turn" ? [line(`follow-up made standalone by: ${CONDENSED[e.condensed] || e.condensed}`)] : [],
  }),
  route: (e) => ({
    title: `Route ${e.route}`,
    facts: e.reason,
    details: [line(Object.entries(e.probabilities).map(([k, v]) => `${k} ${num(v)}`).join(" · "))],
  }),
  retrieval: (e) => ({
    title: e.step ? `Retrieved again (step ${e.step})` : "Retrieved",
    facts: `${plural(e.found, "passage")}, ${e.new} new`,
    details: [line(`query: ${e.query}`), ...e.passages.map((p) => line(`${p.title} — ${refName(p)}`))],
  }),
  grades: (e) => {
    const best = e.scores.length ? Math.max(...e.scores.map((s) => s.score)) : null;
    return {
      title: "Graded",
      facts: best === null ? "nothing new to grade" : `${plural(e.scores.length, "passage")}, best ${num(best)}`,
      details: e.scores.map((s) => line(`${num(s.score)}  ${s.title} — ${refName(s)}`)),
    };
  },
  crag_action: (e) => ({
    title: `CRAG: ${e.action}`,
    facts: `best ${num(e.best)} vs threshold ${num(e.upper)}`,
    details: [line(`${e.above_upper} of ${e.graded} at or above ${num(e.upper)}; below ${num(e.lower)} counts as wrong`)],
  }),
  strips: (e) => ({
    title: "Refined",
    facts: `kept ${e.kept} of ${e.kept + e.dropped} strips`,
    details: e.strips.map((s) =>
      line(`${s.kept ? "kept" : "dropped"} ${num(s.score)}  ${clip(s.text, 240)}  (${tail(s.label)})`, { kind: s.kept ? "kept" : "dropped" }),
    ),
  }),
  rewrite: (e) => ({
    title: e.purpose === "web" ? "Query for the web" : "Query for another retrieval",
    facts: `“${e.query}”`,
    details: e.note ? [line(e.note)] : [],
  }),
  web_results: (e) => ({
    title: `Web search (${e.backend})`,
    facts: `${plural(e.results.length, "result")}${e.degraded ? ` — ${e.degraded}` : ""}`,
    details: [line(`query: ${e.query}`), ...e.results.map((r) => line(r.title || r.url || "", { url: r.url }))],
  }),
  ircot_step: (e) => ({
    title: `Reasoning step ${e.step}`,
    facts: (e.dropped ? "dropped, not in the kept strips: " : "") + (e.sentence || "(no sentence)"),
    details: e.answer ? [line(`answer found: ${e.answer}`)] : [],
  }),
  critique: (e) => {
    const best = e.candidates[0];
    return {
      title: "Checked support",
      facts: best
        ? `best of ${plural(e.candidates.length, "candidate")}: support ${best.support}, score ${num(best.score)}`
        : "no candidates",
      details: e.candidates.map((c) =>
        line(`score ${num(c.score)} · relevant ${num(c.is_rel)} · supported ${num(c.is_sup)} (${c.support}) · useful ${num(c.is_use)}  ${clip(c.text, 120)}`),
      ),
    };
  },
  retry: (e) => ({ title: `Retry ${e.attempt}: ${e.action}`, facts: e.why, details: [] }),
  cap_reached: (e) => ({ title: "Stopped at a limit", facts: e.reason, details: [line(`${e.cap} = ${e.limit}`)] }),
  fallback: (e) => ({
    title: `Fallback: ${e.judge}`,
    facts: e.degraded || `used ${typeof e.used === "string" ? e.used : JSON.stringify(e.used)}`,
    details: [line(`problem: ${e.problem}`)],
  }),
  answer: (e) => ({
    title: "Answered",
    facts: [
      e.route ? `route ${e.route}` : "",
      plural(e.citations.length, "source"),
      e.revised ? "revised after checking support" : "",
      e.abstained ? "not supported by the documents" : "",
    ].filter(Boolean).join(" · "),
    details: e.notes.map((n) => line(n)),
  }),
};

export const KNOWN_TYPES = Object.keys(DESCRIBE);

// Describe one event; an unknown or malformed one still gets a line (its type), never an error.
export function describeEvent(event) {
  const describe = DESCRIBE[event?.type];
  if (describe) {
    try {
      const { title, facts, details } = describe(event);
      return { title: String(title), facts: String(facts ?? ""), details };
    } catch {
      // a shape this page does not know: fall through to the generic line
    }
  }
  return { title: String(event?.type || "event"), facts: "", details: [] };
}

// The cited strip's passage, rebuilt from the turn's `strips` events (every strip scored, kept
// or not): the strips of the citation's passage (`passage_hash`), in order, the cited one
// (`strip_hash`) marked: [{text, cited}]. Falls back to the cited strip alone when the events
// do not hold its passage.
export function passageFor(citation, events) {
  const byHash = new Map();
  for (const event of events || []) {
    if (event?.type !== "strips") continue;
    for (const strip of event.strips) if (strip.passage_hash === citation.passage_hash) byHash.set(strip.hash, strip.text);
  }
  if (!byHash.has(citation.strip_hash)) return [{ text: citation.text, cited: true }];
  return [...byHash].map(([hash, text]) => (hash === citation.strip_hash ? { text: citation.text, cited: true } : { text, cited: false }));
}
