// Page 1: "Create buffers around points" (EPSG:32038, US survey feet). The page draws and collects clicks;
// containment, buffering, union, export and which premises lie within a buffer (POST /api/near, the engine's
// proximity search) are done by the Swift API.
"use strict";

import { Basemap } from "./basemap.js";
import { MapView, api, download, polygonRings, ringsPath, svg } from "./map.js";
import { $, busy, setStatus } from "./page.js";

const WKID = 32038;
const MAX_RADIUS = 300;
// The smallest radius accepted, in miles: 53 ft, which at the closest zoom (1 px per foot) draws a buffer 53 px
// around its point, well outside the point's marker; smaller ones (down to 1e-300) vanish under it.
const MIN_VISIBLE_RADIUS = 0.01;
const PLAIN_DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;
const Status = {
  addPoints: "Tap on the map to add buffers.",
  bufferCreated: "Buffer created.",
  outOfBoundsTap: "Tap within the projection's horizon (dotted: the area of use widened by 5°) to add buffer.",
  invalidInput: "Enter a value between 0 and 300 to create a buffer.",
  tooSmall: "A buffer under 0.01 miles (53 ft) would be too small to see: enter at least 0.01.",
  noPoints: "Add a point to draw the buffers.",
  premiseAdded: "Premise added.",
  premiseOutside: "Tap within the projection's horizon (dotted: the area of use widened by 5°) to add a premise.",
};

const dialog = $("radius-dialog");
const radiusInput = $("radius");
const unionBox = $("union");
const modeSelect = $("mode");

const state = {
  points: [], // {x, y, radius}
  premises: [], // {x, y}: Shift-clicked or loaded from a CSV file
  pendingTap: null,
  drawSerial: 0,
  nearSerial: 0,
  lastResult: { planar: null, geodesic: null },
  near: { planar: null, geodesic: null }, // the answers of /api/near for the modes drawn
};

// From North America (1 px = 25,000 ft) to 1 px = 1 ft.
const map = new MapView($("map"), { onClick: (x, y, event) => tapped(x, y, event), minScale: 4e-5, maxScale: 1,
  obstacles: [$("zoom"), $("legend"), $("attribution"), $("near-panel")] });
map.addControls($("zoom"));
const basemap = new Basemap(map, "/data/texas-32038.json");
window.meridianViewer = { map, state, Status, basemap };

// Layer order (bottom to top), above the basemap's.
for (const name of ["boundary", "buffers-planar", "buffers-geodesic"]) map.worldLayer(name);
map.screenLayer("premises");
map.screenLayer("points");

