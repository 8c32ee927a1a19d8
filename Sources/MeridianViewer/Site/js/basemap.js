// The offline basemap of both pages (data/*.json, made by scripts/make-basemap.py): land, lakes, islands in lakes
// and ponds from GSHHG, drawn in that order; rivers; national and state borders; counties (page 1); names of
// countries, US states and cities. An overview file is always drawn; a detail file (a finer shoreline of a region)
// is fetched the first time the map is zoomed in past its scale, and from then on drawn instead of the overview
// inside its region whenever the map is at least that close.
"use strict";

import { flatRingsPath, svg } from "./map.js";
import { whileBusy } from "./page.js";

/** World layers, bottom to top; created before the page's own so that they lie under them. */
const POLYGON_LAYERS = ["land", "lakes", "islands", "ponds"];
const LINE_LAYERS = ["rivers", "counties", "stateBorders", "borders"];
const CLASSES = { land: "bm-land", lakes: "bm-water", islands: "bm-land", ponds: "bm-water", rivers: "bm-river",
  counties: "county", stateBorders: "bm-state-border", borders: "bm-border" };

/**
 * An SVG path for rings or lines stored as a first vertex and steps ([x0, y0, dx1, dy1, …], the data files' form):
 * "M x0 y0 l dx1 dy1 …", closed with "z" for rings. The steps are whole numbers, so the vertices are exact.
 */
function stepsPath(items, close) {
  let d = "";
  for (const s of items) {
    if (s.length < 4) continue;
    d += "M" + s[0] + " " + s[1] + "l" + s.slice(2).join(" ") + (close ? "z" : "");
  }
  return d;
}

