// Page 2: "Create and save KML" (Web Mercator). The page sketches vertices; the Swift API projects them to WGS84,
// builds the KML document with its styles and packs the KMZ, and reads opened KML/KMZ files.
"use strict";

import { MapView, api, download, flatRingsPath, ringsPath, svg } from "./map.js";

const $ = (id) => document.getElementById(id);
const statusLine = $("status");
const choiceDialog = $("choice-dialog");
const WORLD = 20037508.342789244;

const state = {
  palette: null,
  placemarks: [], // {type: "point"|"polyline"|"polygon", coordinates: [[x, y]…], style: {icon?, color?}}
  sketch: null, // {type, style, coordinates}
  pending: 0,
};

function setStatus(text, kind = "") {
  statusLine.textContent = text;
  statusLine.dataset.kind = kind;
}

function busy(delta) {
  state.pending += delta;
  document.body.dataset.pending = String(state.pending);
}

const map = new MapView($("map"), { onClick: (x, y) => clicked(x, y), onPointerDown: (e) => sketchPointerDown(e), minScale: 1e-7, maxScale: 10 });
map.addControls($("zoom"));
window.meridianViewer = { map, state };

for (const name of ["countries", "states", "opened-areas", "areas", "lines", "sketch"]) map.worldLayer(name);
for (const name of ["cities", "opened-icons", "icons", "sketch-vertices"]) map.screenLayer(name);