async function load() {
  busy(+1);
  try {
    const [, srs] = await Promise.all([basemap.load(), api(`/api/srs/${WKID}`)]);
    $("srs-name").textContent = `${srs.name} (EPSG:${srs.wkid}), ${srs.unit}`;
    // Where taps are accepted (the engine's rule, the command line's too): the projection's horizon, dotted, around
    // the area of use, red dashed as in the sample.
    if (srs.horizon) {
      const horizonPath = svg("path", { d: ringsPath(polygonRings(srs.horizon)), class: "horizon" }, map.worldLayer("boundary"));
      horizonPath.id = "horizon";
    }
    const boundaryPath = svg("path", { d: ringsPath(polygonRings(srs.boundary)), class: "boundary" }, map.worldLayer("boundary"));
    boundaryPath.id = "boundary";
    const e = srs.extent;
    map.fit(e.xmin, e.ymin, e.xmax, e.ymax, 24);
    setStatus(Status.addPoints);
    document.body.dataset.ready = "1";
  } catch (error) {
    setStatus(`Could not load the map: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
}

/** A tap adds a buffer's point (after the radius dialog); a Shift-tap adds a premise. */
async function tapped(x, y, event) {
  if (dialog.open || !document.body.dataset.ready) return;
  const premise = Boolean(event && event.shiftKey);
  busy(+1);
  try {
    const { inside } = await api("/api/contains", { wkid: WKID, x, y });
    if (!inside) {
      setStatus(premise ? Status.premiseOutside : Status.outOfBoundsTap, "warning");
      return;
    }
    if (premise) {
      state.premises.push({ x, y });
      updateButtons();
      renderNear();
      const errors = await refreshNear();
      if (errors) setStatus(errors.length ? nearFailure(errors) : Status.premiseAdded, errors.length ? "error" : "");
      return;
    }
    state.pendingTap = { x, y };
    radiusInput.value = "100";
    dialog.showModal();
    radiusInput.focus();
    radiusInput.select();
  } catch (error) {
    setStatus(error.message, "error");
  } finally {
    busy(-1);
  }
}

function finishRadius(accepted) {
  const tap = state.pendingTap;
  state.pendingTap = null;
  if (dialog.open) dialog.close();
  if (!accepted || !tap) return;
  const text = radiusInput.value.trim();
  // Plain decimal numbers only: Number() would also take "0x10" (16) and "1e2" (100).
  const radius = PLAIN_DECIMAL.test(text) ? Number(text) : NaN;
  if (!(Number.isFinite(radius) && radius > 0 && radius < MAX_RADIUS)) {
    setStatus(Status.invalidInput, "warning");
    return;
  }
  if (radius < MIN_VISIBLE_RADIUS) {
    setStatus(Status.tooSmall, "warning");
    return;
  }
  state.points.push({ x: tap.x, y: tap.y, radius });
  drawBuffers(Status.bufferCreated);
}

$("radius-form").addEventListener("submit", (e) => {
  e.preventDefault();
  finishRadius(e.submitter ? e.submitter.value === "done" : true);
});
radiusInput.addEventListener("keydown", (e) => {
  if (e.key === "Enter") {
    e.preventDefault();
    finishRadius(true);
  }
});
dialog.addEventListener("cancel", () => {
  state.pendingTap = null;
});

function request(mode) {
  return {
    wkid: WKID,
    points: state.points.map((p) => ({ x: p.x, y: p.y })),
    radiiMiles: state.points.map((p) => p.radius),
    union: unionBox.checked,
    mode,
  };
}

function modes() {
  const m = modeSelect.value;
  return m === "both" ? ["planar", "geodesic"] : [m];
}

/** Asks the API for the buffers of every point and redraws points and buffers. */
async function drawBuffers(successStatus) {
  const serial = ++state.drawSerial;
  updateButtons();
  drawPoints();
  const wanted = modes();
  if (state.points.length === 0) {
    for (const m of ["planar", "geodesic"]) map.clearLayer(`buffers-${m}`);
    updateLegend();
    return;
  }
  busy(+1);
  const errors = [];
  const near = refreshNear(); // in parallel with the buffers
  try {
    const results = await Promise.all(
      wanted.map((m) =>
        api("/api/buffer", request(m)).catch((error) => {
          errors.push(`${m}: ${error.message}`);
          return null;
        })
      )
    );
    const nearErrors = await near;
    if (serial !== state.drawSerial) return; // a newer drawing superseded this one
    for (const m of ["planar", "geodesic"]) map.clearLayer(`buffers-${m}`);
    wanted.forEach((m, i) => {
      const result = results[i];
      state.lastResult[m] = result;
      if (!result) return;
      const layer = map.worldLayer(`buffers-${m}`);
      for (const polygon of result.polygons) {
        svg("path", { d: ringsPath(polygonRings(polygon)), class: `buffer ${m}`, "data-mode": m }, layer);
      }
    });
    updateLegend();
    // A successful drawing replaces whatever the line said before (a rejected radius's warning too).
    if (errors.length) setStatus(`Could not draw the buffers (${errors.join("; ")})`, "error");
    else if (nearErrors && nearErrors.length) setStatus(nearFailure(nearErrors), "error");
    else setStatus(successStatus || Status.addPoints);
  } finally {
    busy(-1);
  }
}

/** The legend lists the buffers on the map, and only those (and always the area of use). */
function updateLegend() {
  for (const m of ["planar", "geodesic"]) {
    const drawn = map.worldLayer(`buffers-${m}`).childElementCount > 0;
    document.body.classList.toggle(`with-${m}`, drawn);
  }
}

/** The points, numbered as in the table; those with a premise within their buffer marked as in breach. */
function drawPoints() {
  map.clearLayer("points");
  const breach = nearSets().points;
  state.points.forEach((p, i) => {
    const g = svg("g", { class: "point-marker" });
    const c = svg("circle", { r: breach.has(i) ? 7 : 5, class: breach.has(i) ? "tap-point breach" : "tap-point", "data-index": i }, g);
    c.appendChild(svg("title")).textContent = `Point ${i + 1}: ${p.radius} mi${breach.has(i) ? ", in breach" : ""}`;
    if (state.premises.length > 0) svg("text", { x: 9, y: -7, class: "marker-label" }, g).textContent = String(i + 1);
    map.addMarker("points", g, p.x, p.y);
  });
}

/** The premises: squares, those within a buffer highlighted and named as in the table. */
function drawPremises() {
  map.clearLayer("premises");
  const reach = nearSets().premises;
  state.premises.forEach((p, i) => {
    const inReach = reach.has(i);
    const size = inReach ? 11 : 7;
    const g = svg("g", { class: inReach ? "premise in-reach" : "premise", "data-index": i });
    const r = svg("rect", { x: -size / 2, y: -size / 2, width: size, height: size }, g);
    r.appendChild(svg("title")).textContent = `P${i + 1}${inReach ? ": within a buffer" : ""}`;
    if (inReach) svg("text", { x: 8, y: 12, class: "marker-label" }, g).textContent = `P${i + 1}`;
    map.addMarker("premises", g, p.x, p.y);
  });
}

/** The points in breach and the premises within a buffer, in any of the modes drawn (from the API's answers). */
function nearSets() {
  const points = new Set();
  const premises = new Set();
  for (const m of ["planar", "geodesic"]) {
    const answer = state.near[m];
    if (!answer) continue;
    for (const i of answer.pointsInBreach) points.add(i);
    for (const i of answer.premisesInReach) premises.add(i);
  }
  return { points, premises };
}

function nearFailure(errors) {
  return `Could not find the premises within the buffers (${errors.join("; ")})`;
}

/**
 * Asks the API which premises lie within each point's buffer, in every mode drawn, and redraws the points, the
 * premises and the table. Resolves with the errors (one per mode that failed), or null when superseded.
 */
async function refreshNear() {
  const serial = ++state.nearSerial;
  const wanted = modes();
  if (state.points.length === 0 || state.premises.length === 0) {
    state.near = { planar: null, geodesic: null };
    renderNear();
    return [];
  }
  busy(+1);
  try {
    const errors = [];
    const premises = state.premises.map((p) => ({ x: p.x, y: p.y }));
    const answers = await Promise.all(wanted.map((m) =>
      api("/api/near", { ...request(m), premises }).catch((error) => {
        errors.push(`${m}: ${error.message}`);
        return null;
      })
    ));
    if (serial !== state.nearSerial) return null;
    state.near = { planar: null, geodesic: null };
    wanted.forEach((m, i) => {
      state.near[m] = answers[i];
    });
    renderNear();
    return errors;
  } finally {
    busy(-1);
  }
}

/** Draws the near answers: the points in breach, the premises within a buffer, the summary and the table. */
function renderNear() {
  drawPoints();
  drawPremises();
  const panel = $("near-panel");
  const any = state.premises.length > 0;
  document.body.classList.toggle("with-premises", any);
  panel.hidden = !any;
  const shown = modes().filter((m) => state.near[m]);
  document.body.classList.toggle("near-both", shown.length > 1);
  const rows = $("near-rows");
  rows.replaceChildren();
  for (const m of shown) {
    for (const pair of state.near[m].pairs) {
      const tr = document.createElement("tr");
      tr.dataset.mode = m;
      for (const [text, cls] of [[String(pair.point + 1), ""], [`P${pair.premise + 1}`, ""],
        [pair.distance.toFixed(3), "number"], [m, "mode-column"]]) {
        const td = document.createElement("td");
        td.textContent = text;
        if (cls) td.className = cls;
        tr.appendChild(td);
      }
      rows.appendChild(tr);
    }
  }
  const { points, premises } = nearSets();
  const n = state.premises.length;
  let summary;
  if (state.points.length === 0) summary = `${n} premise${n === 1 ? "" : "s"}: tap the map to add buffers around points.`;
  else if (premises.size === 0) summary = `None of the ${n} premise${n === 1 ? "" : "s"} lies within a buffer.`;
  else {
    const list = [...points].sort((a, b) => a - b).map((i) => i + 1).join(", ");
    summary = `${premises.size} of ${n} premise${n === 1 ? "" : "s"} within a buffer; in breach: point${points.size === 1 ? "" : "s"} ${list}.`;
  }
  $("near-summary").textContent = summary;
  $("near-table").hidden = rows.childElementCount === 0;
}

function updateButtons() {
  const none = state.points.length === 0;
  $("clear").disabled = none && state.premises.length === 0;
  $("export-kmz").disabled = none;
  $("export-geojson").disabled = none;
}

unionBox.addEventListener("change", () => {
  $("union-label").textContent = unionBox.checked ? "Union Enabled" : "Union Disabled";
  if (state.points.length > 0) drawBuffers(null);
});
modeSelect.addEventListener("change", () => drawBuffers(null));

$("clear").addEventListener("click", () => {
  state.points = [];
  state.premises = [];
  state.near = { planar: null, geodesic: null };
  state.drawSerial++;
  state.nearSerial++;
  for (const m of ["planar", "geodesic"]) map.clearLayer(`buffers-${m}`);
  updateLegend();
  renderNear();
  updateButtons();
  setStatus(Status.addPoints);
});

/** Loads premises from a CSV file: the API reads it (x,y in EPSG:32038 or lon,lat in WGS84) and answers them. */
$("premises-file").addEventListener("change", async (event) => {
  const input = event.target;
  const file = input.files && input.files[0];
  input.value = "";
  if (!file) return;
  busy(+1);
  try {
    const text = await file.text();
    const before = state.premises.length;
    const answer = await api("/api/near", { wkid: WKID, mode: modes()[0], points: [], radiiMiles: [],
      premises: state.premises, premisesCSV: { name: file.name, text } });
    state.premises = answer.premises;
    updateButtons();
    renderNear();
    const errors = await refreshNear();
    if (errors === null) return;
    const added = state.premises.length - before;
    if (errors.length) setStatus(nearFailure(errors), "error");
    else setStatus(`Loaded ${added} premise${added === 1 ? "" : "s"} from ${file.name}.`);
  } catch (error) {
    setStatus(`Could not load the premises: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
});

async function exportBuffers(format) {
  if (state.points.length === 0) {
    setStatus(Status.noPoints, "warning");
    return;
  }
  busy(+1);
  try {
    const mode = modeSelect.value === "geodesic" ? "geodesic" : "planar";
    const { name, size } = await download("/api/buffer/export", { ...request(mode), format }, `buffers.${format === "kmz" ? "kmz" : "geojson"}`);
    setStatus(`Exported ${name} (${size} bytes).`);
  } catch (error) {
    setStatus(`Export failed: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
}
$("export-kmz").addEventListener("click", () => exportBuffers("kmz"));
$("export-geojson").addEventListener("click", () => exportBuffers("geojson"));

load();
