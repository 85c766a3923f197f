/* The count under a comment's textarea (comments/includes/text_count.html), as the
 * reader types: "1,234 of 10,000 characters", and past the limit how many too many.
 * The server judges the length (the textarea has no maxlength, which would cut a long
 * paste without a word); this only says early what it will say. Counted as the server
 * counts: characters (code points), a line break as the two the form sends (CR LF).
 * Passing the limit, and coming back under it, is announced politely. The words come
 * from the page (data-counting, data-over), the numbers in the page's language. */
(function () {
  "use strict";

  function counterOf(textarea) {
    var id = (textarea.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (name) {
      return /-count$/.test(name);
    })[0];
    return id ? document.getElementById(id) : null;
  }

  function length(text) {
    var count = 0;
    for (var ch of text) count += ch === "\n" ? 2 : 1;
    return count;
  }

  function say(words, numbers) {
    var lang = document.documentElement.lang || undefined;
    return words.replace(/\{(\w+)\}/g, function (whole, name) {
      return name in numbers ? numbers[name].toLocaleString(lang) : whole;
    });
  }

  function update(textarea) {
    var counter = counterOf(textarea);
    var limit = parseInt(textarea.getAttribute("data-limit"), 10);
    if (!counter || !limit) return;
    var count = length(textarea.value);
    var over = count > limit;
    var words = over ? counter.getAttribute("data-over") : counter.getAttribute("data-counting");
    var shown = counter.querySelector(".text-count-shown");
    var live = counter.querySelector("[aria-live]");
    if (!shown) {
      counter.textContent = "";
      shown = document.createElement("span");
      shown.className = "text-count-shown";
      live = document.createElement("span");
      live.className = "visually-hidden";
      live.setAttribute("aria-live", "polite");
      counter.append(shown, live);
    }
    shown.textContent = say(words, { count: count, limit: limit, over: count - limit });
    if (over !== counter.classList.contains("over")) live.textContent = shown.textContent;
    counter.classList.toggle("over", over);
  }

  // A form drawn with text in it (refused, previewed) is counted at once; an empty one
  // keeps the note of the limit until the reader types.
  function updateAll(root) {
    root.querySelectorAll("textarea[data-limit]").forEach(function (textarea) {
      if (textarea.value) update(textarea);
    });
  }

  document.addEventListener("input", function (event) {
    if (event.target.matches && event.target.matches("textarea[data-limit]")) update(event.target);
  });
  // Forms drawn again in place (posting.js) and reply or edit forms opened under a comment.
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      change.addedNodes.forEach(function (node) { if (node.querySelectorAll) updateAll(node); });
    });
  }).observe(document.body, { childList: true, subtree: true });
  updateAll(document);
})();
