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
      // The values cover every field the preset names and reset the others that have a
      // default (the server computes them: app/catalogue/forms.py presets_data).
      event.preventDefault();
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
      // The words come from the page, in the reader's language.
      reveal.textContent = reveal.getAttribute(hidden ? "data-text-hide" : "data-text-show");
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
      if (toggle) toggle.textContent = toggle.getAttribute("data-text-hide");
      target.dispatchEvent(new Event("change", { bubbles: true }));
    }
  });

  // Enter in a text field launches, as in any form. The browser would press the form's first
  // submit button instead, and that is a quick choice's button: Enter would fill in a preset.
  var TYPED = ["text", "search", "url", "tel", "email", "password", "number", "date", "time"];
  form.addEventListener("keydown", function (event) {
    var field = event.target;
    if (event.key !== "Enter" || event.isComposing || field.tagName !== "INPUT") return;
    if (TYPED.indexOf(field.type) < 0) return;
    event.preventDefault();
    var launch = document.getElementById("launch-button");
    if (launch && !launch.disabled) form.requestSubmit(launch);
  });

  // Launch stays off while the cost box says the request does not fit (the server refuses
  // it anyway); the reason sits under the button and names the tabs to change, which are
  // marked "over quota" as after a refused submit. A person without scripts gets the refusal.
  var launchButton = document.getElementById("launch-button");
  var launchReason = document.getElementById("launch-reason");
  var blockedFromStart = launchButton && launchButton.hasAttribute("data-account-blocked");
  function markTabs(numbers) {
    form.querySelectorAll('[role="tab"]').forEach(function (tab, index) {
      var badge = tab.querySelector(".quota-tab-badge");
      if (!badge) return;
      // A tab already marked by the server's refusal keeps that mark alone.
      var marked = tab.querySelector(".text-bg-danger") !== null;
      badge.hidden = marked || numbers.indexOf(String(index + 1)) < 0;
    });
  }
  function followSummary() {
    var summary = document.getElementById("launch-summary");
    if (!summary || !launchButton) return;
    markTabs((summary.getAttribute("data-misfit-tabs") || "").split(" ").filter(Boolean));
    if (blockedFromStart) return;
    var blocked = summary.getAttribute("data-launchable") === "no";
    launchButton.disabled = blocked;
    launchReason.textContent = blocked ? summary.getAttribute("data-reason") : "";
    launchReason.hidden = !blocked;
    // Short only of what running deployments hold, or of a site with room: waiting in line
    // is offered instead (beside Launch, in the second case).
    var waitOffer = document.getElementById("wait-offer");
    if (waitOffer) waitOffer.hidden = summary.getAttribute("data-can-wait") !== "yes";
  }
  document.body.addEventListener("htmx:afterSwap", followSummary);

  // A refused form opens on its tab with the first field to change (the server made that tab
  // the active one); the keyboard starts there too.
  var firstInvalid = form.querySelector(".tab-pane.active .is-invalid") || form.querySelector(".is-invalid");
  if (firstInvalid) firstInvalid.focus();

  form.addEventListener("input", function (event) {
    var output = event.target.getAttribute("data-range-output");
    // A slider's value in the reader's way of writing numbers ("2.5", "2,5").
    var shown = new Intl.NumberFormat(document.documentElement.lang || undefined);
    if (output) document.getElementById(output).textContent = shown.format(Number(event.target.value));
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
