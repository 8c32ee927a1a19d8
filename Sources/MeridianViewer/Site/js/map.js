// Meridian viewer: a small SVG map with pan and zoom, in any projected coordinate system (y up).
// World-space layers (polygons, lines) live in one <g> with a transform; strokes keep their pixel width through
// vector-effect: non-scaling-stroke. Screen-space layers (point markers, labels, icons) are re-placed on every view
// change so they keep their pixel size. No geometry is computed here beyond that: the Swift API does the rest.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";

/** Creates an SVG element with attributes. */
export function svg(name, attributes = {}, parent = null) {
  const element = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attributes)) element.setAttribute(k, v);
  if (parent) parent.appendChild(element);
  return element;
}

/** "M x y L x y … Z" for rings given as [[x, y], …] arrays. */
export function ringsPath(rings, close = true) {
  let d = "";
  for (const ring of rings) {
    if (!ring || ring.length === 0) continue;
    d += "M" + ring[0][0] + " " + ring[0][1];
    for (let i = 1; i < ring.length; i++) d += "L" + ring[i][0] + " " + ring[i][1];
    if (close) d += "Z";
  }
  return d;
}

/** The same for flat rings [x0, y0, x1, y1, …] (the basemap's format). */
export function flatRingsPath(rings) {
  let d = "";
  for (const r of rings) {
    if (r.length < 4) continue;
    d += "M" + r[0] + " " + r[1];
    for (let i = 2; i < r.length; i += 2) d += "L" + r[i] + " " + r[i + 1];
    d += "Z";
  }
  return d;
}

/** Every ring of an API polygon ({parts: [{shell, holes}]}). */
export function polygonRings(polygon) {
  const rings = [];
  for (const part of polygon.parts) {
    rings.push(part.shell);
    for (const hole of part.holes) rings.push(hole);
  }
  return rings;
}

/** Candidate boxes ([left, top, right, bottom] in pixels, with the place of the text) for a label at px, py. */
function labelBoxes(label, px, py) {
  const { width: w, height: h } = label;
  if (label.kind === "area") return [withBox([px - w / 2 - 2, py - h / 2 - 2, px + w / 2 + 2, py + h / 2 + 2], "area")];
  if (!label.kind) return [withBox([px - 4, py - h, px + w, py + 4], null)]; // a marker with a fixed label
  return [
    withBox([px - 3, py - h - 3, px + w + 8, py + 3], "ne"),
    withBox([px - 3, py - 3, px + w + 8, py + h + 3], "se"),
    withBox([px - w - 8, py - h - 3, px + 3, py + 3], "nw"),
    withBox([px - w - 8, py - 3, px + 3, py + h + 3], "sw"),
  ];
}

function withBox(box, place) {
  return { box, place };
}

/** Puts a label's text where its chosen box is (relative to the label's anchor point). */
function placeText(text, place) {
  if (!place || place === "area" || text.dataset.place === place) return;
  const right = place[1] === "e";
  const below = place[0] === "s";
  text.setAttribute("x", right ? 5 : -5);
  text.setAttribute("y", below ? 12 : -4);
  text.setAttribute("text-anchor", right ? "start" : "end");
  text.dataset.place = place;
}

export class MapView {
  /**
   * @param {SVGSVGElement} element the <svg> to draw into
   * @param {{onClick?: (x: number, y: number, event: MouseEvent) => void, minScale?: number, maxScale?: number}} options
   */
  constructor(element, options = {}) {
    this.element = element;
    this.onClick = options.onClick || null;
    /** Called on a primary pointerdown; returning true takes the gesture from panning and clicking. */
    this.onPointerDown = options.onPointerDown || null;
    this.onViewChange = null;
    this.scale = 1; // pixels per world unit
    this.tx = 0;
    this.ty = 0;
    /** Elements over the map (controls, legend, attribution): no label is placed under them. */
    this.obstacles = options.obstacles || [];
    this.minScale = options.minScale || 1e-9;
    this.maxScale = options.maxScale || 1e3;
    this.world = svg("g", { class: "world" }, element);
    this.screen = svg("g", { class: "screen" }, element);
    this.markers = []; // {element, x, y, dx, dy}
    this.screenOffset = [0, 0]; // how far the screen layers are moved by a pan since the last apply()
    this.laidOut = { scale: NaN, tx: 0, ty: 0 }; // the view the markers were last placed for
    this.worldLayers = new Map();
    this.screenLayers = new Map();
    this.home = null;
    this.installGestures();
    new ResizeObserver(() => this.apply()).observe(element);
  }

  /** A world-space layer (created on first use, in call order). */
  worldLayer(name) {
    if (!this.worldLayers.has(name)) this.worldLayers.set(name, svg("g", { class: "layer " + name }, this.world));
    return this.worldLayers.get(name);
  }

