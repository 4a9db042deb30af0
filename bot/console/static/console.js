// csbot console: the little behaviour plain HTML lacks. No framework, no build step.
"use strict";
document.addEventListener("submit", function (event) {
  // One click, one request: a resend or a save must not go out twice from a double click.
  var button = event.target.querySelector("button[type=submit]");
  if (button) { window.setTimeout(function () { button.disabled = true; }, 0); }
});
function openTarget() {
  // A link to one message (#m123) opens its reasoning too.
  var id = window.location.hash.slice(1);
  var target = id && document.getElementById(id);
  if (target) {
    var details = target.querySelector("details.why");
    if (details) { details.open = true; }
    target.scrollIntoView({ block: "center" });
  }
}
window.addEventListener("hashchange", openTarget);
document.addEventListener("DOMContentLoaded", openTarget);
function followLive(section) {
  // The inbox's live parts: when the server says the inbox changed, fetch this part again (the
  // first event too: something may have changed between rendering the page and opening the stream).
  var stream = new window.EventSource(section.getAttribute("data-stream"));
  var busy = false;
  var again = false;
  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    window.fetch(section.getAttribute("data-live"), { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (html !== null) {
          section.innerHTML = html;
          section.setAttribute("data-updates", String(Number(section.getAttribute("data-updates") || 0) + 1));
        }
      })
      .finally(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
  }
  stream.addEventListener("changed", refresh);
}
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("[data-live]").forEach(followLive);
  var saved = document.getElementById("saved-replies");
  if (saved) {
    saved.addEventListener("change", function () {
      if (saved.value) { document.getElementById("reply-text").value = saved.value; }
    });
  }
});
