// The post editor's "Insert a picture" buttons (templates/dashboard/includes/
// image_picker.html): each puts its picture's Markdown at the cursor in the content,
// as a paragraph of its own, and leaves the cursor on a new paragraph after it, so
// that what is typed next never joins the picture's line (which would cost the
// picture its figure and caption). Without JavaScript the buttons stay hidden and
// the Markdown shown beside each picture can be copied.
(function () {
  "use strict";
  var content = document.getElementById("id_content");
  if (!content) return;
  document.querySelectorAll("[data-insert-markdown]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = content.value;
      var start = content.selectionStart, end = content.selectionEnd;
      var before = text.slice(0, start), after = text.slice(end).replace(/^[ \t]*\n+/, "");
      var lead = before === "" || /\n\n$/.test(before) ? "" : /\n$/.test(before) ? "\n" : "\n\n";
      var inserted = lead + button.getAttribute("data-insert-markdown") + "\n\n";
      content.value = before + inserted + (after === "" ? "" : "\n\n" + after);
      var caret = before.length + inserted.length;
      content.focus();
      content.setSelectionRange(caret, caret);
    });
  });
})();
