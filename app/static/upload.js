// Upload and index documents, showing each file's own outcome: indexed, unchanged, or skipped
// (or failed) with the server's reason. Counts come from those outcomes, never from the total.
import { el } from "./timeline.js";

const OUTCOMES = ["indexed", "unchanged", "skipped", "error"];
const WORDS = { indexed: "indexed", unchanged: "unchanged", skipped: "skipped", error: "failed" };

// One progress line of the server -> the file's outcome, or null for other phases.
export function outcomeOf(line) {
  const outcome = line.outcome || line.phase;
  if (!OUTCOMES.includes(outcome) || !line.file) return null;
  return { file: line.file, outcome, reason: line.reason || line.message || line.summary || "" };
}

export function summarize(outcomes) {
  const counts = OUTCOMES.map((o) => [o, outcomes.filter((x) => x.outcome === o).length]);
  const parts = counts.filter(([, n]) => n).map(([o, n]) => `${n} ${WORDS[o]}`);
  return parts.length ? `${parts.join(", ")} (of ${outcomes.length} file${outcomes.length === 1 ? "" : "s"})` : "no files indexed";
}

function outcomeItem({ file, outcome, reason }) {
  return el("li", { className: `outcome-${outcome}` }, [
    el("span", { className: "file", text: file }),
    el("span", { className: "outcome", text: WORDS[outcome] }),
    reason ? el("span", { className: "reason", text: reason }) : null,
  ]);
}

// Upload the chosen files with the API; report through setStatus(text, isError).
export async function uploadFiles(api, setStatus) {
  const input = document.getElementById("files");
  const files = Array.from(input.files || []);
  if (!files.length) return setStatus("choose files to upload first", true);
  const log = document.getElementById("upload-log");
  const bar = document.getElementById("upload-progress");
  const outcomes = [];
  log.replaceChildren();
  bar.value = 0;
  bar.hidden = false;
  setStatus(`uploading ${files.length} file(s)…`);
  await api.upload(files, (line) => {
    const outcome = outcomeOf(line);
    if (line.phase === "upload") bar.value = line.percent / 2;
    else if (line.phase === "indexing") setStatus(`indexing ${line.file} (${line.index}/${line.total})…`);
    else if (outcome) {
      outcomes.push(outcome);
      log.append(outcomeItem(outcome));
      if (line.total) bar.value = 50 + (50 * outcomes.length) / line.total;
    } else if (line.phase === "done") bar.value = 100;
  });
  bar.value = 100;
  setStatus(summarize(outcomes), outcomes.some((o) => o.outcome === "error"));
  input.value = "";
}
