/* The comment section's links, enhanced: small, optional, no framework.
 *
 * - "Reply" opens the reply form under the comment (the form of the comment's
 *   permalink page, with its own signed token) instead of leaving the page.
 * - "Load more comments" appends the next cursor page of comments to the list
 *   (without repeating a "Continue this thread" link the list already shows).
 * - A collapsed branch (the <details> around a comment's replies) stays collapsed
 *   for this page while the tab lives (sessionStorage, keyed by the page's path and
 *   the comment), and a link to a comment inside a collapsed branch opens it.
 *
 * Without JavaScript (or when a fetch fails) the links work as plain links.
 */
(function () {
  "use strict";

  function fetchPage(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) { return new DOMParser().parseFromString(html, "text/html"); });
  }

  function openReply(link) {
    var article = link.closest("article.comment");
    var open = article.parentNode.querySelector(":scope > form.inline-reply");
    if (open) { open.querySelector("textarea").focus(); return; }
    link.setAttribute("aria-busy", "true");
    fetchPage(link.href).then(function (doc) {
      var form = doc.querySelector("form#reply");
      if (!form) throw new Error("no form");
      form.removeAttribute("id");
      form.classList.add("inline-reply");
      // The page's own form has the same field ids: give these their own.
      form.querySelectorAll("[id]").forEach(function (el) { el.id = article.id + "-" + el.id; });
      form.querySelectorAll("label[for]").forEach(function (label) {
        label.htmlFor = article.id + "-" + label.htmlFor;
      });
      form.querySelectorAll("[aria-describedby]").forEach(function (el) {
        var ids = el.getAttribute("aria-describedby").split(/\s+/);
        el.setAttribute("aria-describedby", ids.map(function (id) { return article.id + "-" + id; }).join(" "));
      });
      article.insertAdjacentElement("afterend", form);
      link.setAttribute("aria-expanded", "true");
      form.querySelector("textarea").focus();
    }).catch(function () {
      window.location.href = link.href;
    }).finally(function () {
      link.removeAttribute("aria-busy");
    });
  }

  function loadMore(button, section) {
    var next = section.querySelector(".pagination a[rel=next]");
    var list = section.querySelector("ol.comment-list");
    if (!next || !list) return;
    button.disabled = true;
    fetchPage(next.href).then(function (doc) {
      var fresh = doc.querySelector("#comments ol.comment-list");
      var items = fresh ? Array.prototype.slice.call(fresh.children) : [];
      // A page that opens below the indent limit starts with "Continue this thread";
      // the list already offers that link when it ends with the comment at the limit.
      items = items.filter(function (item) {
        var link = item.classList.contains("continued") && item.querySelector("a.continue-thread");
        return !link || !list.querySelector("a.continue-thread[href='" + link.getAttribute("href") + "']");
      });
      items.forEach(function (item) {
        list.appendChild(document.adoptNode(item));
        restoreBranches(item);
      });
      var oldNav = section.querySelector(".pagination");
      var newNav = doc.querySelector("#comments .pagination");
      if (oldNav && newNav) oldNav.replaceWith(document.adoptNode(newNav));
      if (!section.querySelector(".pagination a[rel=next]")) button.remove();
      button.disabled = false;
      // The first new comment takes the focus, so the reader (and a screen reader)
      // carries on where the new comments start.
      var first = items.map(function (item) { return item.querySelector("article.comment"); })
        .filter(Boolean)[0];
      if (first) first.focus();
    }).catch(function () {
      window.location.href = next.href;
    });
  }

  function addLoadMore(section) {
    if (!section.querySelector(".pagination a[rel=next]") || !section.querySelector("ol.comment-list")) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "load-more secondary";
    var pagination = section.querySelector(".pagination");
    // The label comes from the page, in the reader's language.
    button.textContent = pagination.getAttribute("data-load-more") || "Load more comments";
    button.addEventListener("click", function () { loadMore(button, section); });
    pagination.insertAdjacentElement("beforebegin", button);
  }

  var BRANCH_KEY = "slugline-comments:collapsed:";

  function branchKey(details) {
    return BRANCH_KEY + window.location.pathname + "#" + details.getAttribute("data-branch");
  }

  function remember(details) {
    try {
      if (details.open) window.sessionStorage.removeItem(branchKey(details));
      else window.sessionStorage.setItem(branchKey(details), "1");
    } catch (e) { /* no storage: the branches open with each page */ }
  }

  function restoreBranches(root) {
    root.querySelectorAll("details.comment-replies[data-branch]").forEach(function (details) {
      try {
        if (window.sessionStorage.getItem(branchKey(details))) details.open = false;
      } catch (e) { /* no storage */ }
    });
  }

  // The comment a #c-… address names, shown even inside collapsed branches.
  function revealTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    var opened = false;
    for (var node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS" && node.classList.contains("comment-replies") && !node.open) {
        node.open = true;
        opened = true;
      }
    }
    if (opened) {
      target.scrollIntoView();
      if (target.matches("article.comment")) target.focus({ preventScroll: true });
    }
  }

  function depthOf(element) {
    var article = element && element.querySelector("article.comment");
    return article ? Number(article.getAttribute("data-depth")) : 0;
  }

  // Puts a new comment's list item after `host` (the item of the comment before it),
  // in the branch of its parent: out of the collapsible branches of comments it does not
  // answer, and at the start of `host`'s own branch when it answers `host`.
  function placeAfter(host, item) {
    var depth = depthOf(item);
    var node = host;
    for (;;) {
      var details = node.parentElement && node.parentElement.closest("details.comment-replies");
      if (!details || Number(details.getAttribute("data-depth")) < depth) break;
      node = details.closest("li.comment-branch");
    }
    var branch = node.nextElementSibling;
    if (node === host && branch && branch.classList.contains("comment-branch")) {
      var list = branch.querySelector("ol.comment-list");
      if (depthOf(host) < depth && list) {
        list.insertBefore(item, list.firstChild);
        return;
      }
      node = branch;
    }
    node.insertAdjacentElement("afterend", item);
  }
  // For posting.js and live.js, which come after this script.
  window.sluglineComments = { placeAfter: placeAfter };

  document.addEventListener("toggle", function (event) {
    var details = event.target;
    if (details.matches && details.matches("details.comment-replies[data-branch]")) remember(details);
  }, true);
  window.addEventListener("hashchange", revealTarget);

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".comment-actions a[href$='#reply']");
    if (!link || event.defaultPrevented || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    // On the comment's own page the form is already there: follow the link to it.
    if (link.pathname === window.location.pathname && document.getElementById("reply")) return;
    event.preventDefault();
    openReply(link);
  });

  var section = document.getElementById("comments");
  if (section) {
    addLoadMore(section);
    restoreBranches(section);
  }
  revealTarget();
})();
