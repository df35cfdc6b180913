// Small behaviours shared by every page. Loaded as a file so that the CSP can forbid inline scripts.
(function () {
  "use strict";

  // Buttons with data-copy="<element id>" copy that element's text to the clipboard.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source || !navigator.clipboard) return;
    navigator.clipboard.writeText(source.value || source.textContent.trim()).then(function () {
      var original = button.textContent;
      button.textContent = document.body.getAttribute("data-word-copied") || "Copied";
      setTimeout(function () { button.textContent = original; }, 1500);
    });
  });

  // Controls that do nothing without scripts (.js-only) appear once every script on the page
  // has attached its handlers: scripts at the end of the body all run before this event, and a
  // button clicked earlier would silently do nothing.
  document.addEventListener("DOMContentLoaded", function () {
    document.documentElement.classList.add("js-ready");
  });

  // Elements with data-confirm ask before their form is submitted.
  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
