/* Posting a comment (and previewing it) without leaving the page.
 *
 * The comment forms are sent as they are, with the header Slugline-In-Place; the
 * server (comments/views/in_place.py) decides everything and answers with HTML:
 * - a stored comment: `div.posted`, the comment drawn by the server's own include,
 *   with `data-after` (the comment it follows in this page; "" for the first) when
 *   it belongs in the page the reader has open, else a link to the page that shows
 *   it; the count for the comment section's heading; and a fresh form token for the
 *   next comment;
 * - anything else (errors, 429, 503, a preview): the form again, which replaces
 *   this one's contents, the reader's text included.
 * "Edit" opens the edit page's form under the comment; a saved edit answers with the
 * comment drawn again (`div.edited`), which takes the place of the old one. The form's
 * "Delete this comment" leads to the page that asks first, as without JavaScript;
 * its "Cancel" closes the form and gives the focus back to "Edit".
 * This file only puts the answer where the server says and moves the focus.
 * Without JavaScript, or when the site cannot be reached, the form posts as usual.
 */
(function () {
  "use strict";

  var live = null;

  function announce(text) {
    if (!live) {
      live = document.createElement("div");
      // comments-status: hidden by the app's stylesheet on a page without the host's .visually-hidden.
      live.className = "visually-hidden comments-status";
      live.setAttribute("role", "status");
      live.setAttribute("aria-live", "polite");
      document.body.appendChild(live);
    }
    live.textContent = "";
    // A change after the region exists is what screen readers announce.
    window.setTimeout(function () { live.textContent = text; }, 100);
  }

  function parse(html) {
    return new DOMParser().parseFromString(html, "text/html");
  }

  // A reply form opened under a comment (section.js) gives its ids the comment's
  // anchor as a prefix, so that they do not clash with the page's own form.
  // An edit form opened under a comment (below) gives them "<anchor>-edit-".
  function prefixOf(form) {
    var article = form.previousElementSibling;
    if (!article || !article.id) return "";
    if (form.classList.contains("inline-reply")) return article.id + "-";
    if (form.classList.contains("inline-edit")) return article.id + "-edit-";
    return "";
  }

  function reid(root, prefix) {
    if (!prefix) return;
    root.querySelectorAll("[id]").forEach(function (el) { el.id = prefix + el.id; });
    root.querySelectorAll("label[for]").forEach(function (label) { label.htmlFor = prefix + label.htmlFor; });
    ["aria-describedby", "aria-labelledby"].forEach(function (name) {
      root.querySelectorAll("[" + name + "]").forEach(function (el) {
        el.setAttribute(name, el.getAttribute(name).split(/\s+/).map(function (id) { return prefix + id; }).join(" "));
      });
    });
  }

  // For follow.js, which comes after this script (section.js made the object).
  if (window.sluglineComments) {
    window.sluglineComments.reid = reid;
    window.sluglineComments.announce = announce;
  }

  function replaceForm(form, fresh) {
    var heading = form.querySelector("h3");
    reid(fresh, prefixOf(form));
    form.replaceChildren.apply(form, Array.prototype.slice.call(fresh.childNodes));
    if (heading) form.insertBefore(heading, form.firstChild);
    var target = form.querySelector(".comment-preview") || form.querySelector(".form-errors") ||
      form.querySelector(".has-error input, .has-error textarea");
    if (target) {
      if (!target.hasAttribute("tabindex") && !/^(INPUT|TEXTAREA)$/.test(target.tagName)) target.tabIndex = -1;
      target.focus();
    }
  }

  function commentList(section) {
    var list = section.querySelector("ol.comment-list");
    if (list) return list;
    list = document.createElement("ol");
    list.className = "comment-list";
    var empty = section.querySelector(".no-comments");
    if (empty) empty.replaceWith(list);
    else return null;
    return list;
  }

  // Puts the new comment's item where the server says; false if this page cannot.
  function insert(item, after) {
    var section = document.getElementById("comments");
    if (!section) return false;
    if (after) {
      var before = document.getElementById(after);
      var host = before && section.contains(before) && before.closest("li.comment-item");
      if (!host) return false;
      if (window.sluglineComments) window.sluglineComments.placeAfter(host, item);
      else host.insertAdjacentElement("afterend", item);
      return true;
    }
    var list = commentList(section);
    if (!list) return false;
    var continued = list.querySelector(":scope > li.continued");
    if (continued) continued.insertAdjacentElement("afterend", item);
    else list.insertBefore(item, list.firstChild);
    return true;
  }

  function clearForm(form) {
    var text = form.querySelector("textarea[name=text]");
    if (text) text.value = "";
    form.querySelectorAll(".form-errors, .comment-preview, .field-error").forEach(function (el) { el.remove(); });
    form.querySelectorAll(".has-error").forEach(function (el) { el.classList.remove("has-error"); });
  }

  // The comment section's heading says the count the server gives ("24 comments").
  function recount(posted) {
    var count = posted.querySelector(".posted-count");
    var heading = document.querySelector("#comments #comments-title, #comments #replies-title");
    if (count && heading) heading.textContent = count.textContent.trim();
  }

  function showPosted(form, posted) {
    var token = form.querySelector("input[name=token]");
    if (token && posted.dataset.token) token.value = posted.dataset.token;
    recount(posted);
    var item = posted.querySelector("li.comment-item");
    var placed = item && insert(document.adoptNode(item), posted.dataset.after || "");
    var notice = null;
    if (!placed) {
      notice = document.adoptNode(posted.querySelector(".posted-elsewhere"));
      var said = item && item.querySelector(".confirmations");
      if (said) notice.insertBefore(said, notice.firstChild);
    }
    var inline = form.classList.contains("inline-reply");
    if (notice) form.insertAdjacentElement("beforebegin", notice);
    if (inline) {
      var article = form.previousElementSibling;
      var link = article && article.querySelector(".comment-actions a[aria-expanded]");
      if (link) link.setAttribute("aria-expanded", "false");
      form.remove();
    } else {
      clearForm(form);
    }
    // live.js: a comment of the reader's own is not news to them.
    document.dispatchEvent(new CustomEvent("comments:posted", { detail: { counted: posted.dataset.counted === "yes" } }));
    var said = (placed ? item : notice).querySelector(".confirmations");
    if (said) announce(said.textContent.replace(/\s+/g, " ").trim());
    var focus = placed ? item.querySelector("article.comment") : notice.querySelector("a");
    if (focus) {
      if (!focus.hasAttribute("tabindex") && focus.tagName !== "A") focus.tabIndex = -1;
      focus.focus();
    }
  }

  function showEdited(form, edited) {
    var old = form.previousElementSibling;
    var fresh = document.adoptNode(edited.querySelector("article.comment"));
    var said = edited.querySelector(".confirmations");
    var next = old.nextElementSibling;
    if (next && next.classList.contains("confirmations")) next.remove();
    old.replaceWith(fresh);
    form.remove();
    if (said) {
      fresh.insertAdjacentElement("afterend", document.adoptNode(said));
      announce(said.textContent.replace(/\s+/g, " ").trim());
    }
    fresh.focus();
  }

  function openEdit(link) {
    var article = link.closest("article.comment");
    var open = article.parentNode.querySelector(":scope > form.inline-edit");
    if (open) { open.querySelector("textarea").focus(); return; }
    link.setAttribute("aria-busy", "true");
    fetch(link.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var form = parse(html).querySelector("form#edit");
        if (!form) throw new Error("no form");
        form = document.adoptNode(form);
        form.removeAttribute("id");
        form.classList.add("inline-edit");
        article.insertAdjacentElement("afterend", form);
        reid(form, prefixOf(form));
        link.setAttribute("aria-expanded", "true");
        form.querySelector("textarea").focus();
      })
      .catch(function () { window.location.href = link.href; })
      .finally(function () { link.removeAttribute("aria-busy"); });
  }

  function closeEdit(form) {
    var article = form.previousElementSibling;
    var link = article && article.querySelector(".comment-actions a.comment-edit");
    form.remove();
    if (link) {
      link.setAttribute("aria-expanded", "false");
      link.focus();
    }
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest || event.defaultPrevented || event.button !== 0 ||
        event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    var cancel = event.target.closest("form.inline-edit a.edit-cancel");
    if (cancel) {
      event.preventDefault();
      closeEdit(cancel.closest("form"));
      return;
    }
    var link = event.target.closest(".comment-actions a.comment-edit");
    if (!link || !window.fetch) return;
    event.preventDefault();
    openEdit(link);
  });

  function busy(form, on) {
    form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = on; });
    if (on) form.setAttribute("aria-busy", "true");
    else form.removeAttribute("aria-busy");
  }

  function send(form, submitter) {
    var data = new FormData(form, submitter || undefined);
    busy(form, true);
    // Whatever goes wrong below leaves the form usable (the caller posts it the usual way).
    // getAttribute: `form.action` would be the button named "action" (Preview).
    return fetch(form.getAttribute("action").split("#")[0], {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "Slugline-In-Place": "1", "Slugline-Page": window.location.pathname + window.location.search },
    }).then(function (response) {
      return response.text().then(function (html) {
        var doc = parse(html);
        var posted = response.status === 201 && doc.querySelector("div.posted");
        var edited = response.ok && form.classList.contains("inline-edit") && doc.querySelector("div.edited");
        var fresh = doc.querySelector("form.comment-form");
        if (posted) return function () { showPosted(form, posted); };
        if (edited) return function () { showEdited(form, edited); };
        if (fresh) return function () { replaceForm(form, fresh); };
        throw new Error("unexpected answer " + response.status);
      });
    }).then(function (show) {
      busy(form, false);
      show();
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.matches || !form.matches("form.comment-form") ||
        !(form.querySelector("input[name=token]") || form.classList.contains("inline-edit")) ||
        !window.fetch || !window.DOMParser) return;
    event.preventDefault();
    // One request at a time: a double click sends the form once (and the form's
    // token would make a second send store nothing more).
    if (form.getAttribute("aria-busy") === "true") return;
    var submitter = event.submitter;
    Promise.resolve().then(function () { return send(form, submitter); }).catch(function () {
      // The site could not be reached or answered oddly: post the usual way.
      busy(form, false);
      if (submitter && submitter.name) {
        var field = document.createElement("input");
        field.type = "hidden";
        field.name = submitter.name;
        field.value = submitter.value;
        form.appendChild(field);
      }
      HTMLFormElement.prototype.submit.call(form);
    });
  });
})();
