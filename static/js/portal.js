// Small behaviours shared by every page. Loaded as a file so that the CSP can forbid inline scripts.
(function () {
  "use strict";

  // Buttons with data-copy="<element id>" copy that element's text to the clipboard.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    function copied() {
      var original = button.textContent;
      button.textContent = document.body.getAttribute("data-word-copied") || "Copied";
      setTimeout(function () { button.textContent = original; }, 1500);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(source.value || source.textContent.trim()).then(copied);
      return;
    }
    // Plain-HTTP pages (a portal tried on a laptop) have no clipboard API: select and copy.
    var selection = window.getSelection();
    var range = document.createRange();
    range.selectNodeContents(source);
    selection.removeAllRanges();
    selection.addRange(range);
    try { if (document.execCommand("copy")) copied(); } finally { selection.removeAllRanges(); }
  });

  // Controls that do nothing without scripts (.js-only) appear once every script on the page
  // has attached its handlers: scripts at the end of the body all run before this event, and a
  // button clicked earlier would silently do nothing.
  document.addEventListener("DOMContentLoaded", function () {
    document.documentElement.classList.add("js-ready");
  });

  // A box that scrolls sideways (a wide table on a phone) can be scrolled from the keyboard only
  // when it takes the focus: while it scrolls it joins the tab order as a region named after
  // its table's caption, or after the heading before it.
  function markScrollingBoxes() {
    document.querySelectorAll(".table-responsive").forEach(function (box) {
      var scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("data-scrolling-box", "");
        var caption = box.querySelector("caption");
        var heading = caption ? null : headingBefore(box);
        var name = (caption || heading || {}).textContent;
        if (name && name.trim()) box.setAttribute("aria-label", name.trim());
      } else if (!scrolls && box.hasAttribute("data-scrolling-box")) {
        ["tabindex", "role", "aria-label", "data-scrolling-box"].forEach(function (attribute) {
          box.removeAttribute(attribute);
        });
      }
    });
  }
  function headingBefore(element) {
    var headings = document.querySelectorAll("main h1, main h2, main h3, main h4");
    var found = null;
    headings.forEach(function (heading) {
      if (heading.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING) found = heading;
    });
    return found;
  }
  document.addEventListener("DOMContentLoaded", markScrollingBoxes);
  document.addEventListener("htmx:afterSettle", markScrollingBoxes);
  var resizing = false;
  window.addEventListener("resize", function () {
    if (resizing) return;
    resizing = true;
    window.requestAnimationFrame(function () { resizing = false; markScrollingBoxes(); });
  });

  // Elements with data-confirm ask before their form is submitted.
  document.addEventListener("submit", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (message && !window.confirm(message)) event.preventDefault();
  });
})();