  /** A screen-space layer for markers and labels. */
  screenLayer(name) {
    if (!this.screenLayers.has(name)) this.screenLayers.set(name, svg("g", { class: "layer " + name }, this.screen));
    return this.screenLayers.get(name);
  }

  /**
   * Places an element (circle, image, text, g) at a world position, offset by dx, dy pixels, shown from minScale on.
   * A marker with a `label` ({width, height} in pixels, drawn right of and above the position) is only shown where
   * it does not overlap a label placed before it: add labelled markers in order of importance.
   */
  addMarker(layerName, element, x, y, dx = 0, dy = 0, minScale = 0, label = null) {
    this.screenLayer(layerName).appendChild(element);
    const marker = { element, x, y, dx, dy, minScale, maxScale: Infinity, layer: layerName, label };
    this.markers.push(marker);
    this.placeMarker(marker);
    return element;
  }

  /**
   * A name on the map (a <g> holding a <text>, and for a point a dot), shown between minScale and maxScale where it
   * fits: a point's name is tried right-above, right-below, left-above and left-below its dot, an area's name is
   * centred on its position, and a name is hidden where it would overlap one placed before it or be cut by the
   * map's edge. Add names in order of importance.
   * @param {{kind: "point"|"area", minScale?: number, maxScale?: number}} options
   */
  addLabel(layerName, group, text, x, y, options) {
    this.screenLayer(layerName).appendChild(group);
    // Measured once, as drawn (about 7 px a character if the browser cannot tell yet).
    const width = Math.ceil(text.getComputedTextLength()) || 7 * text.textContent.length;
    const marker = { element: group, x, y, dx: 0, dy: 0, minScale: options.minScale || 0, maxScale: options.maxScale || Infinity,
      layer: layerName, label: { width, height: options.height || 13, kind: options.kind, text } };
    this.markers.push(marker);
    this.placeMarker(marker);
    return group;
  }

  /** Removes every child of a layer (world or screen) and forgets its markers. */
  clearLayer(name) {
    const layer = this.worldLayers.get(name) || this.screenLayers.get(name);
    if (layer) layer.replaceChildren();
    this.markers = this.markers.filter((m) => m.layer !== name);
  }

  size() {
    const r = this.element.getBoundingClientRect();
    return { width: Math.max(1, r.width), height: Math.max(1, r.height) };
  }

  /** Shows a world rectangle, with a margin in pixels. */
  fit(xmin, ymin, xmax, ymax, margin = 20) {
    this.home = [xmin, ymin, xmax, ymax, margin];
    const { width, height } = this.size();
    const s = Math.min((width - 2 * margin) / Math.max(xmax - xmin, 1e-9), (height - 2 * margin) / Math.max(ymax - ymin, 1e-9));
    this.scale = Math.max(s, 1e-12);
    this.tx = width / 2 - ((xmin + xmax) / 2) * this.scale;
    this.ty = height / 2 + ((ymin + ymax) / 2) * this.scale;
    this.apply();
  }

  /** Back to the last fitted rectangle. */
  goHome() {
    if (this.home) this.fit(...this.home);
  }

  /** World → screen pixels (relative to the SVG's top-left corner). */
  toScreen(x, y) {
    return [x * this.scale + this.tx, -y * this.scale + this.ty];
  }

  /** Screen pixels → world. */
  toWorld(px, py) {
    return [(px - this.tx) / this.scale, -(py - this.ty) / this.scale];
  }

  /** Zooms by a factor around a screen point. */
  zoomAt(factor, px, py) {
    const next = Math.min(this.maxScale, Math.max(this.minScale, this.scale * factor));
    const [wx, wy] = this.toWorld(px, py);
    this.scale = next;
    this.tx = px - wx * next;
    this.ty = py + wy * next;
    this.apply();
  }

  placeMarker(m) {
    const [px, py] = this.toScreen(m.x, m.y);
    const [ox, oy] = this.screenOffset;
    m.element.setAttribute("transform", `translate(${(px + m.dx - ox).toFixed(1)} ${(py + m.dy - oy).toFixed(1)})`);
    m.element.style.display = this.scale >= m.minScale && this.scale < m.maxScale ? "" : "none";
  }

  /**
   * Shows a pan (same scale, new tx/ty) without placing every marker and label again: the screen layers move as
   * one (a transform on their group) until the next apply(), which the end of the gesture makes.
   */
  pan() {
    if (this.laidOut.scale !== this.scale) return this.apply();
    this.world.setAttribute("transform", `matrix(${this.scale} 0 0 ${-this.scale} ${this.tx} ${this.ty})`);
    this.screenOffset = [this.tx - this.laidOut.tx, this.ty - this.laidOut.ty];
    this.screen.setAttribute("transform", `translate(${this.screenOffset[0]} ${this.screenOffset[1]})`);
    if (this.onViewChange) this.onViewChange();
  }

