/* New comments while the reader reads: "3 new comments — show".
 *
 * Every 15 seconds, while the tab is visible, the page asks the discussion's
 * `latest/` address (comments/reading/polling.py) how many comments are new to it, sending
 * back the last ETag: while nothing changed the answer is 304, with no body. The
 * server counts only what every reader sees and writes the words. "Show" reads the
 * page again and inserts the comments it does not have yet, each after the comment
 * the page puts before it, keeping in place what is on the screen, and takes the
 * heading's count from it. The notice sticks to the top of the window while the
 * reader is in the thread (the stylesheet: position sticky). Errors slow the
 * polling down (doubling up to 5 minutes); a hidden tab stops it.
 */
(function () {
  "use strict";

  var EVERY = 15000;
  var AT_MOST = 300000;
  var section = document.getElementById("comments");
  if (!section || !section.dataset.poll || !window.fetch || !window.DOMParser) return;
  var seen = parseInt(section.dataset.seen, 10) || 0;
  var etag = null;
  var delay = EVERY;
  var timer = null;
  var latest = null;
  // When the numbers of the last answer applied were read: an older answer (a server
  // process whose cached numbers predate it) is ignored, so the button never flickers.
  var readAt = 0;
  var bar = null;

  function schedule(ms) {
    window.clearTimeout(timer);
    timer = null;
    if (!document.hidden) timer = window.setTimeout(poll, ms);
  }

  function poll() {
    var headers = { Accept: "application/json" };
    if (etag) headers["If-None-Match"] = etag;
    fetch(section.dataset.poll + "?seen=" + seen, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) return null;
        if (!response.ok) throw new Error(response.status);
        etag = response.headers.get("ETag");
        return response.json();
      })
      .then(function (data) {
        delay = EVERY;
        if (data) update(data);
        schedule(delay);
      })
      .catch(function () {
        delay = Math.min(delay * 2, AT_MOST);
        schedule(delay);
      });
  }

  function update(data) {
    if (typeof data.read_at === "number") {
      if (data.read_at < readAt) return;
      readAt = data.read_at;
    }
    latest = data;
    if (!bar) {
      if (data.new < 1) return;
      // A live region holding the button (its words are announced) and, once shown,
      // what was shown.
      bar = document.createElement("div");
      bar.className = "new-comments";
      bar.setAttribute("role", "status");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "secondary";
      button.addEventListener("click", show);
      var said = document.createElement("span");
      said.className = "visually-hidden";
      bar.append(button, said);
      var title = document.getElementById("comments-title");
      if (title) title.insertAdjacentElement("afterend", bar);
      else section.insertBefore(bar, section.firstChild);
    }
    bar.querySelector("span").textContent = "";
    bar.querySelector("button").textContent = data.label;
    bar.querySelector("button").hidden = data.new < 1;
  }

  // The first comment on the screen, and where it is: kept there after inserting.
  function anchorOnScreen() {
    var items = section.querySelectorAll("li.comment-item");
    for (var i = 0; i < items.length; i++) {
      var box = items[i].getBoundingClientRect();
      if (box.bottom > 0) return { el: items[i], top: box.top };
    }
    return null;
  }

  function merge(doc) {
    var list = section.querySelector("ol.comment-list");
    var fresh = doc.querySelectorAll("#comments ol.comment-list > li.comment-item");
    var inserted = [];
    if (!list) {
      var empty = section.querySelector(".no-comments");
      if (!empty || !fresh.length) return inserted;
      list = document.createElement("ol");
      list.className = "comment-list";
      empty.replaceWith(list);
    }
    var before = null;
    fresh.forEach(function (item) {
      var article = item.querySelector("article.comment");
      if (!article) return;
      var here = document.getElementById(article.id);
      if (here && section.contains(here)) {
        before = here.closest("li.comment-item");
        return;
      }
      item = document.adoptNode(item);
      item.classList.add("arrived");
      if (before && window.sluglineComments) window.sluglineComments.placeAfter(before, item);
      else if (before) before.insertAdjacentElement("afterend", item);
      else list.insertBefore(item, list.firstChild);
      before = item;
      inserted.push(item);
    });
    return inserted;
  }

  function show() {
    var button = bar.querySelector("button");
    button.disabled = true;
    fetch(window.location.pathname + window.location.search, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var kept = anchorOnScreen();
        button.disabled = false;
        button.hidden = true;
        var inserted = merge(doc);
        // The heading's count, as the page read again says it ("24 comments").
        var heading = document.getElementById("comments-title");
        var fresh = doc.getElementById("comments-title");
        if (heading && fresh && section.contains(heading)) heading.textContent = fresh.textContent;
        if (kept) {
          var moved = kept.el.getBoundingClientRect().top - kept.top;
          if (moved) window.scrollBy(0, moved);
        }
        seen = latest ? latest.comments : seen;
        bar.querySelector("span").textContent = latest ? latest.shown : "";
        if (inserted.length) inserted[0].querySelector("article.comment").focus({ preventScroll: true });
        schedule(EVERY);
      })
      .catch(function () {
        button.disabled = false;
      });
  }

  document.addEventListener("comments:posted", function (event) {
    if (event.detail && event.detail.counted) seen += 1;
  });

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      window.clearTimeout(timer);
      timer = null;
    } else {
      schedule(1000);
    }
  });

  schedule(delay);
})();
