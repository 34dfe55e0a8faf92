// kipcheck report.html filters: verdict checkboxes, KIP select, text search, kept in the
// URL's fragment as `#f=<verdicts>;kip=<KIP>;q=<text>` so a filtered view can be shared or
// reloaded. Links to a scenario (`#s-ID`) or into its embedded source (`#src-ID-L14`) open
// it without losing the filters. Inlined; no external resources, no network.
(function () {
  "use strict";
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[data-verdict]"));
  var kip = document.getElementById("kip-filter");
  var text = document.getElementById("text-filter");
  var shown = document.getElementById("shown-count");
  var items = Array.prototype.slice.call(document.querySelectorAll("details.scenario"));
  function state() {
    var on = boxes.filter(function (b) { return b.checked; })
      .map(function (b) { return b.getAttribute("data-verdict"); });
    var parts = [];
    if (on.length !== boxes.length) { parts.push("f=" + on.join(",")); }
    if (kip.value !== "") { parts.push("kip=" + encodeURIComponent(kip.value)); }
    var q = text.value.trim();
    if (q !== "") { parts.push("q=" + encodeURIComponent(q)); }
    return parts.join(";");
  }
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
  function save() {
    var s = state();
    var target = s === "" ? location.pathname + location.search : "#" + s;
    try { history.replaceState(null, "", target); } catch (e) { /* file:// may refuse */ }
  }
  function load() {
    var h = location.hash.replace(/^#/, "");
    if (!/^(f|kip|q)=/.test(h)) { return; }
    var verdicts = null;
    h.split(";").forEach(function (p) {
      var i = p.indexOf("=");
      var key = p.slice(0, i);
      var value = decodeURIComponent(p.slice(i + 1));
      if (key === "f") { verdicts = value === "" ? [] : value.split(","); }
      if (key === "kip") { kip.value = value; }
      if (key === "q") { text.value = value; }
    });
    if (verdicts !== null) {
      boxes.forEach(function (b) { b.checked = verdicts.indexOf(b.getAttribute("data-verdict")) !== -1; });
    }
  }
  function changed() { apply(); save(); }
  boxes.forEach(function (b) { b.addEventListener("change", changed); });
  kip.addEventListener("change", changed);
  text.addEventListener("input", changed);
  Array.prototype.slice.call(document.querySelectorAll("a.kip-link")).forEach(function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      kip.value = a.getAttribute("data-kip");
      changed();
      document.getElementById("scenarios").scrollIntoView();
    });
  });
  Array.prototype.slice.call(document.querySelectorAll("a.to-scenario")).forEach(function (a) {
    a.addEventListener("click", function (e) {
      var s = document.getElementById(a.getAttribute("href").slice(1));
      if (!s) { return; }
      e.preventDefault();
      s.hidden = false;
      s.open = true;
      s.scrollIntoView();
    });
  });
  // Links into a scenario's embedded source (`#src-ID` or `#src-ID-L14`) open it first.
  Array.prototype.slice.call(document.querySelectorAll("a.to-line")).forEach(function (a) {
    a.addEventListener("click", function (e) {
      var target = document.getElementById(a.getAttribute("href").slice(1));
      if (!target) { return; }
      e.preventDefault();
      for (var d = target; d; d = d.parentElement) {
        if (d.tagName === "DETAILS") { d.open = true; }
      }
      target.scrollIntoView({ block: "center" });
    });
  });
  function setAll(open) {
    items.forEach(function (s) { if (!s.hidden) { s.open = open; } });
  }
  document.getElementById("expand-all").addEventListener("click", function () { setAll(true); });
  document.getElementById("collapse-all").addEventListener("click", function () { setAll(false); });
  window.addEventListener("hashchange", function () { load(); apply(); });
  load();
  apply();
}());
