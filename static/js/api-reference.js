// The API reference page: Swagger UI reading the portal's own OpenAPI document.
(function () {
  "use strict";
  var root = document.getElementById("api-reference");
  if (!root || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  // What Swagger UI renders lacks a few things keyboard and screen reader users need; each is
  // added as the parts appear (operations render when opened).
  function mend() {
    // The address of the servers list has a caption, but not as its label.
    var servers = root.querySelector("select#servers");
    var title = root.querySelector(".servers-title");
    if (servers && title && !servers.hasAttribute("aria-labelledby")) {
      title.id = "servers-title";
      servers.setAttribute("aria-labelledby", "servers-title");
    }
    // An operation's deep link sits inside the button that opens it: a control inside a
    // control, which screen readers stumble on. The button alone opens the operation, and the
    // address bar still follows it (deep linking), so the link keeps its text without href.
    root.querySelectorAll(".opblock-summary-control a[href]").forEach(function (link) {
      link.removeAttribute("href");
    });
    // Examples scroll sideways: the keyboard can scroll them once they take the focus.
    root.querySelectorAll("pre.microlight:not([tabindex])").forEach(function (example) {
      example.tabIndex = 0;
    });
  }
  new MutationObserver(mend).observe(root, { childList: true, subtree: true });

  window.SwaggerUIBundle({
    url: root.dataset.specUrl,
    domNode: root,
    deepLinking: true,
    // The portal's strict Content-Security-Policy allows no third-party calls.
    validatorUrl: null,
    tryItOutEnabled: false,
  });
})();
