// The API reference page: Swagger UI reading the portal's own OpenAPI document.
(function () {
  "use strict";
  var root = document.getElementById("api-reference");
  if (!root || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  window.SwaggerUIBundle({
    url: root.dataset.specUrl,
    domNode: root,
    deepLinking: true,
    // The portal's strict Content-Security-Policy allows no third-party calls.
    validatorUrl: null,
    tryItOutEnabled: false,
  });
})();
