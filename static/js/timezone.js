// The Account page's time zone: offers the zone the browser is set to when the person's differs.
// Its words come from the page (data-zone-suggestion, data-zone-use), written in their language.
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("account-timezone");
    var note = document.querySelector(".browser-zone");
    if (!select || !note || !window.Intl) return;
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var option = zone && Array.prototype.find.call(select.options, function (o) { return o.value === zone; });
    if (!option || option.selected) return;
    note.textContent = note.getAttribute("data-zone-suggestion").replace("{zone}", zone) + " ";
    var use = document.createElement("button");
    use.type = "button";
    use.className = "btn btn-link btn-sm p-0 align-baseline";
    use.textContent = note.getAttribute("data-zone-use");
    use.addEventListener("click", function () {
      option.selected = true;
      note.hidden = true;
      select.focus();
    });
    note.appendChild(use);
    note.hidden = false;
  });
})();
