// Filters and sorting for the review site's tables. No framework: the site must open from disk.
(function () {
  "use strict";

  var page = 0;

  // Pages what the filters keep: `paged` rows are matched but on another page.
  function applyPaging() {
    var table = document.getElementById("tasks"), pager = document.getElementById("pager");
    if (!table || !pager) return;
    var size = parseInt(table.getAttribute("data-page-size"), 10) || 50;
    var kept = Array.prototype.filter.call(table.tBodies[0].rows, function (r) {
      return !r.classList.contains("hidden");
    });
    var pages = Math.max(1, Math.ceil(kept.length / size));
    page = Math.min(Math.max(page, 0), pages - 1);
    kept.forEach(function (r, i) { r.classList.toggle("paged", Math.floor(i / size) !== page); });
    pager.hidden = pages < 2;
    document.getElementById("page").textContent = "page " + (page + 1) + " of " + pages;
    pager.querySelector("[data-page=prev]").disabled = page === 0;
    pager.querySelector("[data-page=next]").disabled = page === pages - 1;
  }

  function applyFilters() {
    var table = document.getElementById("tasks");
    if (!table) return;
    page = 0;
    var wanted = {};
    document.querySelectorAll("[data-filter]").forEach(function (el) {
      wanted[el.getAttribute("data-filter")] = el.value.trim().toLowerCase();
    });
    var shown = 0, rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var r = rows[i], ok = true;
      ["group", "profession", "split", "family"].forEach(function (k) {
        if (wanted[k] && (r.getAttribute("data-" + k) || "").toLowerCase() !== wanted[k]) ok = false;
      });
      if (wanted.text && (r.getAttribute("data-text") || "").indexOf(wanted.text) < 0) ok = false;
      r.classList.toggle("hidden", !ok);
      if (ok) shown++;
    }
    var counter = document.getElementById("shown");
    if (counter) counter.textContent = shown + " of " + rows.length + " shown";
    applyPaging();
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
    if (table.id === "tasks") applyPaging();
  }

  document.querySelectorAll("[data-filter]").forEach(function (el) {
    el.addEventListener("input", applyFilters);
    el.addEventListener("change", applyFilters);
  });
  document.querySelectorAll("table.sortable th[data-sort]").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  document.querySelectorAll("#pager [data-page]").forEach(function (b) {
    b.addEventListener("click", function () {
      page += b.getAttribute("data-page") === "next" ? 1 : -1;
      applyPaging();
    });
  });
  applyFilters();
})();
