// The LangGraph run API client: threads, state, and runs streamed as Server-Sent Events.
// Works against `langgraph dev` and `acrag serve` alike (same paths and event format).

export const ASSISTANT_ID = "acrag";
export const STREAM_MODES = ["updates", "custom", "messages-tuple"];

export class AuthError extends Error {}
export class BusyError extends Error {}

export class Api {
  constructor(base = "") {
    this.base = base;
    this.token = sessionStorage.getItem("acrag-token") || "";
  }

  setToken(token) {
    this.token = token;
    sessionStorage.setItem("acrag-token", token);
  }

  headers(json = true) {
    const headers = {};
    if (json) headers["Content-Type"] = "application/json";
    if (this.token) headers["Authorization"] = `Bearer ${this.token}`;
    return headers;
  }

  async request(method, path, body, signal) {
    const response = await fetch(this.base + path, {
      method,
      headers: this.headers(body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (response.status === 401 || response.status === 403) throw new AuthError("token needed");
    if (response.status === 409) throw new BusyError("the thread is busy with another run");
    if (!response.ok) {
      const text = await response.text();
      throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
    }
    return response;
  }

  async json(method, path, body) {
    return (await this.request(method, path, body)).json();
  }

  createThread(metadata) {
    return this.json("POST", "/threads", { metadata });
  }

  searchThreads(limit = 50) {
    return this.json("POST", "/threads/search", { limit, offset: 0 });
  }

  getState(threadId) {
    return this.json("GET", `/threads/${encodeURIComponent(threadId)}/state`);
  }

  // Every turn's final state, newest first (older servers: every checkpoint; the page sorts it out).
  getHistory(threadId, limit = 500) {
    return this.json("POST", `/threads/${encodeURIComponent(threadId)}/history`, { limit });
  }

  cancelRun(threadId, runId) {
    const path = `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/cancel`;
    return this.request("POST", path, {});
  }

  // Start a run; a thread still busy with a run being stopped answers 409 for a moment.
  async startRun(path, body, signal) {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.request("POST", path, body, signal);
      } catch (error) {
        if (!(error instanceof BusyError) || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  // Yield {event, data} for each SSE frame of a run streamed on the thread.
  async *streamRun(threadId, input, signal) {
    // stream_subgraphs: the IRCoT loop is a subgraph, and its steps belong on the timeline.
    // on_disconnect: a page that stops reading (Stop, closed tab) stops the run too.
    const body = {
      assistant_id: ASSISTANT_ID,
      input,
      stream_mode: STREAM_MODES,
      stream_subgraphs: true,
      on_disconnect: "cancel",
    };
    const path = `/threads/${encodeURIComponent(threadId)}/runs/stream`;
    const response = await this.startRun(path, body, signal);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const frame = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (frame) yield frame;
      }
    }
  }

  // Upload files; onProgress gets {phase: "upload", percent} then the server's JSON lines.
  upload(files, onProgress) {
    return new Promise((resolve, reject) => {
      const form = new FormData();
      for (const file of files) form.append("files", file, file.name);
      const xhr = new XMLHttpRequest();
      let seen = 0;
      const readLines = () => {
        const lines = xhr.responseText.slice(seen).split("\n");
        const complete = lines.slice(0, -1);
        for (const line of complete) {
          seen += line.length + 1;
          if (line.trim()) onProgress(JSON.parse(line));
        }
      };
      xhr.open("POST", this.base + "/acrag/upload");
      if (this.token) xhr.setRequestHeader("Authorization", `Bearer ${this.token}`);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) onProgress({ phase: "upload", percent: (100 * e.loaded) / e.total });
      };
      xhr.onprogress = () => { if (xhr.status === 200) readLines(); };
      xhr.onload = () => {
        if (xhr.status === 401) return reject(new AuthError("token needed"));
        if (xhr.status !== 200) return reject(new Error(`upload: ${xhr.status} ${xhr.responseText.slice(0, 300)}`));
        readLines();
        resolve();
      };
      xhr.onerror = () => reject(new Error("upload failed: network error"));
      xhr.send(form);
    });
  }
}

function parseFrame(text) {
  let event = "message";
  const data = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (!data.length) return null;
  try {
    return { event, data: JSON.parse(data.join("\n")) };
  } catch {
    return { event, data: data.join("\n") };
  }
}
