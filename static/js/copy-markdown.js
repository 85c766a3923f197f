// "Copy" beside the Markdown a picture's page shows (templates/dashboard/
// media_image.html): puts the Markdown on the clipboard and says so in the button's
// status. Where the clipboard is refused, the Markdown is selected to copy by hand.
// Without JavaScript the button stays hidden; the Markdown wraps and can be selected.
(function () {
  "use strict";
  document.querySelectorAll("[data-copy-from]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy-from"));
    var status = document.getElementById(button.getAttribute("data-status"));
    if (!source || !status) return;
    button.hidden = false;
    function selectSource() {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = button.getAttribute("data-selected");
    }
    button.addEventListener("click", function () {
      if (!navigator.clipboard) { selectSource(); return; }
      navigator.clipboard.writeText(source.textContent).then(function () {
        status.textContent = button.getAttribute("data-copied");
      }, selectSource);
    });
  });
})();
