#include "actors/web_assets.hpp"

#include <array>
#include <utility>

namespace gantry::actors {

namespace {

constexpr std::string_view kIndexHtml = R"html(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gantry</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header>
  <h1><a href="#/">Gantry</a></h1>
  <span id="live" class="live off">connecting</span>
  <span id="who"></span>
  <button id="logout" type="button" hidden>log out</button>
</header>
<main>
<p id="logged-out" hidden>Logged out, or this key may no longer see the hub: run
  <code>gantryctl web</code> and open the URL it prints.</p>
<section id="overview">
  <h2>Clusters</h2>
  <table id="clusters">
    <thead><tr><th>Cluster</th><th>Ready</th><th>GPU product</th><th>GPUs used</th>
      <th>GPUs free</th><th>Utilisation</th><th>Nodes</th></tr></thead>
    <tbody></tbody>
  </table>
  <h3>GPUs by product</h3>
  <table id="products">
    <thead><tr><th>GPU product</th><th>Used</th><th>Free</th></tr></thead>
    <tbody></tbody>
  </table>
  <h2>Queues</h2>
  <table id="queues">
    <thead><tr><th>Queue</th><th>State</th><th>Allocated</th><th>Deserved</th>
      <th>Capability</th><th>Pending jobs</th><th>Share</th></tr></thead>
    <tbody></tbody>
  </table>
  <h2>Jobs</h2>
  <div class="filters">
    <input id="job-filter" type="search" placeholder="filter: name, queue, cluster, reason">
    <select id="phase-filter"><option value="">every phase</option></select>
  </div>
  <table id="jobs">
    <thead><tr><th>Job</th><th>Phase</th><th>Queue</th><th>Clusters</th><th>Wait</th>
      <th>Reason</th></tr></thead>
    <tbody></tbody>
  </table>
</section>
<section id="job-page" hidden>
  <p><a href="#/">&larr; all jobs</a></p>
  <h2>Job <span id="job-name"></span></h2>
  <dl id="job-summary"></dl>
  <h3>Parts per cluster</h3>
  <table id="job-parts">
    <thead><tr><th>Cluster</th><th>Replicas per task</th></tr></thead>
    <tbody></tbody>
  </table>
  <h3>Events</h3>
  <ol id="job-events"></ol>
</section>
</main>
<script src="/app.js"></script>
</body>
</html>
)html";

constexpr std::string_view kStyleCss = R"css(
body { font-family: system-ui, sans-serif; margin: 0; color: #1d2430; background: #f6f7f9; }
header { display: flex; align-items: center; gap: 1em; padding: 0.5em 1.5em;
  background: #1d2430; color: #fff; }
header h1 { font-size: 1.2em; margin: 0; }
header a { color: #fff; text-decoration: none; }
#who { margin-left: auto; font-size: 0.9em; }
#logged-out { background: #fff3e0; padding: 0.6em 1em; border-left: 4px solid #b26a00; }
main { padding: 0 1.5em 2em; }
h2 { margin-top: 1.5em; }
table { border-collapse: collapse; background: #fff; min-width: 50%; }
th, td { text-align: left; padding: 0.3em 0.8em; border-bottom: 1px solid #dde1e7; }
th { background: #eceff3; }
.live { font-size: 0.8em; padding: 0.1em 0.6em; border-radius: 1em; background: #2e7d32; }
.live.off { background: #b26a00; }
.phase { font-weight: 600; }
.phase-Running { color: #1565c0; }
.phase-Completed { color: #2e7d32; }
.phase-Failed, .phase-Aborted { color: #c62828; }
.phase-Pending { color: #b26a00; }
.bar { display: inline-block; width: 6em; height: 0.6em; background: #dde1e7; margin-left: 0.4em; }
.bar span { display: block; height: 100%; background: #1565c0; }
.filters { margin-bottom: 0.5em; display: flex; gap: 0.5em; }
#job-events { font-family: ui-monospace, monospace; font-size: 0.9em; }
#job-events time { color: #5a6372; margin-right: 0.8em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { font-weight: 600; }
)css";

constexpr std::string_view kAppJs = R"js("use strict";
// The hub's web view: renders /api/overview as the hub streams it
// (/api/stream, server-sent events) and a job's page from /api/jobs/NAME.
// Read-only; text goes into the page as text, never as HTML.
const GPU = "nvidia.com/gpu";
const PRODUCT_LABEL = "nvidia.com/gpu.product";
let overview = { clusters: [], queues: [], jobs: [] };

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null || text === "" ? "-" : String(text);
  if (className) td.className = className;
  return td;
}

function fillTable(id, items, key, fill) {
  const body = document.querySelector("#" + id + " tbody");
  body.replaceChildren();
  for (const item of items) {
    const row = body.insertRow();
    row.dataset[key] = item.name;
    fill(row, item);
  }
}

function gpus(resources) { return (resources && resources[GPU]) || 0; }

// GPU products as the hub counts them: "nvidia.com/gpu/A100" resources, else
// the cluster's nvidia.com/gpu.product label, else unlabelled.
function products(cluster) {
  const named = Object.keys(cluster.capacity || {}).filter((n) => n.startsWith(GPU + "/"));
  if (named.length > 0) {
    return named.map((n) => ({
      name: n.slice(GPU.length + 1),
      used: (cluster.allocated || {})[n] || 0,
      total: cluster.capacity[n],
    }));
  }
  if (!gpus(cluster.capacity)) return [];
  const label = (cluster.labels || {})[PRODUCT_LABEL] || "(unlabelled)";
  return [{ name: label, used: gpus(cluster.allocated), total: gpus(cluster.capacity) }];
}

function quantity(name, value) {
  if (name === "memory") return (value / 2 ** 30).toFixed(value < 2 ** 30 ? 2 : 0) + "Gi";
  return String(value);
}

function resourcesText(resources) {
  const names = Object.keys(resources || {});
  if (names.length === 0) return "-";
  return names.map((name) => name + "=" + quantity(name, resources[name])).join(" ");
}

function bar(td, used, total) {
  if (!total) return;
  const outer = document.createElement("span");
  outer.className = "bar";
  const inner = document.createElement("span");
  inner.style.width = Math.min(100, (100 * used) / total) + "%";
  outer.append(inner);
  td.append(outer);
}

function renderClusters(clusters) {
  fillTable("clusters", clusters, "cluster", (row, c) => {
    cell(row, c.name);
    const ready = c.ready ? (c.cordoned ? "cordoned" : "ready") : c.notReadyReason || "not ready";
    cell(row, ready, "ready-" + (c.ready ? "yes" : "no"));
    cell(row, products(c).map((p) => p.name).join(", "));
    const used = gpus(c.allocated);
    bar(cell(row, used), used, gpus(c.capacity));
    cell(row, Math.max(0, gpus(c.capacity) - used));
    cell(row, c.gpuUtilization === null ? "" : c.gpuUtilization + "%");
    cell(row, c.nodes);
  });
  const sums = new Map();
  for (const c of clusters) {
    for (const p of products(c)) {
      const sum = sums.get(p.name) || { name: p.name, used: 0, free: 0 };
      sum.used += p.used;
      sum.free += Math.max(0, p.total - p.used);
      sums.set(p.name, sum);
    }
  }
  fillTable("products", [...sums.values()], "product", (row, p) => {
    cell(row, p.name);
    cell(row, p.used);
    cell(row, p.free);
  });
}

function renderQueues(queues, jobs) {
  fillTable("queues", queues, "queue", (row, q) => {
    cell(row, q.name);
    cell(row, q.state);
    bar(cell(row, resourcesText(q.allocated)), gpus(q.allocated), gpus(q.deserved));
    cell(row, resourcesText(q.deserved));
    cell(row, resourcesText(q.capability));
    cell(row, jobs.filter((j) => j.queue === q.name && j.phase === "Pending").length, "pending");
    cell(row, q.share.toFixed(2));
  });
}

function placedClusters(job) {
  const clusters = [...job.clusters];
  for (const part of job.parts) if (!clusters.includes(part.cluster)) clusters.push(part.cluster);
  return clusters;
}

function duration(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return s + "s";
  if (s < 7200) return Math.round(s / 60) + "m";
  return Math.round(s / 3600) + "h";
}

// Submit to start, or to now while it waits.
function waitText(job) {
  if (!job.submitted) return "";
  const end = job.started ? Date.parse(job.started) : Date.now();
  return duration(end - Date.parse(job.submitted));
}

function renderPhaseFilter(jobs) {
  const select = document.getElementById("phase-filter");
  const known = new Set([...select.options].map((o) => o.value));
  for (const phase of new Set(jobs.map((j) => j.phase))) {
    if (!known.has(phase)) select.add(new Option(phase, phase));
  }
}

function renderJobs(jobs) {
  renderPhaseFilter(jobs);
  const text = document.getElementById("job-filter").value.trim().toLowerCase();
  const phase = document.getElementById("phase-filter").value;
  const shown = jobs.filter((j) => {
    if (phase && j.phase !== phase) return false;
    const haystack = [j.name, j.queue, j.phase, j.reason, ...placedClusters(j)].join(" ");
    return !text || haystack.toLowerCase().includes(text);
  });
  fillTable("jobs", shown, "job", (row, j) => {
    const link = document.createElement("a");
    link.href = "#/jobs/" + encodeURIComponent(j.name);
    link.textContent = j.name;
    row.insertCell().append(link);
    cell(row, j.phase, "phase phase-" + j.phase);
    cell(row, j.queue);
    cell(row, placedClusters(j).join(", "));
    cell(row, waitText(j));
    cell(row, j.reason, "reason");
  });
}

function renderOverview() {
  renderClusters(overview.clusters);
  renderQueues(overview.queues, overview.jobs);
  renderJobs(overview.jobs);
}

function jobOnPage() {
  const match = location.hash.match(/^#\/jobs\/(.+)$/);
  return match ? decodeURIComponent(match[1]) : null;
}

function summaryItem(list, term, value) {
  const dt = document.createElement("dt");
  dt.textContent = term;
  const dd = document.createElement("dd");
  dd.textContent = value === undefined || value === null || value === "" ? "-" : String(value);
  dd.id = "job-" + term.toLowerCase();
  list.append(dt, dd);
}

function renderJobPage(name, page) {
  document.getElementById("job-name").textContent = name;
  const summary = document.getElementById("job-summary");
  summary.replaceChildren();
  const events = document.getElementById("job-events");
  if (!page) {
    summaryItem(summary, "Phase", "no such job");
    events.replaceChildren();
    document.querySelector("#job-parts tbody").replaceChildren();
    return;
  }
  const job = page.job;
  summaryItem(summary, "Phase", job.phase);
  summaryItem(summary, "Queue", job.queue);
  summaryItem(summary, "Reason", job.reason);
  summaryItem(summary, "Submitted", job.submitted);
  summaryItem(summary, "Started", job.started);
  summaryItem(summary, "Finished", job.finished);
  summaryItem(summary, "Wait", waitText(job));
  summaryItem(summary, "Requests", resourcesText(job.requests));
  const parts = job.parts.map((p) => ({ name: p.cluster, replicas: p.replicas }));
  fillTable("job-parts", parts, "cluster", (row, p) => {
    cell(row, p.name);
    cell(row, resourcesText(p.replicas));
  });
  events.replaceChildren();
  for (const event of page.events) {
    const item = document.createElement("li");
    const time = document.createElement("time");
    time.textContent = event.time;
    item.append(time, event.text);
    events.append(item);
  }
}

let jobRequest = 0;
async function loadJobPage() {
  const name = jobOnPage();
  if (!name) return;
  const mine = ++jobRequest;
  let page = null;
  try {
    const response = await fetch("/api/jobs/" + encodeURIComponent(name), { cache: "no-store" });
    if (response.ok) page = await response.json();
  } catch (error) {
    page = null;
  }
  if (mine === jobRequest) renderJobPage(name, page);  // a later load wins
}

function showPage() {
  const name = jobOnPage();
  document.getElementById("overview").hidden = name !== null;
  document.getElementById("job-page").hidden = name === null;
  if (name) loadJobPage();
}

// How long to wait before opening the stream again once the hub refused it
// (a 503 when 32 are open) or went away: EventSource gives up on those.
const RECONNECT_MS = 5000;
let stream = null;

// Who the page is shown to (a key logged in with gantryctl web), in the header.
async function showWho() {
  try {
    const response = await fetch("/api/session", { cache: "no-store" });
    if (!response.ok) return;
    const session = await response.json();
    if (session.via !== "login") return;
    document.getElementById("who").textContent = session.key + " (" + session.role + ")";
    document.getElementById("logout").hidden = false;
  } catch (error) {
    // the stream says whether the hub is there
  }
}

function showLoggedOut() {
  if (stream) stream.close();
  const live = document.getElementById("live");
  live.textContent = "logged out";
  live.className = "live off";
  document.getElementById("who").textContent = "";
  document.getElementById("logout").hidden = true;
  document.getElementById("logged-out").hidden = false;
}

// A refused stream: the login ended (401), or the hub is busy or away.
async function reconnectOrLogOut() {
  let status = 0;
  try {
    status = (await fetch("/api/session", { cache: "no-store" })).status;
  } catch (error) {
    status = 0;
  }
  if (status === 401) return showLoggedOut();
  setTimeout(connect, RECONNECT_MS);
}

async function logOut() {
  try {
    await fetch("/logout", { method: "POST" });
  } finally {
    showLoggedOut();
  }
}

function connect() {
  const live = document.getElementById("live");
  stream = new EventSource("/api/stream");
  stream.addEventListener("overview", (event) => {
    overview = JSON.parse(event.data);
    renderOverview();
    if (jobOnPage()) loadJobPage();  // its events may have moved on too
  });
  stream.onopen = () => {
    live.textContent = "live";
    live.className = "live";
  };
  // EventSource reconnects by itself after a dropped stream, but not after a
  // refusal: then this page opens a new one.
  stream.onerror = () => {
    live.textContent = "reconnecting";
    live.className = "live off";
    if (stream.readyState === EventSource.CLOSED) reconnectOrLogOut();
  };
}

document.getElementById("job-filter").addEventListener("input", renderOverview);
document.getElementById("phase-filter").addEventListener("change", renderOverview);
document.getElementById("logout").addEventListener("click", logOut);
window.addEventListener("hashchange", showPage);
showPage();
showWho();
connect();
)js";

constexpr std::array kAssets = {
    std::pair{std::string_view("/"), WebAsset{"text/html; charset=utf-8", kIndexHtml}},
    std::pair{std::string_view("/app.js"), WebAsset{"text/javascript; charset=utf-8", kAppJs}},
    std::pair{std::string_view("/style.css"), WebAsset{"text/css; charset=utf-8", kStyleCss}},
};

}  // namespace

const WebAsset* web_asset(std::string_view path) {
  for (const auto& [served_at, asset] : kAssets) {
    if (served_at == path) return &asset;
  }
  return nullptr;
}

}  // namespace gantry::actors
