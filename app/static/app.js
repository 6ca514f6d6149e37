// The chat page: threads, questions, live steps, streamed answers with sources, stop, uploads.
import { closeSource, renderFinal, renderStreaming, showSource } from "./answer.js";
import { Api, AuthError } from "./api.js";
import { messageText, turnsFromStates } from "./history.js";
import { addStep, createHow, el, finishHow } from "./timeline.js";
import { uploadFiles } from "./upload.js";

const api = new Api("");
const $ = (id) => document.getElementById(id);
const turnEvents = new WeakMap(); // turn element -> its events (the source card reads strips)
let currentThread = null;
let current = null; // the run in flight: {controller, runId, threadId, turn}
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

function setBusy(busy) {
  $("ask").hidden = busy;
  $("stop").hidden = !busy;
  document.body.dataset.busy = String(busy);
}

const openerFor = (turn) => (citation, button) => showSource(citation, turnEvents.get(turn), button);

function newTurn(question) {
  const turn = el("li", { className: "turn" }, [
    el("h2", { className: "question", text: question }),
    el("div", { className: "answer-text" }),
    el("ul", { className: "answer-notes" }),
    el("section", { className: "sources", attrs: { "aria-label": "Sources" } }),
  ]);
  turn.insertBefore(createHow(), turn.querySelector(".answer-text"));
  turnEvents.set(turn, []);
  $("turns").append(turn);
  return turn;
}

function addNote(turn, text, className = "") {
  turn.querySelector(".answer-notes").append(el("li", { className, text }));
}

async function refreshThreads() {
  const threads = await api.searchThreads();
  const items = threads.map((thread) => {
    const title = thread.metadata?.title || thread.thread_id;
    const attrs = { type: "button", title, "data-thread-id": thread.thread_id };
    if (thread.thread_id === currentThread) attrs["aria-current"] = "true";
    const button = el("button", { text: title, attrs });
    button.addEventListener("click", () => openThread(thread.thread_id).catch(handleError));
    return el("li", {}, [button]);
  });
  $("thread-list").replaceChildren(...items);
}

function showTurn({ question, events, final }) {
  const turn = newTurn(question);
  const how = turn.querySelector(".how");
  turnEvents.set(turn, events);
  for (const event of events) addStep(how, event, null);
  finishHow(how, null);
  if (final) renderFinal(turn, final, openerFor(turn));
  else addNote(turn, "No answer: this run was stopped.");
  turn.dataset.done = "true";
}

async function openThread(threadId) {
  if (current) stop();
  setDrawer(false);
  currentThread = threadId;
  const [state, history] = await Promise.all([
    api.getState(threadId),
    api.getHistory(threadId).catch(() => []), // a server without history: the last turn's steps only
  ]);
  $("turns").replaceChildren();
  const turns = turnsFromStates(state, history);
  turns.forEach(showTurn);
  await refreshThreads();
  setStatus(`${turns.length} turn(s) in this chat`);
  $("question").focus();
}

// Handle one SSE frame of a run; returns the final answer event once it has arrived.
function onFrame(run, name, data) {
  const kind = name.split("|")[0]; // a subgraph's events are named "mode|namespace"
  const { turn, timing } = run;
  const elapsed = (performance.now() - timing.start) / 1000;
  if (kind === "metadata") run.runId = data?.run_id || null;
  else if (kind === "custom" && data && typeof data === "object") {
    timing.firstStep ??= elapsed * 1000;
    turnEvents.get(turn).push(data);
    addStep(turn.querySelector(".how"), data, elapsed);
    if (data.type === "answer") {
      run.final = data;
      timing.firstAnswer ??= elapsed * 1000;
      renderFinal(turn, data, openerFor(turn));
    }
  } else if (kind === "messages" && Array.isArray(data) && !run.final) {
    const [chunk] = data;
    const text = messageText(chunk);
    if (!String(chunk?.type || "").endsWith("Chunk") || !text) return;
    if (chunk.id !== run.streamId) [run.streamId, run.streamed] = [chunk.id, ""]; // a new candidate
    timing.firstToken ??= elapsed * 1000;
    timing.firstAnswer ??= timing.firstToken;
    run.streamed += text;
    renderStreaming(turn, run.streamed);
  } else if (kind === "error") {
    run.failed = true;
    addNote(turn, `error: ${data?.message || JSON.stringify(data)}`, "error-text");
  }
}

