// Catalogue admin: "show in editor" buttons beside a problem select that line in the textarea.
(function () {
  "use strict";

  function selectLine(textarea, line) {
    var lines = textarea.value.split("\n");
    var start = 0;
    for (var i = 0; i < Math.min(line - 1, lines.length); i++) start += lines[i].length + 1;
    var end = start + (lines[line - 1] || "").length;
    textarea.focus();
    textarea.setSelectionRange(start, end);
    // Scroll so the line sits near the top third of the box.
    var lineHeight = parseFloat(window.getComputedStyle(textarea).lineHeight) || 20;
    textarea.scrollTop = Math.max(0, (line - 4) * lineHeight);
    textarea.scrollIntoView({ block: "center" });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-editor-line]");
    if (!button) return;
    var textarea = document.getElementById(button.getAttribute("data-editor"));
    if (textarea) selectLine(textarea, parseInt(button.getAttribute("data-editor-line"), 10));
  });
})();
