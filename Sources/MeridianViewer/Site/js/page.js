// What both sample pages share: element look-up, the status line and the count of requests in flight (the tests
// wait on document.body.dataset.pending).
"use strict";

/** The element with an id. */
export const $ = (id) => document.getElementById(id);

/**
 * Shows a message in the status line; kind is "" (information), "warning" or "error". The whole text stays in
 * the element's title: the line itself is one line, shortened with an ellipsis (viewer.css).
 */
export function setStatus(text, kind = "") {
  const line = $("status");
  line.textContent = text;
  line.title = text;
  line.dataset.kind = kind;
}

let pending = 0;

/** Counts a request starting (+1) or ending (-1). */
export function busy(delta) {
  pending += delta;
  document.body.dataset.pending = String(pending);
}

/** Runs an async task counted by busy(); resolves with its value. */
export async function whileBusy(task) {
  busy(+1);
  try {
    return await task();
  } finally {
    busy(-1);
  }
}
