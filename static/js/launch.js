// The launch form: presets fill several fields at once, passwords can be shown or generated,
// sliders show their value. Everything here is a convenience; the server checks every value.
(function () {
  "use strict";
  var form = document.getElementById("launch-form");
  if (!form) return;

  function setValue(name, value) {
    var fields = form.querySelectorAll('[name="' + CSS.escape(name) + '"]');
    fields.forEach(function (field) {
      if (field.type === "checkbox") {
        field.checked = value === true || value === "true" || value === "y";
      } else if (field.type === "radio") {
        field.checked = String(field.value) === String(value);
      } else {
        field.value = value;
      }
      field.dispatchEvent(new Event("input", { bubbles: true }));
      field.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  form.addEventListener("click", function (event) {
    var preset = event.target.closest("[data-preset]");
    if (preset) {
      var values = JSON.parse(preset.getAttribute("data-preset"));
      Object.keys(values).forEach(function (name) { setValue(name, values[name]); });
      form.querySelectorAll(".preset-button").forEach(function (b) { b.classList.remove("active"); });
      preset.classList.add("active");
      return;
    }
    var reveal = event.target.closest("[data-reveal]");
    if (reveal) {
      var input = document.getElementById(reveal.getAttribute("data-reveal"));
      var hidden = input.type === "password";
      input.type = hidden ? "text" : "password";
      reveal.textContent = hidden ? "Hide" : "Show";
      return;
    }
    var generate = event.target.closest("[data-generate]");
    if (generate) {
      var target = document.getElementById(generate.getAttribute("data-generate"));
      var alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
      var bytes = new Uint32Array(20);
      crypto.getRandomValues(bytes);
      target.value = Array.from(bytes, function (b) { return alphabet[b % alphabet.length]; }).join("");
      target.type = "text";
      var toggle = form.querySelector('[data-reveal="' + target.id + '"]');
      if (toggle) toggle.textContent = "Hide";
      target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  form.addEventListener("input", function (event) {
    var output = event.target.getAttribute("data-range-output");
    if (output) document.getElementById(output).textContent = event.target.value;
  });

  // A schedule shows only the controls its choice uses: a start for "once, at a set time",
  // and the period and count too for "repeatedly". Hidden controls are still sent.
  function showScheduleParts(controls) {
    var how = controls.querySelector('select[name$="-how"]').value;
    controls.querySelectorAll(".schedule-start").forEach(function (part) { part.hidden = how === "now"; });
    controls.querySelectorAll(".schedule-every, .schedule-unit, .schedule-times").forEach(function (part) {
      part.hidden = how !== "repeat";
    });
  }
  form.querySelectorAll(".schedule-controls").forEach(function (controls) {
    showScheduleParts(controls);
    controls.addEventListener("change", function () { showScheduleParts(controls); });
  });
})();
