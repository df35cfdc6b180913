// Deployment pages: copy buttons that carry their text (data-copy-value) and the word they
// show once copied, in the reader's language (data-copied). A file, not inline, so that the
// Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";

  function copied(button) {
    var original = button.innerHTML;
    button.textContent = button.getAttribute("data-copied") || "\u2713";
    setTimeout(function () { button.innerHTML = original; }, 1500);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-value]");
    if (!button) return;
    var text = button.getAttribute("data-copy-value");
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { copied(button); });
      return;
    }
    // Plain-HTTP pages (a portal tried on a laptop) have no clipboard API: select and copy.
    var field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.className = "copy-buffer";
    document.body.appendChild(field);
    field.select();
    try { document.execCommand("copy"); copied(button); } finally { field.remove(); }
  });

  // My deployments' usage panel: its figures come with each poll of the rows, out of band.
  // When they change (a delete finished), what holds them is read again, if it was shown.
  function usageFigures() {
    var summary = document.getElementById("usage-summary");
    return summary ? summary.textContent.replace(/\s+/g, " ").trim() : null;
  }
  var figures = usageFigures();
  document.body.addEventListener("htmx:afterSettle", function () {
    var now = usageFigures();
    if (now === figures) return;
    figures = now;
    var details = document.getElementById("usage-details");
    if (details && details.querySelector(".quota-holders, h2") && window.htmx) {
      window.htmx.trigger(details, "usage-changed");
    }
  });

  // A deployment page's status polls: once the poll is answered "not found" (the deployment
  // was deleted, or its owner stopped sharing it), the page says so and stops polling, rather
  // than showing the last status for ever. The answer is not swapped in: it is an error page.
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.target;
    if (!status || status.id !== "deployment-status" || event.detail.xhr.status !== 404) return;
    event.detail.shouldSwap = false;
    event.detail.isError = false;
    var gone = document.createElement("section");
    gone.id = "deployment-status";
    gone.className = "card mb-4";
    gone.setAttribute("role", "status");
    var body = document.createElement("div");
    body.className = "card-body";
    var words = document.createElement("p");
    words.className = "mb-2 deployment-gone";
    words.textContent = status.getAttribute("data-gone");
    var link = document.createElement("a");
    link.href = status.getAttribute("data-gone-link");
    link.textContent = status.getAttribute("data-gone-link-text");
    body.appendChild(words);
    body.appendChild(link);
    gone.appendChild(body);
    status.replaceWith(gone);  // a removed element's polling stops with it
  });
})();
