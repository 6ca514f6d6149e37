// The "How I answered" timeline: one line per step (its time, title and decisive facts),
// details one click deeper. Everything from documents, the web or the model goes into the page
// through textContent (never parsed as HTML), so markup in a passage stays inert text.
import { describeEvent } from "./events.js";

export function el(tag, { className, text, attrs } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) if (child) node.append(child);
  return node;
}

const seconds = (s) => (typeof s === "number" ? `${s.toFixed(2)} s` : "");

function detailItem({ text, kind, url }) {
  const item = el("li", { className: kind || "", text: url && /^https?:\/\//i.test(url) ? null : text });
  if (url && /^https?:\/\//i.test(url)) {
    const link = el("a", { text: text || url, attrs: { rel: "noopener noreferrer", target: "_blank" } });
    link.href = url;
    item.append(link);
  }
  return item;
}

// One step: a line (time, title, facts); with details, the line is a toggle that opens them.
export function renderStep(event, at) {
  const { title, facts, details } = describeEvent(event);
  const parts = [
    el("span", { className: "step-time", text: seconds(at) }),
    el("span", { className: "step-title", text: title }),
    facts ? el("span", { className: "step-facts", text: facts }) : null,
  ];
  const attrs = { "data-type": event?.type || "event" };
  if (!details.length) return el("li", { className: "step", attrs }, [el("div", { className: "step-line" }, parts)]);
  return el("li", { className: "step", attrs }, [
    el("details", {}, [
      el("summary", { className: "step-line" }, parts),
      el("ul", { className: "step-details" }, details.map(detailItem)),
    ]),
  ]);
}

// The collapsed section that holds a turn's steps; its summary says what is happening now.
export function createHow() {
  return el("details", { className: "how" }, [
    el("summary", {}, [
      el("span", { className: "how-title", text: "How I answered" }),
      el("span", { className: "how-live" }),
    ]),
    el("ol", { className: "timeline" }),
  ]);
}

export function addStep(how, event, at) {
  how.querySelector(".timeline").append(renderStep(event, at));
  const count = how.querySelectorAll(".step").length;
  const { title } = describeEvent(event);
  how.querySelector(".how-live").textContent = `${count} step${count === 1 ? "" : "s"} · ${title}`;
}

export function finishHow(how, elapsed) {
  const count = how.querySelectorAll(".step").length;
  const time = typeof elapsed === "number" ? ` in ${seconds(elapsed)}` : "";
  how.querySelector(".how-live").textContent = `${count} step${count === 1 ? "" : "s"}${time}`;
  how.hidden = count === 0;
}
