// Page 1: "Create buffers around points" (EPSG:32038, US survey feet). The page draws and collects clicks;
// containment, buffering, union and export are done by the Swift API.
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
};

const dialog = $("radius-dialog");
const radiusInput = $("radius");
const unionBox = $("union");
const modeSelect = $("mode");

const state = {
  points: [], // {x, y, radius}
  pendingTap: null,
  drawSerial: 0,
  lastResult: { planar: null, geodesic: null },
};

// From North America (1 px = 25,000 ft) to 1 px = 1 ft.
const map = new MapView($("map"), { onClick: (x, y) => tapped(x, y), minScale: 4e-5, maxScale: 1,
  obstacles: [$("zoom"), $("legend"), $("attribution")] });
map.addControls($("zoom"));
const basemap = new Basemap(map, "/data/texas-32038.json");
window.meridianViewer = { map, state, Status, basemap };

// Layer order (bottom to top), above the basemap's.
for (const name of ["boundary", "buffers-planar", "buffers-geodesic"]) map.worldLayer(name);
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

async function tapped(x, y) {
  if (dialog.open || !document.body.dataset.ready) return;
  busy(+1);
  try {
    const { inside } = await api("/api/contains", { wkid: WKID, x, y });
    if (!inside) {
      setStatus(Status.outOfBoundsTap, "warning");
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
  try {
    const results = await Promise.all(
      wanted.map((m) =>
        api("/api/buffer", request(m)).catch((error) => {
          errors.push(`${m}: ${error.message}`);
          return null;
        })
      )
    );
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

function drawPoints() {
  map.clearLayer("points");
  state.points.forEach((p, i) => {
    const c = svg("circle", { r: 5, class: "tap-point", "data-index": i });
    c.appendChild(svg("title")).textContent = `${p.radius} mi`;
    map.addMarker("points", c, p.x, p.y);
  });
}

function updateButtons() {
  const none = state.points.length === 0;
  $("clear").disabled = none;
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
  state.drawSerial++;
  for (const m of ["planar", "geodesic"]) map.clearLayer(`buffers-${m}`);
  updateLegend();
  drawPoints();
  updateButtons();
  setStatus(Status.addPoints);
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