// After the stream: a server that sent no `answer` event still has the answer in its state.
async function finishRun(run) {
  const { turn, timing } = run;
  timing.end = performance.now() - timing.start;
  if (!run.final && !run.failed) {
    const last = turnsFromStates(await api.getState(run.threadId), []).at(-1);
    if (last?.final) renderFinal(turn, last.final, openerFor(turn));
  }
  finishHow(turn.querySelector(".how"), timing.end / 1000);
  turn.dataset.done = "true";
  setStatus(run.failed ? "the run failed" : `answered in ${(timing.end / 1000).toFixed(1)} s`, run.failed);
}

async function ask(question) {
  const timing = { question, start: performance.now(), firstStep: null, firstToken: null, firstAnswer: null, end: null };
  window.acragTimings.push(timing);
  const run = { controller: new AbortController(), runId: null, threadId: null, timing, streamed: "" };
  current = run;
  setBusy(true);
  try {
    if (!currentThread) {
      currentThread = (await api.createThread({ title: question.slice(0, 80) })).thread_id;
      refreshThreads().catch(handleError);
    }
    if (run.controller.signal.aborted) return; // stopped before the thread existed
    run.threadId = currentThread;
    run.turn = newTurn(question);
    setStatus("thinking…");
    const input = { question, messages: [{ type: "human", content: question }] };
    for await (const { event, data } of api.streamRun(run.threadId, input, run.controller.signal)) {
      onFrame(run, event, data);
    }
    await finishRun(run);
  } catch (error) {
    if (!run.controller.signal.aborted) throw error;
  } finally {
    if (current === run) {
      current = null;
      setBusy(false);
    }
  }
}

// Stop the run in flight: the page is usable at once; the server is told to cancel.
function stop() {
  const run = current;
  if (!run) return;
  current = null;
  run.controller.abort();
  setBusy(false);
  if (run.turn) {
    run.turn.querySelector(".answer-text").removeAttribute("aria-busy");
    addNote(run.turn, "Stopped before the answer was finished.", "stopped");
    finishHow(run.turn.querySelector(".how"), (performance.now() - run.timing.start) / 1000);
    run.turn.dataset.done = "stopped";
  }
  setStatus("stopped");
  $("question").focus();
  if (run.runId) {
    api.cancelRun(run.threadId, run.runId).catch((error) => setStatus(`stopped here; the server said: ${error.message}`, true));
  }
}

function setDrawer(open) {
  $("sidebar").classList.toggle("open", open);
  $("menu").setAttribute("aria-expanded", String(open));
}

function onKey(event) {
  if (event.key !== "Escape") return;
  if (!$("source-card").hidden) closeSource();
  else if ($("sidebar").classList.contains("open")) {
    setDrawer(false);
    $("menu").focus();
  } else if (current) stop();
}

function wireForms() {
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const question = $("question").value.trim();
    if (!question || current) return;
    $("question").value = "";
    ask(question).catch(handleError);
  });
  $("question").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("token-form").addEventListener("submit", (e) => {
    e.preventDefault();
    api.setToken($("token").value.trim());
    $("token-form").hidden = true;
    refreshThreads().then(() => setStatus("ready")).catch(handleError);
  });
}

function start() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("token")) {
    api.setToken(hash.get("token"));
    history.replaceState(null, "", location.pathname + location.search);
  }
  wireForms();
  $("stop").addEventListener("click", stop);
  $("new-thread").addEventListener("click", () => {
    if (current) stop();
    currentThread = null;
    $("turns").replaceChildren();
    setDrawer(false);
    refreshThreads().catch(handleError);
    setStatus("new chat");
    $("question").focus();
  });
  $("menu").addEventListener("click", () => setDrawer(!$("sidebar").classList.contains("open")));
  $("upload-button").addEventListener("click", () => uploadFiles(api, setStatus).catch(handleError));
  $("close-card").addEventListener("click", closeSource);
  document.addEventListener("keydown", onKey);
  refreshThreads().catch(handleError);
  document.body.dataset.ready = "true";
}

start();
