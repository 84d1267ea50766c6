// The local status page: renders the bridge's state from the page's event stream (no reload), and asks for a
// confirmation before detach and cleanup. Text from agents is shown only on request, always as text (never HTML).
"use strict";

const revealed = new Map();  // message_id -> "sender: text", kept across re-renders
let pendingAction = null;

function cell(text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "—" : String(text);
  if (className) td.className = className;
  return td;
}

// Text whose `quoted` parts are commands: shown as code, everything else as plain text (never HTML).
function setText(el, text) {
  el.replaceChildren();
  String(text).split("`").forEach((part, i) => {
    if (i % 2 === 1) {
      const code = document.createElement("code");
      code.textContent = part;
      el.appendChild(code);
    } else if (part) {
      el.appendChild(document.createTextNode(part));
    }
  });
}

// Where the count comes from, as `agentworks status --agents` says it: an offline chat's messages wait on the server.
function pendingCell(a) {
  if (a.pending_source === "unknown" || a.pending === null || a.pending === undefined) {
    return cell(a.state === "offline" ? "unknown while offline" : "unknown (server unreachable)", "num");
  }
  let text = String(a.pending) + (a.pending_more ? "+" : "");
  if (a.pending_source === "server") text += " (on the server)";
  return cell(text, "num");
}

function time(seconds) {
  return seconds ? new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" })
                 : null;
}

function notice(text, isError) {
  const p = document.getElementById("notice");
  setText(p, text);
  p.className = isError ? "error" : "";
  p.hidden = !text;
}

async function post(path, body) {
  const answer = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Agentworks-UI": "1" },
    body: JSON.stringify(body),
  });
  const json = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(json.error ? json.error.message : answer.status + " " + answer.statusText);
  return json;
}

function confirmThen(text, action) {
  pendingAction = action;
  document.getElementById("confirm-text").textContent = text;
  document.getElementById("confirm").showModal();
}

function routeCell(delivery) {
  const td = cell(delivery ? delivery.route : null);
  if (delivery && !delivery.native && delivery.reason) {
    const why = document.createElement("span");
    why.className = "why";
    setText(why, delivery.reason);
    td.appendChild(why);
  }
  return td;
}

function renderAttachments(rows) {
  const body = document.querySelector("#attachments tbody");
  body.replaceChildren();
  for (const a of rows) {
    const tr = document.createElement("tr");
    tr.dataset.agent = a.agent_name;
    tr.dataset.provider = a.provider;
    tr.dataset.session = a.session_id;
    const stateText = a.state === "attached" ? (a.stream === "connected" ? "connected" : a.stream) : a.state;
    const cols = [
      ["agent_name", cell(a.agent_name)],
      ["provider", cell(a.provider)],
      ["project", cell(a.project)],
      ["route", routeCell(a.delivery)],
      ["state", cell(stateText, `state state-${stateText}`)],
      ["pending", pendingCell(a)],
      ["offered", cell(a.offered_not_admitted, "num")],
      ["admitted", cell(a.admitted, "num")],
      ["processed", cell(a.processed, "num")],
    ];
    for (const [name, td] of cols) {
      td.dataset.col = name;
      tr.appendChild(td);
    }
    const actions = document.createElement("td");
    const detach = document.createElement("button");
    detach.type = "button";
    detach.className = "detach danger";
    detach.textContent = "Detach";
    detach.addEventListener("click", () =>
      confirmThen(`Detach ${a.agent_name} (${a.provider} chat)? Its messages stay on the server.`, async () => {
        await post("/api/detach", { provider: a.provider, session_id: a.session_id });
        notice(`${a.agent_name} detached.`);
      }));
    actions.appendChild(detach);
    tr.appendChild(actions);
    body.appendChild(tr);
  }
}

function renderDeliveries(rows) {
  const body = document.querySelector("#deliveries tbody");
  body.replaceChildren();
  for (const d of rows) {
    const tr = document.createElement("tr");
    tr.dataset.message = d.message_id;
    tr.append(cell(d.message_id), cell(d.agent_name), cell(d.state + (d.reason ? ` (${d.reason})` : "")),
              cell(time(d.received_at)), cell(time(d.offered_at)), cell(time(d.admitted_at)),
              cell(time(d.processed_at)));
    const text = document.createElement("td");
    if (revealed.has(d.message_id)) {
      const div = document.createElement("div");
      div.className = "body";
      div.textContent = revealed.get(d.message_id);
      text.appendChild(div);
    } else {
      const show = document.createElement("button");
      show.type = "button";
      show.className = "reveal";
      show.textContent = "Show";
      show.addEventListener("click", async () => {
        try {
          const r = await post("/api/reveal", { message_id: d.message_id });
          const sender = r.message.sender && r.message.sender.agent_name ? r.message.sender.agent_name : "someone";
          revealed.set(d.message_id, `${sender}: ${r.message.message}`);
          renderDeliveries(rows);
        } catch (e) {
          notice(e.message, true);
        }
      });
      text.appendChild(show);
    }
    tr.appendChild(text);
    body.appendChild(tr);
  }
}

