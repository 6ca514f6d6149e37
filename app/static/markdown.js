// A tiny, safe Markdown renderer for answers: paragraphs, headings, lists, quotes, code,
// **bold**, *italic*, `code` and [links](https://...) to the cited passages' URLs. It builds
// DOM nodes and sets only textContent and those hrefs, so raw HTML in an answer is shown as
// text, never parsed.
// Citation markers are placed from the answer's `citations` data (the answer text carries none).

const WORD = /[\p{L}\p{N}]{3,}/gu;
const words = (text) => new Set((String(text).toLowerCase().match(WORD) || []));

// Sentence ends in the text: [index just after the sentence, sentence text].
function sentences(text) {
  const found = [];
  const pattern = /[^.!?\n]+(?:[.!?]+|(?=\n)|$)/g;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    if (!match[0].trim()) {
      pattern.lastIndex += 1;
      continue;
    }
    found.push([match.index + match[0].length, match[0]]);
  }
  return found;
}

// Spans a marker must not split: Markdown links and bare URLs ("example.org" has a dot that
// looks like a sentence end). Returns [start, end] pairs.
const UNSPLIT = /\[[^\]\n]+\]\([^)\s]+\)|https?:\/\/[^\s<>()]+/gi;
function unsplit(text) {
  return [...text.matchAll(UNSPLIT)].map((m) => [m.index, m.index + m[0].length]);
}

// A sentence end moved past any link or URL it falls inside.
function outside(end, spans) {
  const span = spans.find(([start, stop]) => end > start && end < stop);
  return span ? span[1] : end;
}

// Insert each citation's marker after the sentence it supports best (word overlap with the
// cited strip), or after the last sentence when none overlaps; never inside a link or URL.
// Markers are written as \uE000n\uE001 (private-use brackets that only parseInline reads),
// so "[1]" typed by the model stays plain text.
export function placeMarkers(text, citations) {
  const clean = String(text ?? "").replace(/[\uE000\uE001]/g, "");
  const spans = unsplit(clean);
  const ends = sentences(clean).map(([end, s]) => [outside(end, spans), s]);
  if (!ends.length || !citations?.length) return clean;
  const at = new Map();
  for (const c of citations) {
    const cited = words(c.text);
    let best = ends.length - 1;
    let bestScore = 0;
    ends.forEach(([, s], i) => {
      const own = words(s);
      const score = own.size ? [...own].filter((w) => cited.has(w)).length / own.size : 0;
      if (score > bestScore) [best, bestScore] = [i, score];
    });
    const end = ends[best][0];
    at.set(end, [...(at.get(end) || []), c.marker]);
  }
  let out = "";
  let last = 0;
  for (const end of [...at.keys()].sort((a, b) => a - b)) {
    out += clean.slice(last, end) + at.get(end).map((m) => `\uE000${m}\uE001`).join("");
    last = end;
  }
  return out + clean.slice(last);
}

