// The answer first: Markdown rendered safely, citation markers placed from the `citations` data,
// notes (degraded, stopped, revised), the sources listed once, and the source card they open.
import { passageFor, refName } from "./events.js";
import { placeMarkers, renderMarkdown } from "./markdown.js";
import { el } from "./timeline.js";

let opener = null; // the button that opened the source card, focused again on close

const sourceName = (c) => (c.origin === "web" ? c.label : refName(c));

function citeButton(citation, open) {
  const button = el("button", {
    className: "cite",
    text: String(citation.marker),
    attrs: { type: "button", "data-marker": citation.marker, "aria-label": `source ${citation.marker}: ${citation.title}` },
  });
  button.addEventListener("click", () => open(citation, button));
  return button;
}

// Show the text streamed so far (no markers yet: citations come with the final answer).
export function renderStreaming(turn, text) {
  const box = turn.querySelector(".answer-text");
  box.setAttribute("aria-busy", "true");
  renderMarkdown(box, text, () => document.createTextNode(""));
}

// Render the final answer {answer, citations, notes, revised, abstained} of a turn.
export function renderFinal(turn, final, open) {
  const box = turn.querySelector(".answer-text");
  const byMarker = new Map(final.citations.map((c) => [c.marker, c]));
  const marker = (m) => (byMarker.has(m) ? citeButton(byMarker.get(m), open) : document.createTextNode(""));
  const cited = new Set(final.citations.map((c) => c.url).filter(Boolean));
  renderMarkdown(box, placeMarkers(final.answer, final.citations), marker, cited);
  box.removeAttribute("aria-busy");
  box.classList.toggle("revised", Boolean(final.revised));
  const notes = [
    final.revised ? "Revised after checking support: this replaces the first draft." : "",
    final.abstained ? "The documents do not support an answer." : "",
    ...(final.notes || []),
  ].filter(Boolean);
  turn.querySelector(".answer-notes").replaceChildren(...notes.map((n) => el("li", { text: n })));
  renderSources(turn.querySelector(".sources"), final.citations, open);
}

function renderSources(section, citations, open) {
  const items = citations.map((c) =>
    el("li", {}, [citeButton(c, open), el("span", { className: "source-title", text: c.title }), el("span", { className: "source-file", text: sourceName(c) })]),
  );
  section.replaceChildren(...(items.length ? [el("h3", { text: "Sources" }), el("ol", {}, items)] : []));
}

// Open the source card: title, file (tail only) or link, and the cited strip in its passage.
export function showSource(citation, events, from) {
  const card = document.getElementById("source-card");
  document.getElementById("card-title").textContent = `${citation.marker}. ${citation.title}`;
  const where = document.getElementById("card-source");
  if (citation.url && /^https?:\/\//i.test(citation.url)) {
    const link = el("a", { text: citation.url, attrs: { rel: "noopener noreferrer", target: "_blank" } });
    link.href = citation.url;
    where.replaceChildren(document.createTextNode("web: "), link);
  } else {
    where.replaceChildren(document.createTextNode(sourceName(citation)));
  }
  const parts = passageFor(citation, events).map(({ text, cited }) => (cited ? el("mark", { text }) : document.createTextNode(text)));
  const passage = document.getElementById("card-text");
  passage.replaceChildren(...parts.flatMap((part, i) => (i ? [document.createTextNode(" "), part] : [part])));
  card.hidden = false;
  opener = from || null;
  document.getElementById("card-title").focus();
  passage.querySelector("mark")?.scrollIntoView({ block: "nearest" });
}

export function closeSource() {
  const card = document.getElementById("source-card");
  if (card.hidden) return;
  card.hidden = true;
  opener?.focus();
}
