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