// Inline parse: returns nodes {type: text|strong|em|code|link|cite, text|children|href|marker}.
const INLINE = /(`[^`\n]+`)|(\*\*[^*\n]+\*\*|__[^_\n]+__)|(\*[^*\s][^*\n]*\*|_[^_\s][^_\n]*_)|(\[[^\]\n]+\]\([^)\s]+\))|(\uE000\d+\uE001)/;

// Only URLs the cited passages carry become links (`allowed`, a Set); a link the model or a
// document wrote with any other target stays plain text, so a label cannot disguise where it
// leads. Each link also shows its destination host.
const hostOf = (href) => {
  try {
    return new URL(href).host;
  } catch {
    return null;
  }
};

export function parseInline(text, allowed = new Set()) {
  const nodes = [];
  let rest = String(text);
  let match;
  while ((match = INLINE.exec(rest)) !== null) {
    if (match.index) nodes.push({ type: "text", text: rest.slice(0, match.index) });
    const [token] = match;
    if (match[1]) nodes.push({ type: "code", text: token.slice(1, -1) });
    else if (match[2]) nodes.push({ type: "strong", children: parseInline(token.slice(2, -2), allowed) });
    else if (match[3]) nodes.push({ type: "em", children: parseInline(token.slice(1, -1), allowed) });
    else if (match[4]) {
      const [, label, href] = /^\[([^\]]+)\]\(([^)]+)\)$/.exec(token);
      const host = /^https?:\/\//i.test(href) && allowed.has(href) ? hostOf(href) : null;
      nodes.push(host ? { type: "link", href, host, children: parseInline(label) } : { type: "text", text: token });
    } else nodes.push({ type: "cite", marker: Number(token.slice(1, -1)) });
    rest = rest.slice(match.index + token.length);
  }
  if (rest) nodes.push({ type: "text", text: rest });
  return nodes;
}

// Block parse: returns {type: p|h|ul|ol|quote|pre, ...}.
export function parseBlocks(text, allowed = new Set()) {
  const blocks = [];
  const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  const para = [];
  const flush = () => {
    if (para.length) blocks.push({ type: "p", children: parseInline(para.join("\n"), allowed) });
    para.length = 0;
  };
  while (i < lines.length) {
    const raw = lines[i];
    let m;
    if (/^\s*```/.test(raw)) {
      flush();
      const code = [];
      for (i += 1; i < lines.length && !/^\s*```/.test(lines[i]); i += 1) code.push(lines[i]);
      blocks.push({ type: "pre", text: code.join("\n") });
      i += 1;
    } else if ((m = /^(#{1,6})\s+(.*)$/.exec(raw))) {
      flush();
      blocks.push({ type: "h", level: m[1].length, children: parseInline(m[2], allowed) });
      i += 1;
    } else if (/^\s*([-*+]|\d+[.)])\s+/.test(raw)) {
      flush();
      const ordered = /^\s*\d/.test(raw);
      const items = [];
      for (; i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i]); i += 1) {
        items.push(parseInline(lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ""), allowed));
      }
      blocks.push({ type: ordered ? "ol" : "ul", items });
    } else if (/^\s*>/.test(raw)) {
      flush();
      const quote = [];
      for (; i < lines.length && /^\s*>/.test(lines[i]); i += 1) quote.push(lines[i].replace(/^\s*>\s?/, ""));
      blocks.push({ type: "quote", children: parseInline(quote.join("\n"), allowed) });
    } else if (!raw.trim()) {
      flush();
      i += 1;
    } else {
      para.push(raw);
      i += 1;
    }
  }
  flush();
  return blocks;
}

function inlineDom(nodes, onCite) {
  return nodes.flatMap((node) => {
    switch (node.type) {
      case "text":
        return document.createTextNode(node.text);
      case "code": {
        const code = document.createElement("code");
        code.textContent = node.text;
        return code;
      }
      case "link": {
        const a = document.createElement("a");
        a.href = node.href;
        a.rel = "noopener noreferrer";
        a.target = "_blank";
        a.append(...inlineDom(node.children, onCite));
        const host = document.createElement("span");
        host.className = "link-host";
        host.textContent = ` (${node.host})`;
        return [a, host];
      }
      case "cite":
        return onCite(node.marker);
      default: {
        const tag = document.createElement(node.type);
        tag.append(...inlineDom(node.children, onCite));
        return tag;
      }
    }
  });
}

function blockDom(block, onCite) {
  const make = (tag, children) => {
    const node = document.createElement(tag);
    node.append(...children);
    return node;
  };
  switch (block.type) {
    case "pre":
      return make("pre", [make("code", [document.createTextNode(block.text)])]);
    case "h": // answers sit under the turn's heading: their headings start two levels lower
      return make(`h${Math.min(6, block.level + 2)}`, inlineDom(block.children, onCite));
    case "ul":
    case "ol":
      return make(block.type, block.items.map((item) => make("li", inlineDom(item, onCite))));
    case "quote":
      return make("blockquote", [make("p", inlineDom(block.children, onCite))]);
    default:
      return make("p", inlineDom(block.children, onCite));
  }
}

// Render `text` into `container`; `onCite(marker)` returns the node for a citation marker;
// `allowed` holds the URLs that may become links (the cited passages' own).
export function renderMarkdown(container, text, onCite, allowed = new Set()) {
  container.replaceChildren(...parseBlocks(text, allowed).map((block) => blockDom(block, onCite)));
}