async function load() {
  busy(+1);
  try {
    const [basemap, palette] = await Promise.all([fetch("/data/world-3857.json").then((r) => r.json()), api("/api/kml/palette")]);
    state.palette = palette;
    const { countries, states, cities } = basemap.layers;
    svg("path", { d: countries.map((c) => flatRingsPath(c.r)).join(""), class: "country" }, map.worldLayer("countries"));
    svg("path", { d: states.map((s) => flatRingsPath(s.r)).join(""), class: "us-state" }, map.worldLayer("states"));
    for (const c of cities) {
      const g = svg("g", { class: "city" });
      svg("circle", { r: 2.5 }, g);
      svg("text", { x: 5, y: -4 }, g).textContent = c.n;
      map.addMarker("cities", g, c.x, c.y, 0, 0, 0, { width: 8 + 6.4 * c.n.length, height: 16 });
    }
    // The contiguous United States, as the page's starting view.
    map.fit(-14000000, 2800000, -7400000, 6500000, 10);
    setStatus("Tap Add to sketch a point, a polyline or a polygon.");
    document.body.dataset.ready = "1";
  } catch (error) {
    setStatus(`Could not load the map: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
}

// MARK: choices (the sample's action sheets)

let settleChoice = null;

/** Closes the menu and answers the pending choose() (null for Cancel/Escape). */
function settle(value) {
  const resolve = settleChoice;
  settleChoice = null;
  if (choiceDialog.open) choiceDialog.close();
  if (resolve) resolve(value);
}

/** Shows a menu of options and resolves with the chosen value, or null when cancelled. */
function choose(title, message, options) {
  settle(null);
  return new Promise((resolve) => {
    $("choice-title").textContent = title;
    $("choice-message").textContent = message || "";
    const list = $("choices");
    list.replaceChildren();
    for (const option of options) {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.value = option.value;
      if (option.icon) {
        const img = document.createElement("img");
        img.src = option.icon;
        img.alt = "";
        b.appendChild(img);
      }
      if (option.color) {
        const swatch = document.createElement("span");
        swatch.className = "color";
        swatch.style.background = option.color;
        b.appendChild(swatch);
      }
      b.appendChild(document.createTextNode(option.title));
      b.addEventListener("click", () => settle(option.value));
      list.appendChild(b);
    }
    settleChoice = resolve;
    choiceDialog.showModal();
  });
}

$("choice-cancel").addEventListener("click", (e) => {
  e.preventDefault();
  settle(null);
});
choiceDialog.addEventListener("cancel", (e) => {
  e.preventDefault();
  settle(null);
});

async function add() {
  if (!state.palette) return;
  const type = await choose("Select Feature", "", [
    { value: "point", title: "Point" },
    { value: "polyline", title: "Polyline" },
    { value: "polygon", title: "Polygon" },
  ]);
  if (!type) return;
  let style;
  if (type === "point") {
    const icon = await choose(
      "Select Icon",
      "This icon will be used for the new feature",
      state.palette.icons.map((i) => ({ value: i.id, title: i.title, icon: `/icons/${i.file}` }))
    );
    if (!icon) return;
    style = { icon };
  } else {
    const message = type === "polyline" ? "This color will be used for the polyline" : "This color will be used to fill the polygon";
    const color = await choose(
      "Select Color",
      message,
      state.palette.colors.map((c) => ({ value: c.hex, title: c.name, color: c.hex }))
    );
    if (!color) return;
    style = { color };
  }
  startSketch(type, style);
}

// MARK: sketching

function startSketch(type, style) {
  state.sketch = { type, style, coordinates: [], undo: [], redo: [], selected: -1 };
  updateToolbar();
  const what = { point: "the point", polyline: "the polyline's vertices", polygon: "the polygon's vertices" }[type];
  setStatus(`Tap on the map to sketch ${what}, then tap Done.`);
  drawSketch();
}

function clicked(x, y) {
  const sketch = state.sketch;
  if (!sketch || choiceDialog.open) return;
  remember();
  if (sketch.type === "point") sketch.coordinates = [[x, y]];
  else sketch.coordinates.push([x, y]);
  sketch.selected = sketch.coordinates.length - 1;
  drawSketch();
}

// The geometry editor (as the sample's sketch editor): drag a vertex, drag an edge's midpoint handle to insert a
// vertex there, delete the selected vertex, undo and redo — all before Done.

/** Saves the sketch's vertices for Undo (and forgets what Redo could restore). */
function remember() {
  const sketch = state.sketch;
  sketch.undo.push(sketch.coordinates.map((c) => c.slice()));
  sketch.redo = [];
}

function undoSketch() {
  const sketch = state.sketch;
  if (!sketch || sketch.undo.length === 0) return;
  sketch.redo.push(sketch.coordinates);
  sketch.coordinates = sketch.undo.pop();
  sketch.selected = Math.min(sketch.selected, sketch.coordinates.length - 1);
  drawSketch();
}

function redoSketch() {
  const sketch = state.sketch;
  if (!sketch || sketch.redo.length === 0) return;
  sketch.undo.push(sketch.coordinates);
  sketch.coordinates = sketch.redo.pop();
  sketch.selected = Math.min(sketch.selected, sketch.coordinates.length - 1);
  drawSketch();
}

function deleteVertex() {
  const sketch = state.sketch;
  if (!sketch || sketch.coordinates.length === 0) return;
  const i = sketch.selected >= 0 && sketch.selected < sketch.coordinates.length ? sketch.selected : sketch.coordinates.length - 1;
  remember();
  sketch.coordinates.splice(i, 1);
  sketch.selected = Math.min(i, sketch.coordinates.length - 1);
  drawSketch();
}

let vertexDrag = null;

/** Starts dragging a vertex (or inserts one at an edge's midpoint and drags it); true when it took the gesture. */
function sketchPointerDown(e) {
  const sketch = state.sketch;
  const handle = sketch && e.target.closest && e.target.closest("[data-vertex], [data-midpoint]");
  if (!handle) return false;
  remember();
  let index;
  if (handle.dataset.midpoint !== undefined) {
    const i = Number(handle.dataset.midpoint);
    const c = sketch.coordinates;
    const a = c[i], b = c[(i + 1) % c.length];
    index = i + 1;
    c.splice(index, 0, [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2]);
  } else {
    index = Number(handle.dataset.vertex);
  }
  sketch.selected = index;
  vertexDrag = { index, id: e.pointerId };
  e.preventDefault();
  drawSketch();
  return true;
}

window.addEventListener("pointermove", (e) => {
  if (!vertexDrag || e.pointerId !== vertexDrag.id || !state.sketch) return;
  const r = $("map").getBoundingClientRect();
  state.sketch.coordinates[vertexDrag.index] = map.toWorld(e.clientX - r.left, e.clientY - r.top);
  drawSketch();
});
window.addEventListener("pointerup", () => {
  vertexDrag = null;
});

function drawSketch() {
  map.clearLayer("sketch");
  map.clearLayer("sketch-vertices");
  const sketch = state.sketch;
  if (!sketch) return;
  const c = sketch.coordinates;
  if (sketch.type === "polyline" && c.length > 1) svg("path", { d: ringsPath([c], false), class: "sketch-line" }, map.worldLayer("sketch"));
  if (sketch.type === "polygon" && c.length > 1) svg("path", { d: ringsPath([c], true), class: "sketch-polygon" }, map.worldLayer("sketch"));
  if (sketch.type !== "point") {
    const edges = sketch.type === "polygon" && c.length > 2 ? c.length : c.length - 1;
    for (let i = 0; i < edges; i++) {
      const a = c[i], b = c[(i + 1) % c.length];
      map.addMarker("sketch-vertices", svg("circle", { r: 3.5, class: "sketch-midpoint", "data-midpoint": i }), (a[0] + b[0]) / 2, (a[1] + b[1]) / 2);
    }
  }
  c.forEach(([x, y], i) => {
    const cls = i === sketch.selected ? "sketch-vertex selected" : "sketch-vertex";
    map.addMarker("sketch-vertices", svg("circle", { r: 5, class: cls, "data-vertex": i }), x, y);
  });
  $("undo").disabled = sketch.undo.length === 0;
  $("redo").disabled = sketch.redo.length === 0;
  $("delete-vertex").disabled = c.length === 0;
}

function completeSketch() {
  const sketch = state.sketch;
  if (!sketch) return;
  const needed = { point: 1, polyline: 2, polygon: 3 }[sketch.type];
  if (sketch.coordinates.length < needed) {
    setStatus(`A ${sketch.type} needs at least ${needed} vertices: tap on the map${needed > 1 ? " to add more" : ""}.`, "warning");
    return;
  }
  state.placemarks.push({ type: sketch.type, coordinates: sketch.coordinates, style: sketch.style });
  state.sketch = null;
  drawSketch();
  drawPlacemarks();
  updateToolbar();
  setStatus(`Added a ${sketch.type}. ${state.placemarks.length} placemark${state.placemarks.length === 1 ? "" : "s"} in the document.`);
}

function cancelSketch() {
  state.sketch = null;
  drawSketch();
  updateToolbar();
  setStatus("Sketch cancelled.");
}

function iconFile(id) {
  const icon = state.palette && state.palette.icons.find((i) => i.id === id);
  return icon ? `/icons/${icon.file}` : "/icons/no-style.png";
}

/** An <image> for a point icon; pins stand on their tip, other icons are centred. */
function iconMarker(layer, href, x, y, pin, title) {
  const g = svg("g", { class: "placemark-point" });
  svg("image", { href, width: 32, height: 32, x: -16, y: pin ? -32 : -16 }, g);
  if (title) g.appendChild(svg("title")).textContent = title;
  map.addMarker(layer, g, x, y);
}

function drawPlacemarks() {
  for (const name of ["areas", "lines", "icons"]) map.clearLayer(name);
  for (const p of state.placemarks) {
    if (p.type === "point") {
      const [x, y] = p.coordinates[0];
      iconMarker("icons", iconFile(p.style.icon), x, y, /pin/.test(p.style.icon), null);
    } else if (p.type === "polyline") {
      svg("path", { d: ringsPath([p.coordinates], false), class: "placemark placemark-line", stroke: p.style.color }, map.worldLayer("lines"));
    } else {
      svg("path", { d: ringsPath([p.coordinates], true), class: "placemark placemark-polygon", fill: p.style.color }, map.worldLayer("areas"));
    }
  }
}

function updateToolbar() {
  const sketching = state.sketch !== null;
  $("add").hidden = sketching;
  $("done").hidden = !sketching;
  $("cancel-sketch").hidden = !sketching;
  for (const id of ["undo", "redo", "delete-vertex"]) $(id).hidden = !sketching;
  $("reset").disabled = sketching;
  $("save").disabled = sketching || state.placemarks.length === 0;
}

// MARK: save, reset, open

async function save() {
  busy(+1);
  try {
    const { name, size } = await download("/api/kml", { name: "Untitled", placemarks: state.placemarks }, "Untitled.kmz");
    setStatus(`Saved ${name} (${size} bytes).`);
    document.body.dataset.saved = name;
  } catch (error) {
    setStatus(`Save failed: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
}

function reset() {
  state.placemarks = [];
  state.sketch = null;
  for (const name of ["areas", "lines", "icons", "opened-areas", "opened-icons", "sketch", "sketch-vertices"]) map.clearLayer(name);
  updateToolbar();
  setStatus("The KML document is empty. Tap Add to sketch a placemark.");
}

/** Draws the placemarks of an opened file (geometries in Web Mercator, styles resolved by the API). */
function drawOpened(result) {
  map.clearLayer("opened-areas");
  map.clearLayer("opened-icons");
  const layer = map.worldLayer("opened-areas");
  let xmin = Infinity, ymin = Infinity, xmax = -Infinity, ymax = -Infinity;
  const extend = (x, y) => {
    xmin = Math.min(xmin, x); ymin = Math.min(ymin, y); xmax = Math.max(xmax, x); ymax = Math.max(ymax, y);
  };
  for (const p of result.placemarks) {
    const s = p.style || {};
    for (const g of p.geometries) {
      if (g.type === "point") {
        extend(g.x, g.y);
        iconMarker("opened-icons", s.icon || "/icons/no-style.png", g.x, g.y, false, p.name);
      } else if (g.type === "polyline") {
        g.paths.forEach((path) => path.forEach(([x, y]) => extend(x, y)));
        const e = svg("path", { d: ringsPath(g.paths, false), class: "placemark placemark-line opened" }, layer);
        // Inline styles: what the file says wins over viewer.css (KML's defaults: white, 1 px).
        Object.assign(e.style, { stroke: s.lineColor || "#ffffff", strokeOpacity: s.lineOpacity ?? 1, strokeWidth: `${s.lineWidth ?? 1}px` });
        if (p.name) e.appendChild(svg("title")).textContent = p.name;
      } else if (g.type === "polygon") {
        g.rings.forEach((ring) => ring.forEach(([x, y]) => extend(x, y)));
        const e = svg("path", { d: ringsPath(g.rings, true), class: "placemark placemark-polygon opened" }, layer);
        // Inline styles: the file's PolyStyle and LineStyle win over viewer.css (KML's defaults: white, 1 px).
        Object.assign(e.style, {
          fill: s.fill === false ? "none" : s.fillColor || "#ffffff",
          fillOpacity: s.fillOpacity ?? 1,
          stroke: s.outline === false ? "none" : s.lineColor || "#ffffff",
          strokeOpacity: s.lineOpacity ?? 1,
          strokeWidth: `${s.lineWidth ?? 1}px`,
        });
        if (p.name) e.appendChild(svg("title")).textContent = p.name;
      }
    }
  }
  if (xmin <= xmax) {
    const pad = Math.max(xmax - xmin, ymax - ymin, 20000) * 0.1;
    map.fit(Math.max(xmin - pad, -WORLD), Math.max(ymin - pad, -WORLD), Math.min(xmax + pad, WORLD), Math.min(ymax + pad, WORLD), 30);
  }
}

async function open(file) {
  busy(+1);
  try {
    const response = await fetch("/api/kml/open", { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: file });
    const value = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(value.error || `${response.status} ${response.statusText}`);
    drawOpened(value);
    const skipped = value.skipped ? ` (${value.skipped} without a drawable geometry skipped)` : "";
    setStatus(`Opened ${file.name}: ${value.placemarks.length} placemark${value.placemarks.length === 1 ? "" : "s"}${skipped}.`);
    document.body.dataset.opened = String(value.placemarks.length);
  } catch (error) {
    setStatus(`Could not open ${file.name}: ${error.message}`, "error");
  } finally {
    busy(-1);
  }
}

$("add").addEventListener("click", add);
$("done").addEventListener("click", completeSketch);
$("cancel-sketch").addEventListener("click", cancelSketch);
$("undo").addEventListener("click", undoSketch);
$("redo").addEventListener("click", redoSketch);
$("delete-vertex").addEventListener("click", deleteVertex);
window.addEventListener("keydown", (e) => {
  if (!state.sketch || choiceDialog.open) return;
  const key = e.key.toLowerCase();
  if ((e.ctrlKey || e.metaKey) && key === "z" && !e.shiftKey) undoSketch();
  else if ((e.ctrlKey || e.metaKey) && (key === "y" || (key === "z" && e.shiftKey))) redoSketch();
  else if (key === "delete" || key === "backspace") deleteVertex();
  else return;
  e.preventDefault();
});
$("save").addEventListener("click", save);
// The seed's KML sample uses a dark gray basemap (light colours wash out on a light one): dark by default.
$("basemap").addEventListener("change", (e) => $("map-wrap").classList.toggle("dark", e.target.value === "dark"));
$("reset").addEventListener("click", reset);
$("open").addEventListener("change", (e) => {
  const file = e.target.files && e.target.files[0];
  if (file) open(file);
  e.target.value = "";
});

load();
