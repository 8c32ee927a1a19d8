// Page 2: "Create and save KML" (Web Mercator). The page sketches vertices; the Swift API projects them to WGS84,
// builds the KML document with its styles and packs the KMZ, and reads opened KML/KMZ files. An opened file can be
// edited (its points, lines and polygons without holes: vertices and style; any placemark deleted; new ones added)
// and saved again: the page sends the file back with its edits and the API applies them to the document it reads,
// so what the page does not show (folders, overlays, network links, descriptions, …) is saved as it was.
"use strict";

import { Basemap } from "./basemap.js";
import { MapView, api, download, polygonRings, ringsPath, svg } from "./map.js";
import { $, busy, setStatus } from "./page.js";

const choiceDialog = $("choice-dialog");
const WORLD = 20037508.342789244;

const state = {
  palette: null,
  // New: {type: "point"|"polyline"|"polygon", coordinates: [[x, y]…], style: {icon?, color?}}. Opened: also
  // {id, name, fileStyle, geometries, kind?, edited?, restyled?}; type is null when the editor cannot edit it, and
  // a vertex is [x, y, k] while it derives from the file's vertex k (the API then keeps the file's coordinate).
  placemarks: [],
  sketch: null, // {type, style, coordinates, undo, redo, selected, target?: index of the placemark edited}
  opened: null, // {bytes, name, deleted: [ids], unmodeled}
};

// From the whole world (1 px = 65 km) to 1 px = 10 cm.
const map = new MapView($("map"), { onClick: (x, y, e) => clicked(x, y, e), onPointerDown: (e) => sketchPointerDown(e), minScale: 1.5e-5, maxScale: 10,
  obstacles: [$("zoom"), $("attribution")] });
map.addControls($("zoom"));
const basemap = new Basemap(map, "/data/world-3857.json");
window.meridianViewer = { map, state, basemap };

for (const name of ["opened-areas", "areas", "lines", "sketch"]) map.worldLayer(name);
for (const name of ["opened-icons", "icons", "sketch-vertices"]) map.screenLayer(name);

