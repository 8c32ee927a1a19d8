// The viewer's pages, registered once: every page's navigation and the home page's cards are made from this list,
// so a new page is its html and js files plus one entry here (and a script tag loading this file, as every page
// has). Static markup under the viewer's security policy: no inline script, the elements made with the DOM.
"use strict";

/** The pages after the home page, in the order of the navigation and the cards. */
export const pages = [
  {
    href: "/buffers.html", name: "Buffers", card: "go-buffers", title: "Create buffers around points",
    text: "Click inside the red dashed area of use of NAD27 / Texas North Central (EPSG:32038) to add points with a "
      + "radius in miles. Union the buffers, compare planar and geodesic buffers, export them as KMZ or GeoJSON.",
  },
  {
    href: "/kml.html", name: "KML", card: "go-kml", title: "Create and save KML",
    text: "Sketch points, polylines and polygons on a Web Mercator map with the sample's icons and colors, save them "
      + "as a KMZ file, or open a KML/KMZ file, edit it and save it again.",
  },
];

/** An element with a class and children (strings become text). */
function element(tag, attributes, ...children) {
  const e = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) e.setAttribute(name, value);
  e.append(...children);
  return e;
}

/** The links of the navigation of the page at `path`: Home (except on the home page), then every other page. */
export function navigation(path) {
  const home = path === "/" || path === "/index.html";
  const links = home ? [] : [element("a", { href: "/" }, "Home")];
  return links.concat(pages.filter((p) => p.href !== path).map((p) => element("a", { href: p.href }, p.name)));
}

/** The home page's card of a page. */
function card(page) {
  return element("a", { class: "card", id: page.card, href: page.href },
    element("h2", {}, page.title), element("p", {}, page.text));
}

const nav = document.querySelector("header.bar nav");
if (nav) nav.replaceChildren(...navigation(location.pathname));
const cards = document.querySelector("main.cards");
if (cards) cards.replaceChildren(...pages.map(card));
