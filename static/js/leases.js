// Lease countdowns kept current. The page is complete without this file (the countdown as drawn
// by the server; times are written by the server, in the reader's zone, the zone named).
(function () {
  "use strict";

  // The page's language (the portal sets <html lang>): numbers and plural forms follow it.
  var lang = document.documentElement.lang || undefined;
  var numbers = new Intl.NumberFormat(lang);
  var plurals = new Intl.PluralRules(lang);

  // The words come from the countdown's data-words-* attributes, rendered in the reader's
  // language by the server: "%(num)d giorni" for each unit and plural form, and how two units
  // are joined ("%(days)s %(hours)s").
  function words(element, key) { return element.getAttribute("data-words-" + key) || ""; }

  function unit(element, name, count) {
    var form = words(element, name + "-" + plurals.select(count)) || words(element, name + "-other");
    return form.replace("%(num)d", numbers.format(count));
  }

  function left(element, until) {
    var minutes = Math.max(Math.floor((until - Date.now()) / 60000), 0);
    var days = Math.floor(minutes / 1440), hours = Math.floor((minutes % 1440) / 60);
    if (days) {
      return words(element, "days-hours").replace("%(days)s", unit(element, "day", days))
        .replace("%(hours)s", unit(element, "hour", hours));
    }
    if (hours) {
      return words(element, "hours-minutes").replace("%(hours)s", unit(element, "hour", hours))
        .replace("%(mins)s", unit(element, "minute", minutes % 60));
    }
    return unit(element, "minute", minutes);
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
      // Without its words (a page cached from before they were sent) the server's text stays.
      if (!isNaN(until) && text && element.hasAttribute("data-words-minute-other")) {
        text.textContent = left(element, until);
      }
      var amber = element.getAttribute("data-amber-at");
      if (amber && Date.now() + skew(element) >= Date.parse(amber) && element.classList.contains("text-bg-secondary")) {
        element.classList.replace("text-bg-secondary", "text-bg-warning");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tick();
    setInterval(tick, 30000);
  });
  // A poll of the deployment's status swaps its lease panel in out of band, beside the target.
  document.addEventListener("htmx:afterSwap", tick);
  document.addEventListener("htmx:oobAfterSwap", tick);
})();