function renderOutbox(rows) {
  const body = document.querySelector("#outbox tbody");
  body.replaceChildren();
  for (const o of rows) {
    const tr = document.createElement("tr");
    tr.dataset.submission = o.submission_id;
    tr.append(cell(o.kind), cell(o.agent_name), cell(o.target), cell(o.state), cell(o.attempts, "num"),
              cell(o.last_error), cell(time(o.created_at)));
    body.appendChild(tr);
  }
}

// What a person needs next about a call: why it failed, what it waits for and the command that answers, or its
// progress while it runs.
function callDetail(c) {
  if (c.error && c.error.code) return `${c.error.code}: ${c.error.message || ""}`;
  if (c.status === "waiting_input") {
    return `waiting for your answer: agentworks functions call-status ${c.call_id} shows the question; ` +
           `agentworks functions reply ${c.call_id} --request REQUEST_ID --answer TEXT answers it`;
  }
  if (c.status === "running" && c.progress) return c.progress;
  return "";
}

function renderCalls(calls) {
  const body = document.querySelector("#calls tbody");
  body.replaceChildren();
  for (const c of calls.calls) {
    const tr = document.createElement("tr");
    tr.dataset.call = c.call_id;
    const caller = c.caller ? (c.caller.agent_name || "you") : null;
    tr.append(cell(c.call_id), cell(c.crew_name), cell(c.function), cell(c.status, `state state-${c.status}`),
              cell(caller), cell(time(c.created_at)), cell(time(c.finished_at)), cell(callDetail(c)));
    body.appendChild(tr);
  }
  const problem = document.getElementById("calls-problem");
  setText(problem, calls.problem ? `Function calls unavailable: ${calls.problem}` : "");
  problem.hidden = !calls.problem;
}

// A Crew's conversations with its own agent: whom it talks with, whether a turn runs, what waits for the next one.
function renderConversations(rows) {
  const body = document.querySelector("#conversations tbody");
  body.replaceChildren();
  for (const c of rows) {
    const tr = document.createElement("tr");
    tr.dataset.inbox = c.inbox_id;
    const withWhom = c.initiator && c.initiator.agent_name ? c.initiator.agent_name : "you";
    tr.append(cell(c.crew_name), cell(c.inbox_id), cell(withWhom), cell(c.turn, `state state-${c.turn}`),
              cell(c.turns, "num"), cell(time(c.last_turn_at)), cell(c.waiting, "num"));
    body.appendChild(tr);
  }
}

function render(state) {
  const bridge = document.getElementById("bridge");
  bridge.textContent = state.bridge.running
    ? `bridge ${state.bridge.version} (pid ${state.bridge.pid}) · ${state.outbox_queued} queued`
    : `bridge not running: ${state.bridge.problem}`;
  renderAttachments(state.attachments);
  renderDeliveries(state.deliveries);
  renderOutbox(state.outbox);
  renderCalls(state.calls);
  const conversations = state.calls.conversations || [];
  renderConversations(conversations);
  const counts = { attachments: state.attachments.length, deliveries: state.deliveries.length,
                   outbox: state.outbox.length, calls: state.calls.calls.length,
                   conversations: conversations.length };
  // An empty table says so only once the state is known, and not beside a problem that explains it.
  for (const p of document.querySelectorAll("p.empty")) {
    const fromServer = p.dataset.for === "calls" || p.dataset.for === "conversations";
    p.hidden = counts[p.dataset.for] > 0 || (fromServer && !!state.calls.problem);
  }
  let waiting = 0;
  for (const a of state.attachments) if (typeof a.pending === "number") waiting += a.pending;
  for (const c of conversations) waiting += c.waiting || 0;  // messages for a Crew's agent's next turn
  const running = state.calls.calls.filter((c) => c.status === "running" || c.status === "waiting_input").length;
  document.getElementById("waiting").textContent =
    `${waiting} message${waiting === 1 ? "" : "s"} waiting · ${running} call${running === 1 ? "" : "s"} open`;
  document.body.dataset.version = String((Number(document.body.dataset.version) || 0) + 1);
}

function connect() {
  const live = document.getElementById("live");
  const events = new EventSource("/events");
  events.addEventListener("open", () => { live.textContent = "live"; live.className = "badge live"; });
  events.addEventListener("error", () => { live.textContent = "reconnecting"; live.className = "badge down"; });
  events.addEventListener("state", (e) => render(JSON.parse(e.data)));
}

document.addEventListener("DOMContentLoaded", () => {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-cancel").addEventListener("click", () => { pendingAction = null; dialog.close(); });
  document.getElementById("confirm-ok").addEventListener("click", async () => {
    const action = pendingAction;
    pendingAction = null;
    dialog.close();
    if (!action) return;
    try {
      await action();
    } catch (e) {
      notice(e.message, true);
    }
  });
  document.getElementById("cleanup").addEventListener("click", () =>
    confirmThen("Clean up processed messages and offers older than 7 days? Pending messages stay.", async () => {
      const r = await post("/api/cleanup", {});
      notice(`Cleaned up: ${r.processed_removed} processed, ${r.offered_removed} offered.`);
    }));
  fetch("/api/state").then((r) => r.json()).then(render).catch((e) => notice(e.message, true));
  connect();
});
