// kipcheck report.html filters: verdict checkboxes, KIP select, text search. Inlined; no
// external resources, no network.
(function () {
  "use strict";
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[data-verdict]"));
  var kip = document.getElementById("kip-filter");
  var text = document.getElementById("text-filter");
  var shown = document.getElementById("shown-count");
  var items = Array.prototype.slice.call(document.querySelectorAll("details.scenario"));
  function apply() {
    var on = {};
    boxes.forEach(function (b) { on[b.getAttribute("data-verdict")] = b.checked; });
    var k = kip.value;
    var q = text.value.trim().toLowerCase();
    var n = 0;
    items.forEach(function (s) {
      var ok = on[s.getAttribute("data-verdict")] &&
        (k === "" || s.getAttribute("data-kip") === k) &&
        (q === "" || s.getAttribute("data-search").indexOf(q) !== -1);
      s.hidden = !ok;
      if (ok) { n += 1; }
    });
    shown.textContent = String(n);
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  kip.addEventListener("change", apply);
  text.addEventListener("input", apply);
  Array.prototype.slice.call(document.querySelectorAll("a.kip-link")).forEach(function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      kip.value = a.getAttribute("data-kip");
      apply();
      document.getElementById("scenarios").scrollIntoView();
    });
  });
  function setAll(open) {
    items.forEach(function (s) { if (!s.hidden) { s.open = open; } });
  }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  apply();
}());
