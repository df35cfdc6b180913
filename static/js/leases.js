// Lease times: end times in the reader's own time zone, and countdowns kept current. The page
// is complete without this file (UTC times, the countdown as drawn by the server).
(function () {
  "use strict";

  var format = new Intl.DateTimeFormat(undefined, {
    weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
  });

  function plural(count, one, many) { return count + " " + (count === 1 ? one : many); }

  function left(until) {
    var minutes = Math.max(Math.floor((until - Date.now()) / 60000), 0);
    var days = Math.floor(minutes / 1440), hours = Math.floor((minutes % 1440) / 60);
    if (days) return plural(days, "day", "days") + " " + plural(hours, "hour", "hours");
    if (hours) return plural(hours, "hour", "hours") + " " + plural(minutes % 60, "minute", "minutes");
    return plural(minutes, "minute", "minutes");
  }

  function localise(root) {
    root.querySelectorAll("time[data-local]").forEach(function (element) {
      var moment = new Date(element.getAttribute("datetime"));
      if (isNaN(moment)) return;
      element.textContent = format.format(moment);
      element.title = moment.toISOString().replace(".000Z", "Z");
    });
    root.querySelectorAll("[data-zone-note]").forEach(function (note) { note.hidden = false; });
    root.querySelectorAll("[data-utc-note]").forEach(function (note) { note.hidden = true; });
  }

  // The server's clock decides when leases end: count from its time, not the reader's, which
  // may be off by minutes.
  function skew(element) {
    if (element.skew === undefined) {
      var server = Date.parse(element.getAttribute("data-server-now") || "");
      element.skew = isNaN(server) ? 0 : server - Date.now();
    }
    return element.skew;
  }

  function tick() {
    document.querySelectorAll("[data-countdown]").forEach(function (element) {
      var until = new Date(Date.parse(element.getAttribute("data-countdown")) - skew(element));
      var text = element.querySelector("[data-countdown-text]");
      if (!isNaN(until) && text) text.textContent = left(until);
      var amber = element.getAttribute("data-amber-at");
      if (amber && Date.now() + skew(element) >= Date.parse(amber) && element.classList.contains("text-bg-secondary")) {
        element.classList.replace("text-bg-secondary", "text-bg-warning");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    localise(document);
    tick();
    setInterval(tick, 30000);
  });
  document.addEventListener("htmx:afterSwap", function (event) { localise(event.target); tick(); });
})();
