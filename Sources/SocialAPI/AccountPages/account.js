// The account pages (/account/verify, /account/reset). A file of its own, never inline: the
// pages' Content-Security-Policy allows scripts from this server only. The words come from the
// page's data-* attributes, written by the server in the browser's language.
"use strict";

(function () {
  var page = document.getElementById("page");
  if (!page) { return; }
  var words = page.dataset;
  var token = new URLSearchParams(window.location.search).get("token") || "";
  var status = document.getElementById("status");

  function show(text, kind) {
    status.textContent = text;
    status.className = kind;
  }

  // POSTs JSON; calls back with the HTTP status and the error code of the envelope, if any.
  function post(path, body, done) {
    fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit",
      cache: "no-store"
    }).then(function (response) {
      if (response.status === 204) { done(204, null); return; }
      return response.json().then(function (json) {
        done(response.status, json && json.error ? json.error.code : null);
      }, function () { done(response.status, null); });
    }, function () { done(0, null); });
  }

  function failure(code) {
    if (code === "invalid_token") { return words.invalid; }
    if (code === "validation_failed") { return words.weak; }
    if (code === "rate_limited") { return words.later; }
    return words.error;
  }

  if (!token) { show(words.invalid, "error"); return; }

  if (words.page === "verify") {
    show(words.working, "");
    post("/v1/email-verifications/confirm", { token: token }, function (code, error) {
      if (code === 204) { show(words.done, "ok"); } else { show(failure(error), "error"); }
    });
    return;
  }

  var form = document.getElementById("reset-form");
  var password = document.getElementById("password");
  var repeat = document.getElementById("repeat");
  var submit = document.getElementById("submit");
  form.classList.remove("hidden");
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (password.value !== repeat.value) { show(words.mismatch, "error"); return; }
    submit.disabled = true;
    show(words.working, "");
    post("/v1/password-resets/confirm", { token: token, password: password.value }, function (code, error) {
      if (code === 204) {
        form.classList.add("hidden");
        show(words.done, "ok");
      } else {
        submit.disabled = false;
        show(failure(error), "error");
      }
    });
  });
})();