/** Rings or lines grouped by the cell of an n x n grid over their first vertices' extent that holds that vertex. */
function cells(items, n) {
  let xmin = Infinity, ymin = Infinity, xmax = -Infinity, ymax = -Infinity;
  for (const s of items) {
    xmin = Math.min(xmin, s[0]); xmax = Math.max(xmax, s[0]); ymin = Math.min(ymin, s[1]); ymax = Math.max(ymax, s[1]);
  }
  const w = (xmax - xmin) / n || 1, h = (ymax - ymin) / n || 1;
  const groups = new Map();
  for (const s of items) {
    const key = Math.min(n - 1, Math.floor((s[0] - xmin) / w)) * n + Math.min(n - 1, Math.floor((s[1] - ymin) / h));
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  return [...groups.keys()].sort((a, b) => a - b).map((k) => groups.get(k));
}

/** Whether a point lies inside a flat ring [x0, y0, x1, y1, …] (even-odd). */
function inside(ring, x, y) {
  let odd = false;
  for (let i = 0, j = ring.length - 2; i < ring.length; j = i, i += 2) {
    const yi = ring[i + 1], yj = ring[j + 1];
    if ((yi > y) !== (yj > y) && x < ring[j] + ((y - yj) * (ring[i] - ring[j])) / (yi - yj)) odd = !odd;
  }
  return odd;
}

export class Basemap {
  /**
   * @param {import("./map.js").MapView} map the page's map (its world layers are created here, first)
   * @param {string} url the overview file
   */
  constructor(map, url) {
    this.map = map;
    this.url = url;
    this.detail = null; // {minScale, url, loaded: Promise|null, ready: boolean, active: boolean}
    this.groups = {};
    for (const name of [...POLYGON_LAYERS, ...LINE_LAYERS]) {
      const layer = map.worldLayer(`basemap-${name}`);
      this.groups[name] = { overview: svg("g", { class: "overview" }, layer), detail: svg("g", { class: "detail" }, layer) };
    }
    map.screenLayer("labels");
    const defs = svg("defs", {}, map.element);
    this.clip = svg("clipPath", { id: "basemap-outside-detail", clipPathUnits: "userSpaceOnUse" }, defs);
  }

  /** Fetches and draws the overview; resolves with its JSON. */
  async load() {
    const data = await fetchJSON(this.url);
    this.draw(data.layers, "overview");
    this.addLabels(data);
    if (data.detail) this.detail = { ...data.detail, loaded: null, ready: false, active: false };
    document.body.dataset.basemapDetail = "0";
    const previous = this.map.onViewChange;
    this.map.onViewChange = () => {
      this.update();
      if (previous) previous();
    };
    this.update();
    return data;
  }

  /**
   * Draws one band's layers (counted in units of layers.quantum) into the overview or detail groups, each layer as
   * one path per cell of a 12 x 12 grid (by a ring's or line's first vertex): the browser skips painting the paths
   * whose box is off screen.
   */
  draw(layers, band) {
    const q = layers.quantum || 1;
    for (const name of [...POLYGON_LAYERS, ...LINE_LAYERS]) {
      if (!layers[name] || !layers[name].length) continue;
      const scaled = svg("g", { transform: `scale(${q})` }, this.groups[name][band]);
      for (const cell of cells(layers[name], 12)) {
        svg("path", { d: stepsPath(cell, POLYGON_LAYERS.includes(name)), class: CLASSES[name], "data-layer": name }, scaled);
      }
    }
  }

  /** Shows the detail band when the map is close enough (fetching it the first time), the overview elsewhere. */
  update() {
    const d = this.detail;
    if (!d) return;
    const wanted = this.map.scale >= d.minScale;
    if (wanted && !d.loaded) {
      d.loaded = whileBusy(() => fetchJSON(d.url)).then((detail) => {
        this.draw(detail.layers, "detail");
        // The overview is drawn only outside the detail's region (the world minus the region, even-odd).
        const big = 1e9;
        svg("path", { d: `M${-big} ${-big}L${big} ${-big}L${big} ${big}L${-big} ${big}Z` + flatRingsPath([detail.region]), "clip-rule": "evenodd" }, this.clip);
        d.region = detail.region;
        d.ready = true;
        this.update();
      }).catch((error) => {
        d.loaded = null;
        console.warn(`basemap detail: ${error.message}`);
      });
    }
    const active = wanted && d.ready;
    // The overview: drawn alone, clipped to outside the region beside the detail, or not at all when the whole
    // view lies in the region (clipping costs the browser more than anything else on the map).
    const overview = !active ? "whole" : this.viewInside(d.region) ? "none" : "clipped";
    if (active === d.active && overview === d.overview) return;
    d.active = active;
    d.overview = overview;
    document.body.dataset.basemapDetail = active ? "1" : "0";
    for (const g of Object.values(this.groups)) {
      g.detail.style.display = active ? "" : "none";
      g.overview.style.display = overview === "none" ? "none" : "";
      if (overview === "clipped") g.overview.setAttribute("clip-path", "url(#basemap-outside-detail)");
      else g.overview.removeAttribute("clip-path");
    }
  }

  /** Whether the map's whole view lies inside a region (nine points along each edge of the view tested). */
  viewInside(region) {
    const { width, height } = this.map.size();
    for (let k = 0; k <= 8; k++) {
      const f = k / 8;
      for (const [px, py] of [[f * width, 0], [f * width, height], [0, f * height], [width, f * height]]) {
        if (!inside(region, ...this.map.toWorld(px, py))) return false;
      }
    }
    return true;
  }

  /**
   * Names, in order of importance: countries, then national capitals and cities of a million or more, then US
   * states, then the other cities by population. A country or state is named while it is between about 60 and
   * 1,500 pixels across.
   */
  addLabels(data) {
    const map = this.map;
    const area = (a, kind) => {
      const across = Math.sqrt(a.a);
      const g = svg("g", { class: `area-label ${kind}` });
      const text = svg("text", { "text-anchor": "middle", y: 4 }, g);
      text.textContent = kind === "country" ? a.n.toUpperCase() : a.n;
      map.addLabel("labels", g, text, a.x, a.y, { kind: "area", minScale: 60 / across, maxScale: 1500 / across });
    };
    const cities = data.cities || [];
    const major = cities.filter((c) => c.c || c.p >= 1000000);
    const others = cities.filter((c) => !(c.c || c.p >= 1000000));
    for (const c of data.countries || []) area(c, "country");
    for (const c of major) this.addCity(c);
    for (const s of data.states || []) area(s, "state");
    for (const c of others) this.addCity(c);
  }

  /** A city's dot and name (shown where it fits, larger cities first). */
  addCity(c) {
    const g = svg("g", { class: c.c ? "city capital" : "city", "data-name": c.n });
    svg("circle", { r: c.c || c.p >= 1000000 ? 3.5 : 2.5 }, g);
    const text = svg("text", { x: 5, y: -4 }, g);
    text.textContent = c.n;
    this.map.addLabel("labels", g, text, c.x, c.y, { kind: "point" });
  }
}

async function fetchJSON(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  return response.json();
}
