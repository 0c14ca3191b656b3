// The operator console page: draws the board's snapshots from /api/events and sends the operator's actions.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
// The server sends an event at least every 0.5 s (web_app.KEEP_ALIVE_S); silence this long means it is
// gone (or the network is), and what the page shows may no longer be true.
const STALE_AFTER_MS = 1500;
const panels = [];
let lastCameraLoad = [];
let lastHeard = 0;
let stale = true;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function notice(text) { document.getElementById("notice").textContent = text; }

function operatorName() {
  const value = document.getElementById("operator").value.trim();
  localStorage.setItem("operator", value);
  return value;
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Console-Token": token },
    body: JSON.stringify({ ...body, operator: operatorName() }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) notice(`${path}: ${answer.detail || response.statusText}`);
  else notice("");
  return response.ok;
}

function fixed(value, digits) { return Number(value).toFixed(digits); }

function bar(kind, value, scale) {
  const width = scale > 0 ? Math.max(1, Math.round((80 * value) / scale)) : 1;
  return el("td", { class: "cell" }, el("span", { class: `bar ${kind}`, style: `width:${width}px` }), fixed(value, 3));
}

// The SayCan Figure-5 chart of one step: each candidate's LLM probability, affordance, payoff (when the
// method has one) and combined score; bars are scaled to the column's largest value, numbers are exact.
function chart(step) {
  const candidates = step.candidates;
  if (!candidates.length) return el("div", { class: "chart-empty" }, "no scored candidates (a generative method)");
  const withPay = candidates.some((c) => c.pay !== 1.0);
  const columns = ["llm", "affordance", ...(withPay ? ["pay"] : []), "combined"];
  const scale = Object.fromEntries(columns.map((k) => [k, Math.max(...candidates.map((c) => c[k]))]));
  const head = el("tr", {}, el("th", {}, "candidate"), ...columns.map((k) => el("th", {}, k === "llm" ? "p_LLM" : k)));
  const table = el("table", { class: "chart" }, el("thead", {}, head));
  const body = el("tbody");
  for (const c of candidates) {
    body.append(el("tr", { class: c.skill === step.skill ? "chosen" : "" }, el("td", {}, c.skill),
      ...columns.map((k) => bar(k, c[k], scale[k]))));
  }
  table.append(body);
  return table;
}

function stepItem(step) {
  const head = el("div", {}, `${step.skill} `, el("span", { class: `status ${step.status}` }, step.status),
    step.message ? ` ${step.message}` : "", ` (${fixed(step.planning_s, 2)} s)`);
  return el("li", { class: "step", "data-status": step.status }, head, chart(step));
}

function part(panel, name) { return panel.querySelector(`[data-part="${name}"]`); }

function makePanel(robot) {
  const panel = document.getElementById("robot-template").content.firstElementChild.cloneNode(true);
  panel.id = `robot-${robot.index}`;
  for (const node of panel.querySelectorAll("[data-part]")) node.id = `${node.dataset.part}-${robot.index}`;
  const base = `/api/robots/${robot.index}`;
  part(panel, "estop").onclick = () => post(`${base}/estop`, { engaged: true });
  part(panel, "release").onclick = () => post(`${base}/estop`, { engaged: false });
  part(panel, "cancel").onclick = () => post(`${base}/cancel`, {});
  part(panel, "instruction-form").onsubmit = async (event) => {
    event.preventDefault();
    const text = part(panel, "instruction").value.trim();
    if (await post(`${base}/instruction`, {
      text, planner: part(panel, "planner").value, plan_only: part(panel, "plan-only").checked,
    })) part(panel, "instruction").value = "";
  };
  panel.pendingId = null;
  document.getElementById("robots").append(panel);
  return panel;
}

function drawPending(panel, robot) {
  const box = part(panel, "pending");
  const pending = robot.pending;
  if (!pending) { box.replaceChildren(); panel.pendingId = null; return; }
  if (panel.pendingId === pending.id) return; // keep the reason the operator is typing
  panel.pendingId = pending.id;
  const base = `/api/robots/${robot.index}/approvals/${pending.id}`;
  const reason = el("input", { id: `reason-${robot.index}`, placeholder: "reason (for a refusal)", size: "32" });
  const approve = el("button", { id: `approve-${robot.index}`, class: "approve" }, "approve");
  const refuse = el("button", { id: `refuse-${robot.index}`, class: "refuse" }, "refuse");
  approve.onclick = () => post(base, { approved: true, reason: "" });
  refuse.onclick = () => post(base, { approved: false, reason: reason.value });
  const skills = pending.steps.map((s) => s.skill).join(", ");
  box.replaceChildren(el("div", {}, el("b", {}, "Approve "), el("span", { id: `pending-skill-${robot.index}` }, skills),
    `? (for "${pending.instruction}", ${pending.timeout_s} s to answer)`),
    ...pending.steps.map(chart), el("div", {}, approve, " ", refuse, " ", reason));
}

