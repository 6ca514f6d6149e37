// Rebuild every turn of a thread (question, steps, answer, sources) from its saved states.
// Pure functions, no DOM: tests run them in node.

export function messageText(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p?.text || "")).join("");
  return "";
}

// Map each turn's AI message index to that turn's events: a turn's final state (nothing left
// to run) ends with its AI message. States come newest first; the first seen per index wins.
function eventsByAnswer(states) {
  const found = new Map();
  for (const state of states || []) {
    const values = state?.values || {};
    const messages = values.messages || [];
    const last = messages.length - 1;
    if (last < 0 || (state.next || []).length || messages[last]?.type !== "ai") continue;
    if (!found.has(last)) found.set(last, values.events || []);
  }
  return found;
}

// The final answer as data: the turn's `answer` event when there is one, else the message.
function finalOf(message, events) {
  const event = [...events].reverse().find((e) => e?.type === "answer");
  if (event) return event;
  const citations = message.response_metadata?.citations || [];
  return { answer: messageText(message), citations, notes: [], revised: false, abstained: false };
}

// Return [{question, events, final}] for every turn; `final` is null for a turn left unanswered.
export function turnsFromStates(latest, history) {
  const messages = latest?.values?.messages || [];
  const events = eventsByAnswer([latest, ...(history || [])]);
  const turns = [];
  messages.forEach((message, index) => {
    if (message?.type === "human") turns.push({ question: messageText(message), events: [], final: null });
    else if (message?.type === "ai" && turns.length && !turns.at(-1).final) {
      const turn = turns.at(-1);
      turn.events = events.get(index) || [];
      turn.final = finalOf(message, turn.events);
    }
  });
  return turns;
}
