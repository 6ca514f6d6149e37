// The chat page: threads, questions, live steps, streamed answers with citations, uploads.
import { Api, AuthError } from "./api.js";
import { el, renderAnswer, renderSources, renderStep, showCitation } from "./timeline.js";

const api = new Api("");
const $ = (id) => document.getElementById(id);
let currentThread = null;
let busy = false;
// Timings seen by the browser, per run: read by the benchmark and the tests.
window.acragTimings = [];

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function handleError(error) {
  if (error instanceof AuthError) {
    $("token-form").hidden = false;
    setStatus("this server needs a bearer token", true);
  } else {
    setStatus(String(error.message || error), true);
  }
}

function messageText(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p?.text || "")).join("");
  return "";
}

function newTurn(question) {
  const answer = el("p", { className: "answer-text" });
  const turn = el("li", { className: "turn" }, [
    el("p", { className: "question", text: question }),
    el("ol", { className: "timeline" }),
    answer,
    el("ol", { className: "sources" }),
  ]);
  $("turns").append(turn);
  return turn;
}

function finishTurn(turn, text, citations) {
  const answer = turn.querySelector(".answer-text");
  answer.classList.remove("streaming");
  renderAnswer(answer, text, citations, showCitation);
  renderSources(turn.querySelector(".sources"), citations, showCitation);
}

async function refreshThreads() {
  const threads = await api.searchThreads();
  const items = threads.map((thread) => {
    const title = thread.metadata?.title || thread.thread_id;
    const button = el("button", { text: title, attrs: { type: "button", title, "data-thread-id": thread.thread_id } });
    button.addEventListener("click", () => openThread(thread.thread_id).catch(handleError));
    const item = el("li", { className: thread.thread_id === currentThread ? "current" : "" }, [button]);
    return item;
  });
  $("thread-list").replaceChildren(...items);
}

async function openThread(threadId) {
  currentThread = threadId;
  $("turns").replaceChildren();
  const state = await api.getState(threadId);
  const values = state.values || {};
  const messages = values.messages || [];
  let turn = null;
  for (const message of messages) {
    if (message.type === "human") turn = newTurn(messageText(message));
    else if (message.type === "ai" && turn) finishTurn(turn, messageText(message), []);
  }
  if (turn && values.citations) {
    for (const event of values.events || []) turn.querySelector(".timeline").append(renderStep(event));
    finishTurn(turn, values.answer || messageText(messages.at(-1)), values.citations);
  }
  await refreshThreads();
  setStatus(`thread ${threadId.slice(0, 8)}: ${messages.length} message(s)`);
}

async function ask(question) {
  busy = true;
  $("ask").disabled = true;
  // firstToken: first streamed answer token; firstAnswer: first answer text of any kind (a
  // graph that critiques before answering sends its answer whole, not token by token).
  const timing = { question, start: performance.now(), firstStep: null, firstToken: null, firstAnswer: null, end: null };
  window.acragTimings.push(timing);
  try {
    if (!currentThread) {
      const thread = await api.createThread({ title: question.slice(0, 80) });
      currentThread = thread.thread_id;
      refreshThreads().catch(handleError);
    }
    const turn = newTurn(question);
    const timeline = turn.querySelector(".timeline");
    const answer = turn.querySelector(".answer-text");
    answer.classList.add("streaming");
    let streamed = "";
    setStatus("thinking…");
    const input = { question, messages: [{ type: "human", content: question }] };
    for await (const { event: name, data } of api.streamRun(currentThread, input)) {
      const event = name.split("|")[0]; // a subgraph's events are named "mode|namespace"
      if (event === "custom" && data && typeof data === "object") {
        timing.firstStep ??= performance.now() - timing.start;
        timeline.append(renderStep(data));
        turn.scrollIntoView({ block: "end" });
        setStatus(`step: ${data.type}`);
      } else if (event === "messages" && Array.isArray(data)) {
        const [chunk] = data;
        const text = messageText(chunk);
        if (String(chunk?.type || "").endsWith("Chunk") && text) {
          timing.firstToken ??= performance.now() - timing.start;
          timing.firstAnswer ??= timing.firstToken;
          streamed += text;
          answer.textContent = streamed;
        } else if (chunk?.type === "ai" && !streamed && text) {
          timing.firstAnswer ??= performance.now() - timing.start;
          streamed = text;
          answer.textContent = streamed;
        }
      } else if (event === "error") {
        turn.append(el("p", { className: "error-text", text: `error: ${data?.message || JSON.stringify(data)}` }));
      }
    }
    timing.end = performance.now() - timing.start;
    const values = (await api.getState(currentThread)).values || {};
    finishTurn(turn, values.answer || streamed, values.citations || []);
    setStatus(`answered in ${(timing.end / 1000).toFixed(1)} s`);
    turn.dataset.done = "true";
    refreshThreads().catch(handleError);
  } finally {
    busy = false;
    $("ask").disabled = false;
  }
}

async function uploadFiles() {
  const files = Array.from($("files").files || []);
  if (!files.length) return setStatus("choose files to upload first", true);
  const log = $("upload-log");
  const bar = $("upload-progress");
  log.replaceChildren();
  bar.value = 0;
  await api.upload(files, (p) => {
    if (p.phase === "upload") bar.value = p.percent / 2;
    else if (p.phase === "indexing") log.append(el("li", { text: `indexing ${p.file} (${p.index}/${p.total})…` }));
    else if (p.phase === "indexed" || p.phase === "error") {
      bar.value = 50 + (50 * p.index) / p.total;
      log.append(el("li", { text: p.phase === "error" ? `${p.file}: failed: ${p.message}` : `${p.file}: ${p.summary}` }));
    } else if (p.phase === "done") {
      bar.value = 100;
      setStatus(`indexed ${p.total} file(s)`);
    }
  });
}

function start() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) {
    api.setToken(hash.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const question = $("question").value.trim();
    if (!question || busy) return;
    $("question").value = "";
    ask(question).catch(handleError);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("new-thread").addEventListener("click", () => {
    currentThread = null;
    $("turns").replaceChildren();
    refreshThreads().catch(handleError);
    setStatus("new chat");
  });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    api.setToken($("token").value.trim());
    $("token-form").hidden = true;
    refreshThreads().then(() => setStatus("ready")).catch(handleError);
  });
  $("upload-button").addEventListener("click", () => uploadFiles().catch(handleError));
  $("close-citation").addEventListener("click", () => { $("citation-panel").hidden = true; });
  refreshThreads().catch(handleError);
  document.body.dataset.ready = "true";
}

start();
