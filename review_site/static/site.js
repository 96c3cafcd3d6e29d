// Filters and sorting for the review site's tables. No framework: the site must open from disk.
(function () {
  "use strict";

  function applyFilters() {
    var table = document.getElementById("tasks");
    if (!table) return;
    var wanted = {};
    document.querySelectorAll("[data-filter]").forEach(function (el) {
      wanted[el.getAttribute("data-filter")] = el.value.trim().toLowerCase();
    });
    var shown = 0, rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], ok = true;
      ["group", "profession", "split"].forEach(function (k) {
        if (wanted[k] && (r.getAttribute("data-" + k) || "").toLowerCase() !== wanted[k]) ok = false;
      });
      if (wanted.text && (r.getAttribute("data-text") || "").indexOf(wanted.text) < 0) ok = false;
      r.classList.toggle("hidden", !ok);
      if (ok) shown++;
    }
    var counter = document.getElementById("shown");
    if (counter) counter.textContent = shown + " of " + rows.length + " shown";
  }

  function cellValue(row, index, numeric) {
    var cell = row.cells[index];
    var v = cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent.trim();
    return numeric ? parseFloat(v) || 0 : v.toLowerCase();
  }

  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-sort") === "num";
    var asc = !th.classList.contains("asc");
    th.parentNode.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
    th.classList.add(asc ? "asc" : "desc");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  document.querySelectorAll("[data-filter]").forEach(function (el) {
    el.addEventListener("input", applyFilters);
    el.addEventListener("change", applyFilters);
  });
  document.querySelectorAll("table.sortable th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  applyFilters();
})();
