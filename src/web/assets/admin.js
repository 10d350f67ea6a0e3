/* global document */
// Progressive enhancement only: a "Copy" button next to a secret shown once. Without JavaScript the
// field is still there to select and copy by hand, and a button rendered `hidden` (one that would do
// nothing without this file) stays hidden.
(function () {
  'use strict';
  document.querySelectorAll('button[data-copy][hidden]').forEach(function (button) {
    button.hidden = false;
  });
  document.addEventListener('click', function (event) {
    var button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    var input = document.getElementById(button.getAttribute('data-copy'));
    if (!input) return;
    input.select();
    var done = function () {
      button.textContent = 'Copied';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(input.value).then(done);
    else if (document.execCommand('copy')) done();
  });
})();
