// kipcheck mutants.html filters: text over scenario ids and variant names, only the
// scenarios that catch nothing, only the survivors' columns. Kept in the URL's fragment
// (`#q=<text>;dead;survivors`). Inlined; no external resources, no network.
(function () {
  "use strict";
  var text = document.getElementById("m-text");
  var dead = document.getElementById("m-dead");
  var surv = document.getElementById("m-survivors");
  var shown = document.getElementById("m-shown");
  var rows = Array.prototype.slice.call(document.querySelectorAll("#matrix tbody tr"));
  var heads = Array.prototype.slice.call(document.querySelectorAll("#matrix thead th.var"));
  function apply() {
    var q = text.value.trim().toLowerCase();
    var cols = heads.map(function (th) {
      var name = th.getAttribute("data-variant");
      return (!surv.checked || th.classList.contains("survived")) &&
        (q === "" || name.indexOf(q) !== -1 || rows.some(function (r) { return r.getAttribute("data-scenario").indexOf(q) !== -1; }));
    });
    heads.forEach(function (th, i) { th.hidden = !cols[i]; });
    var n = 0;
    rows.forEach(function (r) {
      var id = r.getAttribute("data-scenario");
      var cells = r.querySelectorAll("td.hit, td.miss");
      var nameHit = q === "" || id.indexOf(q) !== -1 ||
        heads.some(function (th, i) { return cols[i] && th.getAttribute("data-variant").indexOf(q) !== -1 && cells[i].classList.contains("hit"); });
      var ok = nameHit && (!dead.checked || r.classList.contains("dead"));
      r.hidden = !ok;
      Array.prototype.forEach.call(cells, function (c, i) { c.hidden = !cols[i]; });
      if (ok) { n += 1; }
    });
    shown.textContent = String(n);
  }
  function save() {
    var parts = [];
    if (text.value.trim() !== "") { parts.push("q=" + encodeURIComponent(text.value.trim())); }
    if (dead.checked) { parts.push("dead"); }
    if (surv.checked) { parts.push("survivors"); }
    var target = parts.length ? "#" + parts.join(";") : location.pathname + location.search;
    try { history.replaceState(null, "", target); } catch (e) { /* file:// may refuse */ }
  }
  function load() {
    var h = location.hash.replace(/^#/, "");
    if (!/^(q=|dead|survivors)/.test(h)) { return; }
    h.split(";").forEach(function (p) {
      if (p.indexOf("q=") === 0) { text.value = decodeURIComponent(p.slice(2)); }
      if (p === "dead") { dead.checked = true; }
      if (p === "survivors") { surv.checked = true; }
    });
  }
  function changed() { apply(); save(); }
  text.addEventListener("input", changed);
  dead.addEventListener("change", changed);
  surv.addEventListener("change", changed);
  var show = document.getElementById("show-dead");
  if (show) {
    show.addEventListener("click", function (e) {
      e.preventDefault();
      dead.checked = true;
      changed();
      document.getElementById("matrix-section").scrollIntoView();
    });
  }
  load();
  apply();
}());