async function load() {
  busy(+1);
  try {
    const [, palette] = await Promise.all([basemap.load(), api("/api/kml/palette")]);
    state.palette = palette;
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
  const style = await chooseStyle(type);
  if (style) startSketch(type, style);
}

/** The sample's icon menu (points) or color menu (lines, polygons); null when cancelled. */
async function chooseStyle(type, restyling = false) {
  if (type === "point") {
    const icon = await choose(
      "Select Icon",
      restyling ? "This icon will be used for the point" : "This icon will be used for the new feature",
      state.palette.icons.map((i) => ({ value: i.id, title: i.title, icon: `/icons/${i.file}` }))
    );
    return icon ? { icon } : null;
  }
  const message = type === "polyline" ? "This color will be used for the polyline" : "This color will be used to fill the polygon";
  const color = await choose(
    "Select Color",
    message,
    state.palette.colors.map((c) => ({ value: c.hex, title: c.name, color: c.hex }))
  );
  return color ? { color } : null;
}

// MARK: sketching

function startSketch(type, style) {
  state.sketch = { type, style, coordinates: [], undo: [], redo: [], selected: -1 };
  updateToolbar();
  const what = { point: "the point", polyline: "the polyline's vertices", polygon: "the polygon's vertices" }[type];
  setStatus(`Tap on the map to sketch ${what}, then tap Done.`);
  drawSketch();
}

function clicked(x, y, e) {
  const sketch = state.sketch;
  if (choiceDialog.open) return;
  // Nothing being edited, or a placemark the editor cannot change selected: a tap selects a placemark.
  if (!sketch || !sketch.type) {
    const hit = e && e.target && e.target.closest && e.target.closest("[data-placemark]");
    if (hit) select(Number(hit.dataset.placemark));
    return;
  }
  remember();
  if (sketch.type === "point") sketch.coordinates = [[x, y, ...sketch.coordinates.flatMap((c) => c.slice(2))]];
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
  // A moved vertex keeps the file vertex it came from (the API keeps that vertex's altitude).
  const old = state.sketch.coordinates[vertexDrag.index];
  state.sketch.coordinates[vertexDrag.index] = [...map.toWorld(e.clientX - r.left, e.clientY - r.top), ...old.slice(2)];
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

// MARK: editing placemarks of the document (opened or added)

function placemarkName(p) {
  return p.name ? `“${p.name}”` : p.type ? `the ${p.type}` : "the placemark";
}

/** Starts editing placemark i (its vertices and style with the sketch editor), or selects one it cannot edit. */
function select(i) {
  const p = state.placemarks[i];
  if (!p) return;
  state.sketch = { type: p.type, style: p.style, coordinates: p.type ? p.coordinates.map((c) => c.slice()) : [], undo: [], redo: [], selected: -1, target: i };
  updateToolbar();
  drawPlacemarks();
  drawSketch();
  document.body.dataset.editing = String(i);
  if (p.type) {
    const how = p.type === "point" ? "drag it or tap where it should be" : "drag a vertex, or a midpoint to insert one; tap the map to add one";
    setStatus(`Editing ${placemarkName(p)}: ${how}. Done keeps the changes.`);
  } else {
    setStatus(`${placemarkName(p)} is ${p.kind}: the editor cannot change it, and it is saved as it is. Delete placemark removes it.`);
  }
}

async function restyle() {
  const sketch = state.sketch;
  if (!sketch || !sketch.type) return;
  const style = await chooseStyle(sketch.type, true);
  if (!style || state.sketch !== sketch) return;
  sketch.style = style;
  sketch.restyled = true;
  setStatus(`New style chosen for ${placemarkName(state.placemarks[sketch.target])}: tap Done to keep it.`);
}

function deletePlacemark() {
  const sketch = state.sketch;
  if (!sketch || sketch.target === undefined) return;
  const [p] = state.placemarks.splice(sketch.target, 1);
  if (p.id !== undefined && state.opened) state.opened.deleted.push(p.id);
  state.sketch = null;
  delete document.body.dataset.editing;
  drawSketch();
  drawPlacemarks();
  updateToolbar();
  setStatus(`Deleted ${placemarkName(p)}. ${documentSummary()}`);
}

function documentSummary() {
  const n = state.placemarks.length;
  return `${n} placemark${n === 1 ? "" : "s"} in the document.`;
}

function completeSketch() {
  const sketch = state.sketch;
  if (!sketch) return;
  if (sketch.target !== undefined && !sketch.type) {
    state.sketch = null;
    delete document.body.dataset.editing;
    drawPlacemarks();
    updateToolbar();
    setStatus(documentSummary());
    return;
  }
  const needed = { point: 1, polyline: 2, polygon: 3 }[sketch.type];
  if (sketch.coordinates.length < needed) {
    setStatus(`A ${sketch.type} needs at least ${needed} vertices: tap on the map${needed > 1 ? " to add more" : ""}.`, "warning");
    return;
  }
  state.sketch = null;
  delete document.body.dataset.editing;
  if (sketch.target !== undefined) {
    const p = state.placemarks[sketch.target];
    if (JSON.stringify(p.coordinates) !== JSON.stringify(sketch.coordinates)) {
      p.coordinates = sketch.coordinates;
      p.edited = true;
    }
    if (sketch.restyled) {
      p.style = sketch.style;
      p.restyled = true;
    }
    setStatus(`Updated ${placemarkName(p)}. ${documentSummary()}`);
  } else {
    state.placemarks.push({ type: sketch.type, coordinates: sketch.coordinates, style: sketch.style });
    setStatus(`Added a ${sketch.type}. ${documentSummary()}`);
  }
  drawSketch();
  drawPlacemarks();
  updateToolbar();
}

function cancelSketch() {
  const editing = state.sketch && state.sketch.target !== undefined;
  state.sketch = null;
  delete document.body.dataset.editing;
  drawSketch();
  drawPlacemarks();
  updateToolbar();
  setStatus(editing ? `Edit cancelled. ${documentSummary()}` : "Sketch cancelled.");
}

function iconFile(id) {
  const icon = state.palette && state.palette.icons.find((i) => i.id === id);
  return icon ? `/icons/${icon.file}` : "/icons/no-style.png";
}

/** An <image> for a point icon; pins stand on their tip, other icons are centred. */
function iconMarker(layer, href, x, y, pin, title, index) {
  const g = svg("g", { class: "placemark-point", "data-placemark": index });
  svg("image", { href, width: 32, height: 32, x: -16, y: pin ? -32 : -16 }, g);
  if (title) g.appendChild(svg("title")).textContent = title;
  map.addMarker(layer, g, x, y);
}

/** A transparent wide stroke over a line, so that a tap near it selects it. */
function hitLine(d, layer, index) {
  svg("path", { d, class: "hit-line", "data-placemark": index }, layer);
}

/** Draws every placemark of the document but the one being edited (the sketch shows that one); one selected
 * that the editor cannot change is drawn highlighted. */
function drawPlacemarks() {
  for (const name of ["areas", "lines", "icons", "opened-areas", "opened-icons"]) map.clearLayer(name);
  const target = state.sketch ? state.sketch.target : undefined;
  state.placemarks.forEach((p, i) => {
    if (i === target && p.type) return;
    if (p.style) drawPaletteStyled(p, i);
    else drawFileStyled(p, i);
  });
  if (target !== undefined) for (const e of document.querySelectorAll(`#map [data-placemark="${target}"]`)) e.classList.add("selected");
}

function drawPaletteStyled(p, i) {
  if (p.type === "point") {
    const [x, y] = p.coordinates[0];
    iconMarker("icons", iconFile(p.style.icon), x, y, /pin/.test(p.style.icon), p.name, i);
  } else if (p.type === "polyline") {
    const d = ringsPath([p.coordinates], false);
    svg("path", { d, class: "placemark placemark-line", stroke: p.style.color, "data-placemark": i }, map.worldLayer("lines"));
    hitLine(d, map.worldLayer("lines"), i);
  } else {
    svg("path", { d: ringsPath([p.coordinates], true), class: "placemark placemark-polygon", fill: p.style.color, "data-placemark": i }, map.worldLayer("areas"));
  }
}

/** An opened placemark as its file styles it (geometry edited or not). */
function drawFileStyled(p, i) {
  const s = p.fileStyle || {};
  const layer = map.worldLayer("opened-areas");
  const geometries = p.edited ? [editedGeometry(p)] : p.geometries;
  for (const g of geometries) {
    if (g.type === "point") {
      iconMarker("opened-icons", s.icon || "/icons/no-style.png", g.x, g.y, false, p.name, i);
    } else if (g.type === "multipoint") {
      for (const [x, y] of g.points) iconMarker("opened-icons", s.icon || "/icons/no-style.png", x, y, false, p.name, i);
    } else if (g.type === "polyline") {
      const d = ringsPath(g.paths, false);
      const e = svg("path", { d, class: "placemark placemark-line opened", "data-placemark": i }, layer);
      // Inline styles: what the file says wins over viewer.css (KML's defaults: white, 1 px).
      Object.assign(e.style, { stroke: s.lineColor || "#ffffff", strokeOpacity: s.lineOpacity ?? 1, strokeWidth: `${s.lineWidth ?? 1}px` });
      if (p.name) e.appendChild(svg("title")).textContent = p.name;
      hitLine(d, layer, i);
    } else if (g.type === "polygon") {
      const e = svg("path", { d: ringsPath(polygonRings(g), true), class: "placemark placemark-polygon opened", "data-placemark": i }, layer);
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

/** The API's geometry for an edited placemark's vertices. */
function editedGeometry(p) {
  const c = p.coordinates;
  if (p.type === "point") return { type: "point", x: c[0][0], y: c[0][1] };
  if (p.type === "polyline") return { type: "polyline", paths: [c] };
  return { type: "polygon", parts: [{ shell: [...c, c[0]], holes: [] }] };
}

function updateToolbar() {
  const sketching = state.sketch !== null;
  const editing = sketching && state.sketch.target !== undefined;
  const editable = sketching && state.sketch.type !== null;
  $("add").hidden = sketching;
  $("done").hidden = !sketching;
  $("cancel-sketch").hidden = !sketching;
  for (const id of ["undo", "redo", "delete-vertex"]) $(id).hidden = !editable;
  $("restyle").hidden = !(editing && editable);
  $("delete-placemark").hidden = !editing;
  $("reset").disabled = sketching;
  // The file input hides inside its label: the label shows (and takes) the disabled state.
  $("open").disabled = sketching;
  $("open-label").classList.toggle("disabled", sketching);
  $("open-label").setAttribute("aria-disabled", String(sketching));
  $("save").disabled = sketching || (state.placemarks.length === 0 && !state.opened);
}

// MARK: save, reset, open

/** Base64 of bytes (in slices: String.fromCharCode takes a bounded number of arguments). */
function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

/** The body of POST /api/kml: the new placemarks, and the opened file with the edits of its placemarks. */
async function saveRequest() {
  const added = state.placemarks.filter((p) => p.id === undefined)
    .map((p) => ({ type: p.type, coordinates: p.coordinates.map((c) => [c[0], c[1]]), style: p.style }));
  if (!state.opened) return { body: { name: "Untitled", placemarks: added }, summary: "" };
  const edits = state.opened.deleted.map((id) => ({ id, delete: true }));
  for (const p of state.placemarks) {
    if (p.id === undefined || !(p.edited || p.restyled)) continue;
    edits.push({ id: p.id, coordinates: p.edited ? p.coordinates : undefined, style: p.restyled ? p.style : undefined });
  }
  const changed = edits.length - state.opened.deleted.length;
  const summary = ` ${changed} placemark${changed === 1 ? "" : "s"} edited, ${state.opened.deleted.length} deleted, ${added.length} added;`
    + " everything else as it was in the file.";
  const body = { name: state.opened.name, placemarks: added, source: { data: base64(state.opened.bytes), edits } };
  return { body, summary };
}

async function save() {
  busy(+1);
  try {
    const { body, summary } = await saveRequest();
    const { name, size } = await download("/api/kml", body, `${body.name}.kmz`);
    setStatus(`Saved ${name} (${size} bytes).${summary}`);
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
  state.opened = null;
  delete document.body.dataset.opened;
  for (const name of ["areas", "lines", "icons", "opened-areas", "opened-icons", "sketch", "sketch-vertices"]) map.clearLayer(name);
  updateToolbar();
  setStatus("The KML document is empty. Tap Add to sketch a placemark.");
}

/** The page's entry for an opened placemark: editable ones carry their vertices as [x, y, k]. */
function openedPlacemark(p) {
  const entry = { id: p.id, name: p.name, type: p.edit || null, kind: p.kind, fileStyle: p.style || {}, geometries: p.geometries, style: null };
  const g = p.geometries[0];
  if (p.edit === "point") entry.coordinates = [[g.x, g.y, 0]];
  else if (p.edit === "polyline") entry.coordinates = g.paths[0].map(([x, y], k) => [x, y, k]);
  else if (p.edit === "polygon") {
    const ring = g.parts[0].shell, last = ring[ring.length - 1];
    const closed = ring.length > 1 && last[0] === ring[0][0] && last[1] === ring[0][1];
    entry.coordinates = (closed ? ring.slice(0, -1) : ring).map(([x, y], k) => [x, y, k]);
  }
  return entry;
}

/** Fits the map to the opened placemarks. */
function fitOpened(result) {
  let xmin = Infinity, ymin = Infinity, xmax = -Infinity, ymax = -Infinity;
  const extend = ([x, y]) => {
    xmin = Math.min(xmin, x); ymin = Math.min(ymin, y); xmax = Math.max(xmax, x); ymax = Math.max(ymax, y);
  };
  for (const p of result.placemarks) {
    for (const g of p.geometries) {
      if (g.type === "point") extend([g.x, g.y]);
      else if (g.type === "multipoint") g.points.forEach(extend);
      else if (g.type === "polyline") g.paths.forEach((path) => path.forEach(extend));
      else if (g.type === "polygon") polygonRings(g).forEach((ring) => ring.forEach(extend));
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
    // The bytes read now are the ones saved back (the file on disk may change meanwhile; the ids are theirs).
    const bytes = await file.arrayBuffer();
    const response = await fetch("/api/kml/open", { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: bytes });
    const value = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(value.error || `${response.status} ${response.statusText}`);
    // The opened file becomes the document; placemarks sketched before are kept and will be added to it.
    const added = state.placemarks.filter((p) => p.id === undefined);
    state.placemarks = [...value.placemarks.map(openedPlacemark), ...added];
    state.opened = { bytes, name: file.name.replace(/\.(km[lz]|gpkg|zip|fgb|geojsons?|json|csv|txt)$/i, "") || "Untitled", deleted: [], unmodeled: value.unmodeled };
    drawPlacemarks();
    fitOpened(value);
    updateToolbar();
    const n = value.placemarks.length;
    const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;
    const fixed = value.placemarks.filter((p) => !p.edit);
    const notes = [];
    if (fixed.length) {
      const kinds = [...new Set(fixed.map((p) => p.kind))].join(", ");
      notes.push(`${plural(fixed.length, "placemark")} the editor cannot change (${kinds})`);
    }
    if (value.skipped) notes.push(`${plural(value.skipped, "placemark")} without a drawable geometry`);
    if (value.unmodeled) notes.push(`${plural(value.unmodeled, "overlay")}, network links or other features the page does not show`);
    const kept = notes.length ? ` Saved as they are: ${notes.join("; ")}.` : "";
    setStatus(`Opened ${file.name}: ${plural(n, "placemark")}; tap one to edit it.${kept} Saving keeps everything in the file but its XML comments.`);
    document.body.dataset.opened = String(n);
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
$("restyle").addEventListener("click", restyle);
$("delete-placemark").addEventListener("click", deletePlacemark);
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