function drawRobot(robot) {
  const panel = panels[robot.index] || (panels[robot.index] = makePanel(robot));
  part(panel, "namespace").textContent = `robot ${robot.namespace}`;
  const stop = part(panel, "estop-state");
  stop.textContent = robot.estop ? "E-STOP ENGAGED" : robot.estop === false ? "e-stop released" : "e-stop: not used yet";
  stop.className = `badge ${robot.estop ? "engaged" : "clear"}`;
  const goal = robot.goal;
  part(panel, "goal").textContent = goal
    ? `${goal.instruction || ""} [${goal.planner || ""}${goal.plan_only ? ", plan only" : ""}] ` +
      (goal.event === "ended" ? `ended: ${goal.reason}: ${goal.message}` : "running")
    : "";
  drawPending(panel, robot);
  const decision = part(panel, "decision");
  const d = robot.decision;
  decision.textContent = d ? `${d.skills.join(", ") || "step"}: ${d.reason}` : "";
  decision.className = `decision ${d ? (d.approved ? "approved" : "refused") : ""}`;
  part(panel, "steps").replaceChildren(...robot.steps.map(stepItem));
  const scene = part(panel, "scene").tBodies[0];
  scene.replaceChildren(...robot.scene.map((o) => el("tr", {}, el("td", {}, o.id), el("td", {}, o.label),
    el("td", {}, o.location), el("td", {}, fixed(o.confidence, 2)))));
  // The record's bookkeeping (stamp, revision) changes with every message and says nothing to a person.
  const record = robot.robot_state;
  let shown = record === null ? "" : String(record);
  if (record !== null && typeof record === "object") {
    const { stamp, revision, ...state } = record;
    shown = JSON.stringify(state, null, 1);
  }
  part(panel, "robot-state").textContent = shown;
  const now = Date.now();
  if (robot.camera.frame && now - (lastCameraLoad[robot.index] || 0) > 300) {
    lastCameraLoad[robot.index] = now;
    part(panel, "camera").src = `/api/robots/${robot.index}/camera.jpg?token=${encodeURIComponent(token)}&frame=${robot.camera.frame}`;
    part(panel, "camera").title = robot.camera.topic;
  }
}

function drawLog(id, entries) {
  const rows = entries.slice(-40).reverse().map((e) => el("tr", {}, el("td", {}, new Date(e.time * 1000).toLocaleTimeString()),
    el("td", {}, e.who), el("td", {}, e.robot), el("td", {}, e.action), el("td", {}, e.detail)));
  document.querySelector(`#${id} tbody`).replaceChildren(...rows);
}

// Stale: the server has not been heard from for STALE_AFTER_MS. The page greys out and every control
// that acts on a robot is disabled, so nobody approves or sends anything on a picture of the past.
function setStale(value) {
  stale = value;
  document.body.classList.toggle("stale", value);
  for (const control of document.querySelectorAll("#robots button, #robots input, #robots select")) {
    control.disabled = value;
  }
  const status = document.getElementById("connection");
  status.textContent = value ? "disconnected: what this page shows is stale" : "live";
  status.className = `badge ${value ? "on" : "live"}`;
}

function heard() {
  lastHeard = Date.now();
  if (stale) setStale(false);
}

function draw(snapshot) {
  for (const robot of snapshot.robots) drawRobot(robot);
  drawLog("log", snapshot.log);
  drawLog("refused", snapshot.refused || []);
  document.body.dataset.version = snapshot.version;
  window.consoleSnapshot = snapshot;
}

function connect() {
  const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
  source.onmessage = (event) => { heard(); draw(JSON.parse(event.data)); };
  source.addEventListener("alive", heard);
  source.onerror = () => {
    setStale(true);
    fetch(`/api/state?token=${encodeURIComponent(token)}`).then((r) => {
      if (r.status === 401) { notice("this console needs its token: open the address it printed at start"); source.close(); }
    }).catch(() => {});
  };
}

document.getElementById("operator").value = localStorage.getItem("operator") || "";
setInterval(() => { if (!stale && Date.now() - lastHeard > STALE_AFTER_MS) setStale(true); }, 200);
setStale(true);
connect();