  /** Applies the view: the world layers' transform, every marker's place and which labels fit. */
  apply() {
    this.world.setAttribute("transform", `matrix(${this.scale} 0 0 ${-this.scale} ${this.tx} ${this.ty})`);
    this.screenOffset = [0, 0];
    this.screen.removeAttribute("transform");
    this.laidOut = { scale: this.scale, tx: this.tx, ty: this.ty };
    const { width, height } = this.size();
    const origin = this.element.getBoundingClientRect();
    const placed = this.obstacles.map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0)
      .map((r) => [r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top]);
    const free = (box) => box[0] >= 0 && box[2] <= width && box[1] >= 0 && box[3] <= height
      && !placed.some((b) => b[0] < box[2] && box[0] < b[2] && b[1] < box[3] && box[1] < b[3]);
    for (const m of this.markers) {
      if (!m.label) {
        this.placeMarker(m);
        continue;
      }
      // Whole labels only: one that would be cut by the map's edge or cover another is hidden, not clipped. Only
      // the shown ones are moved (fewer style changes for the browser to apply).
      const [px, py] = this.toScreen(m.x, m.y);
      const inRange = this.scale >= m.minScale && this.scale < m.maxScale;
      const box = inRange ? labelBoxes(m.label, px, py).find((candidate) => free(candidate.box)) : null;
      if (!box) {
        if (m.element.style.display !== "none") m.element.style.display = "none";
        continue;
      }
      placed.push(box.box);
      if (m.label.text) placeText(m.label.text, box.place);
      this.placeMarker(m);
    }
    if (this.onViewChange) this.onViewChange();
  }

  installGestures() {
    const el = this.element;
    let drag = null;
    el.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      if (this.onPointerDown && this.onPointerDown(e)) return; // claimed (e.g. a sketch vertex being dragged)
      drag = { x: e.clientX, y: e.clientY, tx: this.tx, ty: this.ty, moved: false, id: e.pointerId };
    });
    el.addEventListener("pointermove", (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) {
        drag.moved = true;
        el.setPointerCapture(e.pointerId);
        el.classList.add("panning");
      }
      this.tx = drag.tx + dx;
      this.ty = drag.ty + dy;
      this.pan();
    });
    const end = (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const wasDrag = drag.moved;
      drag = null;
      el.classList.remove("panning");
      if (wasDrag) this.apply(); // labels placed for where the pan ended
      if (!wasDrag && this.onClick && e.type === "pointerup") {
        const r = el.getBoundingClientRect();
        const [x, y] = this.toWorld(e.clientX - r.left, e.clientY - r.top);
        this.onClick(x, y, e);
      }
    };
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
    el.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const r = el.getBoundingClientRect();
        this.zoomAt(Math.pow(1.0015, -e.deltaY), e.clientX - r.left, e.clientY - r.top);
      },
      { passive: false }
    );
    el.addEventListener("dblclick", (e) => e.preventDefault());
  }

  /** Zoom buttons (+, −, home) in a container. */
  addControls(container) {
    const button = (label, title, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.title = title;
      b.addEventListener("click", action);
      container.appendChild(b);
      return b;
    };
    const center = () => {
      const { width, height } = this.size();
      return [width / 2, height / 2];
    };
    button("+", "Zoom in", () => this.zoomAt(1.6, ...center()));
    button("\u2212", "Zoom out", () => this.zoomAt(1 / 1.6, ...center()));
    button("\u2302", "Whole area", () => this.goHome());
  }
}

/** GET/POST JSON; rejects with the API's {error} message on 4xx/5xx. */
export async function api(path, body = undefined) {
  const init = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const text = await response.text();
  let value = null;
  try {
    value = text ? JSON.parse(text) : null;
  } catch {
    value = null;
  }
  if (!response.ok) throw new Error((value && value.error) || `${response.status} ${response.statusText}`);
  return value;
}

/** POSTs a body and saves the answer as a download; rejects with the API's {error} message. */
export async function download(path, body, fallbackName) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": body instanceof Blob ? "application/octet-stream" : "application/json" },
    body: body instanceof Blob ? body : JSON.stringify(body),
  });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      message = (await response.json()).error || message;
    } catch {
      /* not JSON */
    }
    throw new Error(message);
  }
  const name = dispositionName(response.headers.get("Content-Disposition") || "") || fallbackName;
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return { name, size: blob.size };
}

/**
 * The file name of a Content-Disposition header (RFC 6266): the UTF-8 `filename*` when there is one, else the
 * ASCII `filename`; null when neither.
 */
export function dispositionName(header) {
  const extended = /filename\*=UTF-8''([^;\s]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      /* malformed percent-encoding: fall back to the ASCII name */
    }
  }
  const plain = /filename="([^"]*)"/.exec(header);
  return plain && plain[1] ? plain[1] : null;
}
