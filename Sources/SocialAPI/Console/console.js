// Pacenote's moderation console: plain JavaScript speaking the public API (/v1) with the
// moderator's session. User content only ever reaches the page as text (textContent and
// text nodes); nothing here assigns HTML. The session token lives in this script's memory
// and in sessionStorage of the console's own origin (gone when the tab closes; no cookie),
// so a script from another origin can never read it.
"use strict";

(() => {
  const SESSION_KEY = "pacenote.console.session";
  const state = { token: null, me: null, view: "queue", cursors: {} };
  const $ = (id) => document.getElementById(id);

  // --- DOM helpers: every string becomes a text node ---------------------------------------

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "class") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function time(iso) {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
  }

  // Only the two YouTube hosts the API derives URLs for; anything else is not linked.
  function safeURL(value, prefix) {
    return typeof value === "string" && value.startsWith(prefix) ? value : null;
  }

  // A user's picture is loaded by its path on this origin, never from the URL as given:
  // avatarUrl and avatarThumbnailUrl are absolute on the public host (--public-url), which
  // need not be the origin this console was loaded from (an operator on 127.0.0.1, a tunnel),
  // and the CSP's img-src allows this origin and YouTube's thumbnails only, kept that narrow
  // rather than widened to a host only known at run time. Like every API call here, the path
  // is taken from this origin's root: the part of the URL's path from its last
  // /media/avatars/ on. Anything else is not loaded.
  function picturePath(url) {
    if (typeof url !== "string" || !url) return null;
    let path;
    try { path = new URL(url, location.href).pathname; } catch (_) { return null; }
    const match = /\/media\/avatars\/([0-9A-Za-z._-]+)$/.exec(path);
    return match ? "/media/avatars/" + match[1] : null;
  }

  // A user's thumbnail (100 px), or a neutral silhouette when they have none (or it does not
  // load: removed since, or its owner banned). `size` is "small", "" or "large" (CSS).
  function avatar(user, size) {
    const name = user ? "@" + user.username : "a deleted user";
    const placeholder = () => el("span", { class: "avatar none " + (size || ""), role: "img", "aria-label": name + " has no picture" });
    const src = user ? picturePath(user.avatarThumbnailUrl) : null;
    if (!src) return placeholder();
    return el("img", { class: "avatar " + (size || ""), src, alt: "Picture of " + name, width: 100, height: 100,
      loading: "lazy", decoding: "async", onerror: (event) => event.target.replaceWith(placeholder()) });
  }

  // A user as the console shows them: the thumbnail, then @username.
  function person(user, size, nameClass) {
    return el("span", { class: "person" }, avatar(user, size),
      el("span", { class: nameClass || "name" }, user ? "@" + user.username : "a deleted user"));
  }

  // The moderator action on a user's picture, offered only when they have one; the view is
  // reloaded after it (confirmAction), so the picture is gone from every place it showed.
  function removePictureButton(user) {
    if (!user || !user.avatarThumbnailUrl) return null;
    return actionButton("Remove picture", "danger", "Remove @" + user.username + "'s picture",
      "Remove @" + user.username + "'s profile picture for everyone. They can upload a new one.",
      async (reason) => {
        const updated = await api("DELETE", "/v1/moderation/users/" + encodeURIComponent(user.id) + "/avatar", { reason });
        if (updated && state.me && updated.id === state.me.id) {
          state.me = Object.assign({}, state.me, { avatarUrl: updated.avatarUrl, avatarThumbnailUrl: updated.avatarThumbnailUrl });
          renderWho();
        }
      });
  }

  function showStatus(message, kind) {
    const status = $("status");
    status.textContent = message || "";
    status.className = "status " + (kind || "error");
    status.hidden = !message;
  }

  // --- API ----------------------------------------------------------------------------------

  class APIError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (state.token) headers["Authorization"] = "Bearer " + state.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit", cache: "no-store", referrerPolicy: "no-referrer",
    });
    if (response.status === 204) return null;
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    if (!response.ok) {
      const error = (data && data.error) || {};
      if (response.status === 401 && state.token) forgetSession();
      throw new APIError(response.status, error.code || "error", error.message || ("The server answered " + response.status + "."));
    }
    return data;
  }

  function withCursor(path, cursor) {
    if (!cursor) return path;
    return path + (path.includes("?") ? "&" : "?") + "cursor=" + encodeURIComponent(cursor);
  }

  // --- Session ------------------------------------------------------------------------------

  function forgetSession() {
    state.token = null;
    state.me = null;
    try { sessionStorage.removeItem(SESSION_KEY); } catch (_) { /* storage unavailable */ }
    render();
  }

  async function signIn(event) {
    event.preventDefault();
    showStatus("");
    const login = $("login").value;
    const password = $("password").value;
    $("signin-submit").disabled = true;
    try {
      const answer = await api("POST", "/v1/sessions", { login, password });
      $("password").value = "";
      await adopt(answer.sessionToken, answer.user);
    } catch (error) {
      showStatus(error.code === "account_banned" ? "This account is banned." : error.message);
    } finally {
      $("signin-submit").disabled = false;
    }
  }

  // Keeps a session only when it belongs to a moderator or an admin; anyone else is told so
  // and their new session is ended at once.
  async function adopt(token, user) {
    state.token = token;
    if (user.role !== "moderator" && user.role !== "admin") {
      try { await api("DELETE", "/v1/sessions/current"); } catch (_) { /* ending it is a courtesy */ }
      state.token = null;
      $("signin").hidden = true;
      $("refusal").hidden = false;
      $("refusal-text").textContent = "The account " + user.username +
        " is not a moderator or an admin, so it cannot use this console. Ask an admin for the moderator role.";
      return;
    }
    state.me = user;
    try { sessionStorage.setItem(SESSION_KEY, token); } catch (_) { /* memory only */ }
    state.view = "queue";
    render();
  }

  async function signOut() {
    try { await api("DELETE", "/v1/sessions/current"); } catch (_) { /* already ended */ }
    forgetSession();
  }

  async function resume() {
    let token = null;
    try { token = sessionStorage.getItem(SESSION_KEY); } catch (_) { token = null; }
    if (!token) return render();
    state.token = token;
    try {
      const me = await api("GET", "/v1/users/me");
      await adopt(token, me);
    } catch (_) {
      forgetSession();
    }
  }

  // --- Views --------------------------------------------------------------------------------

  const loaders = { queue: loadQueue, log: loadLog, users: () => {}, dead: loadDead };
  // Views only admins see; operators.js adds its own (the calendar, announcements, statistics).
  const adminViews = new Set(["users", "dead"]);

  function render() {
    const signedIn = Boolean(state.token && state.me);
    $("nav").hidden = !signedIn;
    document.body.classList.toggle("is-admin", signedIn && state.me.role === "admin");
    for (const view of ["signin"].concat(Object.keys(loaders))) {
      $("view-" + view).hidden = signedIn ? view !== state.view : view !== "signin";
    }
    for (const tab of document.querySelectorAll(".tab")) {
      tab.classList.toggle("active", tab.dataset.view === state.view);
    }
    if (!signedIn) {
      $("signin").hidden = false;
      return;
    }
    $("refusal").hidden = true;
    renderWho();
    loaders[state.view](false);
  }

  function renderWho() {
    $("who").replaceChildren(avatar(state.me, "small"), el("span", {}, state.me.username + " · " + state.me.role));
  }

  function show(view) {
    if (adminViews.has(view) && state.me.role !== "admin") return;
    state.view = view;
    showStatus("");
    render();
  }

  async function loadPage(list, path, more, build, emptyNote) {
    const cursor = more ? state.cursors[list] : null;
    try {
      const page = await api("GET", withCursor(path, cursor));
      if (!more) $(list).replaceChildren();
      for (const item of page.items) $(list).append(build(item));
      state.cursors[list] = page.nextCursor;
      $(list + "-more").hidden = !page.nextCursor;
      if (emptyNote) $(emptyNote).hidden = $(list).children.length > 0;
    } catch (error) {
      showStatus(error.message);
    }
  }

  // The action dialog: what will happen, a reason (required), Cancel or Confirm.
  function confirmAction(title, text, perform) {
    const dialog = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-reason").value = "";
    dialog.onsubmit = async (event) => {
      event.preventDefault();
      const reason = $("confirm-reason").value.trim();
      if (!reason) return;
      $("confirm-ok").disabled = true;
      try {
        await perform(reason);
        dialog.close();
        showStatus("Done: " + title + ".", "ok");
        loaders[state.view](false);
      } catch (error) {
        dialog.close();
        showStatus(error.message);
      } finally {
        $("confirm-ok").disabled = false;
      }
    };
    dialog.showModal();
    $("confirm-reason").focus();
  }

  function actionButton(label, kind, title, text, perform) {
    return el("button", { type: "button", class: kind, onclick: () => confirmAction(title, text, perform) }, label);
  }

  // Queue: each flagged video with its thumbnail, title, owner, flags and the actions.
  function loadQueue(more) {
    return loadPage("queue", "/v1/moderation/queue?limit=20", more, queueItem, "queue-empty");
  }

  function queueItem(item) {
    const video = item.video;
    const quoted = "“" + video.title + "”";
    const thumbnail = safeURL(video.thumbnailUrl, "https://i.ytimg.com/");
    const watch = safeURL(video.watchUrl, "https://www.youtube.com/");
    // The video's public page (serve --public-web); null without it. Absolute on the public
    // address, so only an http(s) URL is linked.
    const share = safeURL(video.shareUrl, "https://") || safeURL(video.shareUrl, "http://");
    const post = (action) => (reason) => api("POST", "/v1/moderation/videos/" + encodeURIComponent(video.id) + "/" + action, { reason });
    const flags = (item.flags || []).map((flag) => el("li", {},
      person(flag.user, "small", "flagger"),
      flag.reason ? el("span", { class: "reason" }, flag.reason) : el("span", { class: "reason none" }, "no reason given")));
    return el("li", { class: "card video" + (video.hidden ? " is-hidden" : ""), "data-video-id": video.id },
      el("div", { class: "thumb" },
        // A thumbnail that does not load leaves the grey frame rather than a broken-image icon.
        thumbnail ? el("img", { src: thumbnail, alt: "", loading: "lazy", width: 480, height: 360, onerror: (event) => event.target.classList.add("broken") }) : null,
        el("span", { class: "badge count", title: "Flags" }, String(item.flagsCount) + (item.flagsCount === 1 ? " flag" : " flags")),
        video.hidden ? el("span", { class: "badge hidden" }, "Hidden") : null),
      el("div", { class: "body" },
        el("h3", { class: "title" }, video.title),
        el("p", { class: "meta byline" }, avatar(video.owner),
          el("span", {}, "by ", el("span", { class: "owner" }, "@" + video.owner.username),
            " · last flagged ", item.lastFlaggedAt ? time(item.lastFlaggedAt) : "never")),
        el("ul", { class: "flags" }, flags),
        watch ? el("a", { href: watch, target: "_blank", rel: "noopener noreferrer", class: "watch" }, "Watch on YouTube") : null,
        share ? el("a", { href: share, target: "_blank", rel: "noopener noreferrer", class: "share" }, "Public page") : null,
        el("div", { class: "actions" },
          video.hidden
            ? actionButton("Restore", "", "Restore video", "Show " + quoted + " to everyone again.", post("restore"))
            : actionButton("Hide", "danger", "Hide video", "Hide " + quoted + " from everyone but its owner and moderators.", post("hide")),
          actionButton("Dismiss flags", "", "Dismiss flags", "Clear the flags of " + quoted + "; it leaves the queue.", post("dismiss")),
          actionButton("Delete", "danger", "Delete video", "Delete " + quoted + " and everything about it. This cannot be undone.",
            (reason) => api("DELETE", "/v1/videos/" + encodeURIComponent(video.id), { reason })),
          video.owner.role === "user" || state.me.role === "admin"
            ? actionButton("Ban owner", "danger", "Ban @" + video.owner.username,
                "End @" + video.owner.username + "'s sessions and hide their videos, likes and comments until unbanned.",
                (reason) => api("POST", "/v1/moderation/users/" + encodeURIComponent(video.owner.id) + "/ban", { reason }))
            : null,
          removePictureButton(video.owner))));
  }

  // Log: who did what to what, when and why. An entry names its target by type and id only;
  // a user target is looked up (GET /v1/users/{id}, once per user and load) and shown as the
  // user is now, with their picture, or by its id when the account is gone.
  let logUsers = new Map();

  function loadLog(more) {
    if (!more) logUsers = new Map();
    return loadPage("log", "/v1/moderation/log?limit=50", more, (entry) => el("li", { class: "row", "data-action": entry.action },
      el("span", { class: "when" }, time(entry.createdAt)),
      el("span", { class: "actor" }, entry.actor ? person(entry.actor, "small") : "automatic"),
      el("span", { class: "action" }, entry.action.replace(/_/g, " ")),
      logTarget(entry.target),
      el("span", { class: "reason" }, entry.reason || "")));
  }

  function logTarget(target) {
    const node = el("span", { class: "target" }, target.type + " " + target.id);
    if (target.type !== "user") return node;
    if (!logUsers.has(target.id)) {
      logUsers.set(target.id, api("GET", "/v1/users/" + encodeURIComponent(target.id)).catch(() => null));
    }
    logUsers.get(target.id).then((user) => {
      if (!user) return;
      node.classList.add("is-user");
      node.replaceChildren(person(user, "small"));
    });
    return node;
  }

  // Users (admins): search, role changes and bans, and how each account signs in. Search
  // results do not say the latter: each row looks its user up (GET /v1/users/{id}, once per
  // user and load), which answers an admin the account's `identities` and `hasPassword`.
  let userWays = new Map();

  function searchUsers(event, more) {
    if (event) event.preventDefault();
    const query = $("user-query").value.trim();
    if (!query) return;
    if (!more) userWays = new Map();
    return loadPage("users", "/v1/search/users?limit=20&q=" + encodeURIComponent(query), more, userRow);
  }
  loaders.users = (more) => { if ($("user-query").value.trim()) searchUsers(null, more); };

  const PROVIDER_NAMES = { apple: "Apple", google: "Google", facebook: "Facebook", twitter: "Twitter" };

  // "Signs in with: password · Apple · Facebook" once the lookup answers; "No way in (password
  // reset only)" for an account with neither (an import without a usable hash or identity);
  // a neutral "—" when the lookup fails or does not say.
  function waysIn(user) {
    const node = el("span", { class: "ways", "data-state": "loading" }, "Signs in with: …");
    if (!userWays.has(user.id)) {
      userWays.set(user.id, api("GET", "/v1/users/" + encodeURIComponent(user.id)).catch(() => null));
    }
    userWays.get(user.id).then((found) => {
      if (!found || !Array.isArray(found.identities) || typeof found.hasPassword !== "boolean") {
        node.dataset.state = "unknown";
        node.replaceChildren("Signs in with: —");
        return;
      }
      const ways = (found.hasPassword ? ["password"] : []).concat(found.identities.map((name) => PROVIDER_NAMES[name] || String(name)));
      node.dataset.state = ways.length ? "known" : "none";
      node.replaceChildren(ways.length ? "Signs in with: " + ways.join(" · ") : "No way in (password reset only)");
    });
    return node;
  }

  function userRow(user) {
    const path = "/v1/users/" + encodeURIComponent(user.id);
    const role = el("select", { "aria-label": "Role of " + user.username },
      ["user", "moderator", "admin"].map((name) => el("option", { value: name, selected: name === user.role }, name)));
    const isMe = user.id === state.me.id;
    return el("li", { class: "row user" },
      el("span", { class: "name person" }, avatar(user, "large"),
        el("span", {}, el("strong", {}, "@" + user.username), " ", user.displayName, waysIn(user))),
      el("span", { class: "role" }, user.role),
      isMe ? el("span", { class: "note" }, "you") : el("span", { class: "actions" },
        role,
        el("button", { type: "button", onclick: () => confirmAction("Change role of @" + user.username,
          "Make @" + user.username + " " + role.value + ". It applies at once to their open sessions.",
          (reason) => api("PUT", path + "/role", { role: role.value, reason })) }, "Change role"),
        actionButton("Ban", "danger", "Ban @" + user.username,
          "End @" + user.username + "'s sessions and hide their videos, likes and comments until unbanned.",
          (reason) => api("POST", "/v1/moderation" + path.slice(3) + "/ban", { reason })),
        actionButton("Unban", "", "Unban @" + user.username, "Let @" + user.username + " sign in again and show their content.",
          (reason) => api("POST", "/v1/moderation" + path.slice(3) + "/unban", { reason })),
        removePictureButton(user)));
  }

  // Dead letters (admins): deliveries that failed their last attempt, with a retry.
  function loadDead(more) {
    return loadPage("dead", "/v1/moderation/outbox/dead?limit=50", more, (job) => el("li", { class: "row" },
      el("span", { class: "when" }, time(job.createdAt)),
      el("span", { class: "action" }, job.lane + " · " + job.kind),
      el("span", { class: "target" }, job.attempts + " attempts"),
      el("span", { class: "reason" }, job.lastError || ""),
      el("button", { type: "button", onclick: async () => {
        try {
          await api("POST", "/v1/moderation/outbox/" + encodeURIComponent(job.seq) + "/retry");
          showStatus("Job " + job.seq + " will be retried.", "ok");
          loadDead(false);
        } catch (error) { showStatus(error.message); }
      } }, "Retry")), "dead-empty");
  }

  // What operators.js builds its views with: the same helpers, so that its user content also
  // only ever reaches the page as text. Frozen: nothing else can swap them.
  window.PacenoteConsole = Object.freeze({ api, el, time, showStatus, loadPage, loaders, adminViews, state });

  // --- Wiring -------------------------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", () => {
    $("signin").addEventListener("submit", signIn);
    $("sign-out").addEventListener("click", signOut);
    $("refusal-back").addEventListener("click", () => { $("refusal").hidden = true; $("signin").hidden = false; $("login").focus(); });
    for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
    $("queue-reload").addEventListener("click", () => loadQueue(false));
    $("queue-more").addEventListener("click", () => loadQueue(true));
    $("log-reload").addEventListener("click", () => loadLog(false));
    $("log-more").addEventListener("click", () => loadLog(true));
    $("user-search").addEventListener("submit", (event) => searchUsers(event, false));
    $("users-more").addEventListener("click", () => searchUsers(null, true));
    $("dead-reload").addEventListener("click", () => loadDead(false));
    $("dead-more").addEventListener("click", () => loadDead(true));
    $("confirm-cancel").addEventListener("click", () => $("confirm").close());
    resume();
  });
})();
