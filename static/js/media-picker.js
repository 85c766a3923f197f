// The post editor's "Insert a picture" buttons (templates/dashboard/includes/
// image_picker.html): each puts its picture's Markdown at the cursor in the content,
// as a paragraph of its own. Without JavaScript the buttons stay hidden and the
// Markdown shown beside each picture can be copied.
(function () {
  "use strict";
  var content = document.getElementById("id_content");
  if (!content) return;
  document.querySelectorAll("[data-insert-markdown]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = content.value;
      var start = content.selectionStart, end = content.selectionEnd;
      var before = text.slice(0, start), after = text.slice(end);
      var lead = before === "" || /\n\n$/.test(before) ? "" : /\n$/.test(before) ? "\n" : "\n\n";
      var tail = after === "" || /^\n\n/.test(after) ? "" : /^\n/.test(after) ? "\n" : "\n\n";
      var inserted = lead + button.getAttribute("data-insert-markdown") + tail;
      content.value = before + inserted + after;
      var caret = before.length + inserted.length;
      content.focus();
      content.setSelectionRange(caret, caret);
    });
  });
})();
