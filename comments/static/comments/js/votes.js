/* Votes on comments, in place: the vote buttons post to the same endpoint as without
 * JavaScript, asking for JSON, and the counts and pressed states change on the page.
 *
 * - A page of comments is shared between readers (cached), so it is drawn with no
 *   button pressed; this script asks the discussion's `votes/` address (the vote
 *   form's data-votes) for the reader's own votes and presses theirs.
 * - Comments appended later ("Load more comments") are pressed as they arrive.
 * - Pressing a pressed button takes the vote back (`vote=none`).
 * - The result is announced in the page's status region (#vote-status); a refused
 *   vote is also said in words under the comment's buttons, where the reader looks.
 *
 * Without JavaScript, or if a request fails, the buttons submit the page's vote form.
 */
(function () {
  "use strict";


// The discussion's `votes/` address, as the page's vote form names it (wherever the
// host mounts the app's URLs).
function votesUrl() {
  const form = document.getElementById("vote-form");
  return form ? form.dataset.votes || null : null;
}

function show(group, vote, up, down) {
  for (const button of group.querySelectorAll("button.vote")) {
    const pressed = button.dataset.vote === vote;
    button.setAttribute("aria-pressed", pressed ? "true" : "false");
    button.value = pressed ? "none" : button.dataset.vote;
  }
  if (up === undefined) return;
  group.querySelector('[data-count="up"]').textContent = up;
  group.querySelector('[data-count="down"]').textContent = down;
  const article = group.closest("article.comment");
  if (article) {
    article.dataset.votesUp = up;
    article.dataset.votesDown = down;
    article.dataset.score = up - down;
  }
}

function announce(text) {
  const status = document.getElementById("vote-status");
  if (status) status.textContent = text;
}

// A refusal shown under the comment's buttons (`text` null: the last one goes).
function sayRefused(group, text) {
  const actions = group.parentNode;
  let note = actions.querySelector(":scope > .vote-refused");
  if (!text) {
    if (note) note.remove();
    return;
  }
  if (!note) {
    note = document.createElement("p");
    note.className = "vote-refused message message-error";
    actions.appendChild(note);
  }
  note.textContent = text;
}

// The reader's votes on this discussion, by comment slug, once fetched.
let own = null;

function pressIn(root) {
  if (!own) return;
  for (const group of root.querySelectorAll(".comment-votes")) {
    const article = group.closest("article.comment");
    const vote = article && own[article.dataset.slug];
    if (vote && !group.dataset.pressed) {
      group.dataset.pressed = "yes";
      show(group, vote);
    }
  }
}

function pressOwn() {
  if (!document.querySelector(".comment-votes")) return;
  const url = votesUrl();
  if (!url) return;
  fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : { votes: {} }))
    .then((data) => {
      own = data.votes || {};
      pressIn(document);
      // Comments appended later ("Load more comments") get theirs too.
      new MutationObserver(() => pressIn(document)).observe(document.body, { childList: true, subtree: true });
    })
    .catch(() => {});
}

function submitPlainly(form, button) {
  form.action = button.formAction;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = "vote";
  field.value = button.value;
  form.appendChild(field);
  form.submit();
}

function vote(button) {
  const form = document.getElementById("vote-form");
  const group = button.closest(".comment-votes");
  if (!form || !group) return;
  const body = new FormData(form);
  body.set("vote", button.value);
  group.setAttribute("aria-busy", "true");
  fetch(button.formAction, {
    method: "POST", body, credentials: "same-origin", headers: { Accept: "application/json" },
  })
    .then((response) => response.json().then((data) => ({ ok: response.ok, data })))
    .then(({ ok, data }) => {
      if (ok) {
        group.dataset.pressed = "yes";
        if (own) own[data.slug] = data.vote;
        show(group, data.vote, data.up, data.down);
      }
      sayRefused(group, ok ? null : data.error);
      announce(ok ? data.message : data.error);
    })
    .catch(() => submitPlainly(form, button))
    .finally(() => group.removeAttribute("aria-busy"));
}

document.addEventListener("click", (event) => {
  const button = event.target.closest && event.target.closest(".comment-votes button.vote");
  if (!button) return;
  event.preventDefault();
  vote(button);
});

pressOwn();
})();
