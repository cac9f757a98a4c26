/* The pages' script: filters the rows of each table named by a form.filters (data-table) and sorts every
   table.sortable by a column. It only hides and reorders rows that the page already holds. */
(function () {
  function cellKey(row, i) {
    var cell = row.cells[i];
    var text = cell ? (cell.getAttribute('data-sort') || cell.textContent) : '';
    var num = parseFloat(text);
    return isNaN(num) || !/^\s*-?[0-9.]/.test(text) ? text.toLowerCase() : num;
  }
  document.querySelectorAll('form.filters').forEach(function (form) {
    var table = document.getElementById(form.getAttribute('data-table'));
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var shown = form.querySelector('.shown');
    function apply() {
      var query = form.elements.q.value.trim().toLowerCase(), n = 0;
      var selects = form.querySelectorAll('select');
      rows.forEach(function (row) {
        var keep = !query || row.textContent.toLowerCase().indexOf(query) >= 0;
        selects.forEach(function (s) {
          if (s.value && row.getAttribute('data-' + s.name) !== s.value) keep = false;
        });
        row.hidden = !keep;
        n += keep ? 1 : 0;
      });
      shown.textContent = n + ' of ' + rows.length + ' rows shown';
    }
    form.addEventListener('input', apply);
    form.addEventListener('change', apply);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
    form.hidden = false;
    apply();
  });
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      var button = document.createElement('button');
      button.type = 'button';
      button.textContent = th.textContent;
      th.textContent = '';
      th.appendChild(button);
      button.addEventListener('click', function () {
        var ascending = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellKey(a, i), y = cellKey(b, i);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
