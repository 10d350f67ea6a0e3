/* global document */
// Progressive enhancement only: every action also works as a plain form without this file.
(function () {
  'use strict';
  // htmx requests carry the page's CSRF token as a header.
  document.addEventListener('htmx:configRequest', function (event) {
    var token = document.querySelector('input[name="_csrf"]');
    if (token) event.detail.headers['X-CSRF-Token'] = token.value;
  });
  document.addEventListener('change', function (event) {
    var box = event.target;
    if (!box.matches || !box.matches('[data-select-all]')) return;
    document.querySelectorAll('input[name="ids"]').forEach(function (item) {
      item.checked = box.checked;
    });
  });
  // Calendar: drag a scheduled item to another day; the server keeps its time of day.
  var dragged = null;
  document.addEventListener('dragstart', function (event) {
    var item = event.target.closest && event.target.closest('li[data-id]');
    if (item) dragged = item.getAttribute('data-id');
  });
  document.addEventListener('dragover', function (event) {
    if (dragged && event.target.closest && event.target.closest('td[data-day]')) event.preventDefault();
  });
  document.addEventListener('drop', function (event) {
    var cell = event.target.closest && event.target.closest('td[data-day]');
    var form = document.getElementById('move-form');
    if (!dragged || !cell || !form) return;
    event.preventDefault();
    form.action = '/app/content/' + encodeURIComponent(dragged) + '/move';
    form.querySelector('input[name="day"]').value = cell.getAttribute('data-day');
    dragged = null;
    form.submit();
  });
})();
