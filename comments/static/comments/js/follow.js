/* "Follow this thread" without leaving the page.
 *
 * The link fetches the follow page's form (with its own signed CSRF token) and:
 * - for a signed-in member (the form asks no address) sends it at once: the answer
 *   says what was done under the comment, and the link becomes the next toggle
 *   ("Stop following this thread", then "Follow this thread" again), whose form the
 *   answer carries;
 * - for a stranger opens the form under the comment, for the address.
 * The form is sent as it is, with the header Slugline-In-Place; the server
 * (comments/views/following.py) answers with HTML: `div.followed` once the follow is
 * stored or stopped (for a stranger: a confirmation mail was sent), else the form
 * again with its errors and the typed address (a bad address, 429), which replaces
 * this one's contents.
 * Without JavaScript, or when the site cannot be reached, the link opens the follow
 * page and the form posts as usual.
 */
(function () {
  "use strict";

  var shared = window.sluglineComments || {};
  // The form each link sends next (a member's toggle), once fetched.
  var forms = new WeakMap();

  function parse(html) {
    return new DOMParser().parseFromString(html, "text/html");
  }

  function announce(text) {
    if (shared.announce) shared.announce(text);
  }

  function articleOf(link) {
    return link.closest("article.comment");
  }

  // What was done, said under the comment (the last saying replaces the one before).
  function say(article, message) {
    var before = article.parentNode.querySelector(":scope > .follow-said");
    if (before) before.remove();
    var note = document.createElement("div");
    note.className = "follow-said";
    note.appendChild(document.adoptNode(message));
    article.insertAdjacentElement("afterend", note);
    announce(message.textContent.replace(/\s+/g, " ").trim());
  }

  function inline(article, form) {
    form = document.adoptNode(form);
    form.removeAttribute("id");
    form.classList.add("inline-follow");
    if (shared.reid) shared.reid(form, article.id + "-follow-");
    var open = article.parentNode.querySelector(":scope > form.inline-follow");
    if (open) open.replaceWith(form);
    else article.insertAdjacentElement("afterend", form);
    return form;
  }

  function focusFirst(form) {
    var target = form.querySelector(".form-errors") || form.querySelector(".has-error input") ||
      form.querySelector("input[type=email], input[name=email]") || form.querySelector("button[type=submit]");
    if (!target) return;
    if (!target.hasAttribute("tabindex") && !/^(INPUT|BUTTON)$/.test(target.tagName)) target.tabIndex = -1;
    target.focus();
  }

  function busy(element, on) {
    if (on) element.setAttribute("aria-busy", "true");
    else element.removeAttribute("aria-busy");
  }

  // Sends `form` (built from `source`: the form element whose fields go) for the comment
  // `article`; `shown`: the form open under the comment, if any.
  function send(link, article, source, shown) {
    busy(shown || link, true);
    return fetch(source.getAttribute("action"), {
      method: "POST",
      body: new FormData(source),
      credentials: "same-origin",
      headers: { "Slugline-In-Place": "1" },
    }).then(function (response) {
      return response.text().then(function (html) {
        var doc = parse(html);
        var done = response.ok && doc.querySelector("div.followed");
        var fresh = !response.ok && doc.querySelector("form.follow-form");
        if (!done && !fresh) throw new Error("unexpected answer " + response.status);
        busy(shown || link, false);
        if (fresh) {
          focusFirst(inline(article, fresh));
          return;
        }
        if (shown) {
          shown.remove();
          link.setAttribute("aria-expanded", "false");
        }
        var toggle = done.querySelector("form.follow-form");
        if (toggle) {
          forms.set(link, toggle);
          var label = toggle.querySelector("button[type=submit]");
          if (label) link.textContent = label.textContent.trim();
        }
        link.setAttribute("data-following", done.getAttribute("data-following") || "no");
        say(article, done.querySelector(".message"));
        link.focus();
      });
    });
  }

  function follow(link) {
    var article = articleOf(link);
    if (!article || link.getAttribute("aria-busy") === "true") return;
    var known = forms.get(link);
    var open = article.parentNode.querySelector(":scope > form.inline-follow");
    if (open) { focusFirst(open); return; }
    busy(link, true);
    var form = known ? Promise.resolve(known) : fetch(link.href, {
      credentials: "same-origin", headers: { Accept: "text/html" },
    }).then(function (response) {
      if (!response.ok) throw new Error(response.status);
      return response.text();
    }).then(function (html) {
      var found = parse(html).querySelector("form#follow");
      if (!found) throw new Error("no form");
      return found;
    });
    form.then(function (found) {
      busy(link, false);
      if (found.querySelector("input[name=email]")) {
        focusFirst(inline(article, found));
        link.setAttribute("aria-expanded", "true");
        return null;
      }
      return send(link, article, found, null);
    }).catch(function () {
      window.location.href = link.href;
    });
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest(".comment-actions a.comment-follow");
    if (!link || event.defaultPrevented || event.button !== 0 || !window.fetch || !window.DOMParser ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    // On the follow page itself the form is already there.
    if (link.pathname === window.location.pathname) return;
    event.preventDefault();
    follow(link);
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.matches || !form.matches("form.inline-follow")) return;
    event.preventDefault();
    if (form.getAttribute("aria-busy") === "true") return;
    var article = form.previousElementSibling;
    var link = article && article.querySelector(".comment-actions a.comment-follow");
    if (!link) { HTMLFormElement.prototype.submit.call(form); return; }
    send(link, article, form, form).catch(function () {
      // The site could not be reached or answered oddly: post the usual way.
      busy(form, false);
      HTMLFormElement.prototype.submit.call(form);
    });
  });
})();
