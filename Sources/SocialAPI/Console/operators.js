// The operators' screens of the console (admins): the rally calendar with its import, the
// announcements, and the last 30 days as a chart. Built on console.js's helpers
// (window.PacenoteConsole), so text from the API only ever becomes text nodes, and drawn with
// the browser's own SVG: no library, nothing from another host (the CSP allows neither).
"use strict";

(() => {
  const { api, el, time, showStatus, loadPage, loaders, adminViews } = window.PacenoteConsole;
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  for (const view of ["calendar", "announcements", "stats"]) adminViews.add(view);

  // A button that asks once more before it acts: "Delete" becomes "Really delete?".
  function twoStepButton(label, confirmLabel, perform) {
    const button = el("button", { type: "button", class: "danger" }, label);
    let armed = false;
    button.addEventListener("click", async () => {
      if (!armed) {
        armed = true;
        button.textContent = confirmLabel;
        setTimeout(() => { armed = false; button.textContent = label; }, 4000);
        return;
      }
      button.disabled = true;
      try { await perform(); } catch (error) { showStatus(error.message); button.disabled = false; }
    });
    return button;
  }

  // --- The calendar ---------------------------------------------------------------------------

  const DATE = /^\d{4}-\d{2}-\d{2}$/;

  function season() {
    const value = Number($("season").value);
    return Number.isInteger(value) && value >= 1900 ? value : new Date().getUTCFullYear();
  }

  async function loadCalendar() {
    if (!$("season").value) $("season").value = String(new Date().getUTCFullYear());
    try {
      const list = await api("GET", "/v1/rallies?season=" + season());
      $("calendar").replaceChildren(...list.items.map(rallyRow));
      $("calendar-empty").hidden = list.items.length > 0;
    } catch (error) { showStatus(error.message); }
  }

  function rallyRow(rally) {
    return el("li", { class: "row rally", "data-rally-id": rally.id },
      el("span", { class: "when" }, rally.startDate + " – " + rally.endDate),
      el("strong", { class: "name" }, rally.name),
      el("span", { class: "country" }, rally.country),
      el("span", { class: "badge-inline " + rally.status }, rally.status),
      el("span", { class: "note" }, rally.videosCount + (rally.videosCount === 1 ? " video" : " videos")),
      el("span", { class: "actions" },
        el("button", { type: "button", onclick: () => editRally(rally) }, "Edit"),
        twoStepButton("Delete", "Really delete?", async () => {
          await api("DELETE", "/v1/rallies/" + encodeURIComponent(rally.id));
          showStatus("Deleted " + rally.name + ".", "ok");
          loadCalendar();
        })));
  }

  function editRally(rally) {
    $("rally-form-title").textContent = rally ? "Edit " + rally.name : "New rally";
    $("rally-id").value = rally ? rally.id : "";
    $("rally-name").value = rally ? rally.name : "";
    $("rally-country").value = rally ? rally.country : "";
    $("rally-start").value = rally ? rally.startDate : "";
    $("rally-end").value = rally ? rally.endDate : "";
    $("rally-save").textContent = rally ? "Save" : "Create";
    $("rally-new").hidden = !rally;
    if (rally) $("rally-name").focus();
  }

  async function saveRally(event) {
    event.preventDefault();
    const id = $("rally-id").value;
    const body = { name: $("rally-name").value, country: $("rally-country").value, startDate: $("rally-start").value, endDate: $("rally-end").value };
    try {
      const saved = await api(id ? "PATCH" : "POST", id ? "/v1/rallies/" + encodeURIComponent(id) : "/v1/rallies", body);
      showStatus((id ? "Saved " : "Created ") + saved.name + ".", "ok");
      editRally(null);
      $("season").value = saved.startDate.slice(0, 4);
      loadCalendar();
    } catch (error) { showStatus(error.message); }
  }

  // The file's rows, each checked here as the API will (its answer has the last word).
  let importRows = [];

  function parseCSV(text) {
    const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
    const cells = (line) => {
      const out = [];
      let cell = "", quoted = false;
      for (let i = 0; i < line.length; i++) {
        const c = line[i];
        if (quoted) {
          if (c === '"' && line[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
        } else if (c === '"') quoted = true; else if (c === ",") { out.push(cell); cell = ""; } else cell += c;
      }
      out.push(cell);
      return out.map((value) => value.trim());
    };
    const header = cells(lines.shift() || "");
    return lines.map((line) => {
      const values = cells(line);
      return Object.fromEntries(header.map((name, index) => [name, values[index] || ""]));
    });
  }

  function problem(row) {
    if (!row || typeof row !== "object") return "not an object";
    for (const key of ["name", "country", "startDate", "endDate"]) {
      if (typeof row[key] !== "string" || !row[key].trim()) return key + " is missing";
    }
    if (!DATE.test(row.startDate) || !DATE.test(row.endDate)) return "dates are YYYY-MM-DD";
    if (row.endDate < row.startDate) return "endDate is before startDate";
    return null;
  }

  async function readImport() {
    const file = $("import-file").files[0];
    importRows = [];
    $("import-rows").replaceChildren();
    $("import-preview").hidden = true;
    $("import-run").hidden = true;
    if (!file) return;
    let rows;
    try {
      const text = await file.text();
      rows = /\.json$/i.test(file.name) || text.trim().startsWith("[") ? JSON.parse(text) : parseCSV(text);
      if (!Array.isArray(rows)) throw new Error("the file holds no list of rallies");
    } catch (error) {
      showStatus("That file cannot be read: " + error.message + ".");
      return;
    }
    importRows = rows.map((row, index) => ({ index: index + 1, row, problem: problem(row), result: el("td", { class: "result" }) }));
    for (const entry of importRows) {
      entry.result.textContent = entry.problem ? "Will be skipped: " + entry.problem : "Ready";
      entry.result.className = "result " + (entry.problem ? "bad" : "ready");
      const r = entry.row || {};
      $("import-rows").append(el("tr", { "data-row": entry.index }, el("td", {}, String(entry.index)), el("td", {}, String(r.name || "")),
        el("td", {}, String(r.country || "")), el("td", {}, String(r.startDate || "")), el("td", {}, String(r.endDate || "")), entry.result));
    }
    const ready = importRows.filter((entry) => !entry.problem).length;
    $("import-preview").hidden = false;
    $("import-run").hidden = ready === 0;
    $("import-run").textContent = "Import " + ready + (ready === 1 ? " rally" : " rallies");
    showStatus("");
  }

  // One POST per row, in order; each row says what became of it.
  async function runImport() {
    $("import-run").disabled = true;
    let created = 0, failed = 0;
    for (const entry of importRows) {
      if (entry.problem) continue;
      const { name, country, startDate, endDate } = entry.row;
      try {
        const rally = await api("POST", "/v1/rallies", { name, country, startDate, endDate });
        entry.result.textContent = "Created";
        entry.result.className = "result ok";
        entry.result.dataset.id = rally.id;
        created++;
      } catch (error) {
        entry.result.textContent = "Refused: " + error.message;
        entry.result.className = "result bad";
        failed++;
      }
    }
    $("import-run").hidden = true;
    $("import-run").disabled = false;
    showStatus("Imported " + created + (created === 1 ? " rally" : " rallies") + (failed ? ", " + failed + " refused." : "."), failed ? "error" : "ok");
    const first = importRows.find((entry) => !entry.problem);
    if (first) $("season").value = first.row.startDate.slice(0, 4);
    loadCalendar();
  }

  // --- Announcements --------------------------------------------------------------------------

  async function loadAnnouncements(more) {
    if (!more) fillAudiences();
    return loadPage("announcements", "/v1/announcements?limit=20", more, announcementRow, "announcements-empty");
  }

  async function fillAudiences() {
    try {
      const year = new Date().getUTCFullYear();
      const lists = await Promise.all([year, year + 1].map((y) => api("GET", "/v1/rallies?season=" + y)));
      const chosen = $("ann-audience").value;
      $("ann-audience").replaceChildren(el("option", { value: "all" }, "Everyone"),
        ...lists.flatMap((list) => list.items).map((rally) => el("option", { value: rally.id }, "Who took part in " + rally.name + " (" + rally.startDate + ")")));
      $("ann-audience").value = [...$("ann-audience").options].some((o) => o.value === chosen) ? chosen : "all";
    } catch (_) { /* the audience stays "Everyone" */ }
  }

  function announcementRow(item) {
    const sent = typeof item.sentAt === "string";
    const audience = item.audience === "all" ? "everyone" : "rally " + (item.audience && item.audience.rallyId);
    return el("li", { class: "row announcement " + (sent ? "is-sent" : "is-scheduled"), "data-announcement-id": item.id },
      el("span", { class: "when" }, sent ? "Sent " + time(item.sentAt) : "Scheduled for " + time(item.sendAt)),
      el("strong", { class: "name" }, item.title.en),
      item.title.es ? el("span", { class: "note" }, item.title.es) : null,
      el("span", { class: "reason" }, item.body.en),
      el("span", { class: "target" }, "to " + audience),
      sent ? el("span", { class: "badge-inline sent" }, "sent") : el("span", { class: "actions" },
        el("span", { class: "badge-inline scheduled" }, "scheduled"),
        twoStepButton("Cancel", "Really cancel?", async () => {
          await api("DELETE", "/v1/announcements/" + encodeURIComponent(item.id));
          showStatus("Cancelled “" + item.title.en + "”.", "ok");
          loadAnnouncements(false);
        })));
  }

  async function sendAnnouncement(event) {
    event.preventDefault();
    const text = (id) => $(id).value.trim();
    const body = { title: { en: text("ann-title-en") }, body: { en: text("ann-body-en") } };
    if (text("ann-title-es")) body.title.es = text("ann-title-es");
    if (text("ann-body-es")) body.body.es = text("ann-body-es");
    body.audience = $("ann-audience").value === "all" ? "all" : { rallyId: $("ann-audience").value };
    if ($("ann-when").value === "at") {
      const at = new Date($("ann-at").value);
      if (Number.isNaN(at.getTime())) { showStatus("Choose when to send it."); return; }
      body.sendAt = at.toISOString();
    }
    $("ann-send").disabled = true;
    try {
      const created = await api("POST", "/v1/announcements", body);
      showStatus(body.sendAt ? "Scheduled for " + time(created.sendAt) + "." : "Sending now.", "ok");
      $("announcement-form").reset();
      $("ann-at-label").hidden = true;
      loadAnnouncements(false);
    } catch (error) {
      showStatus(error.message);
    } finally {
      $("ann-send").disabled = false;
    }
  }

  // --- Statistics -----------------------------------------------------------------------------

  const SERIES = [
    ["activeUsers", "Active users"], ["signups", "Sign-ups"], ["videos", "Videos"],
    ["likes", "Likes"], ["comments", "Comments"], ["flags", "Flags"],
  ];

  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }

  // One line per series over the 30 days, on one scale from 0 to the largest count.
  function chart(days) {
    const width = 720, height = 260, left = 40, right = 10, top = 10, bottom = 30;
    const max = Math.max(1, ...days.flatMap((day) => SERIES.map(([key]) => day[key] || 0)));
    const x = (i) => left + (days.length > 1 ? i * (width - left - right) / (days.length - 1) : 0);
    const y = (v) => top + (height - top - bottom) * (1 - v / max);
    const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "Daily counts over the last 30 days", class: "chart-svg" });
    for (const fraction of [0, 0.5, 1]) {
      const value = Math.round(max * fraction);
      root.append(svg("line", { x1: left, x2: width - right, y1: y(value), y2: y(value), class: "grid-line" }),
        svg("text", { x: left - 6, y: y(value) + 4, class: "axis", "text-anchor": "end" }, value));
    }
    days.forEach((day, i) => {
      // A label a week, and today's, never two on top of each other.
      if ((i % 7 === 0 && i < days.length - 4) || i === days.length - 1) root.append(svg("text", { x: x(i), y: height - 8, class: "axis", "text-anchor": "middle" }, day.date.slice(5)));
    });
    SERIES.forEach(([key, label], index) => {
      const points = days.map((day, i) => `${x(i).toFixed(1)},${y(day[key] || 0).toFixed(1)}`).join(" ");
      root.append(svg("polyline", { points, class: "series s" + index, "data-series": key }, svg("title", {}, label)));
    });
    return root;
  }

  async function loadStats() {
    try {
      const stats = await api("GET", "/v1/admin/stats");
      $("stats-chart").replaceChildren(chart(stats.days));
      $("stats-legend").replaceChildren(...SERIES.map(([key, label], index) =>
        el("li", { class: "s" + index }, el("span", { class: "swatch" }), label + ": " + stats.totals[key])));
      const row = (label, counts, cls) => el("tr", { class: cls || "" }, el("th", {}, label),
        ...["signups", "activeUsers", "videos", "likes", "comments", "flags"].map((key) => el("td", {}, String(counts[key] || 0))));
      $("stats-rows").replaceChildren(row("30 days", stats.totals, "totals"),
        ...stats.days.slice().reverse().map((day) => row(day.date, day)));
    } catch (error) { showStatus(error.message); }
  }

  // --- Wiring ---------------------------------------------------------------------------------

  loaders.calendar = () => loadCalendar();
  loaders.announcements = (more) => loadAnnouncements(more);
  loaders.stats = () => loadStats();

  document.addEventListener("DOMContentLoaded", () => {
    $("season-form").addEventListener("submit", (event) => { event.preventDefault(); loadCalendar(); });
    $("rally-form").addEventListener("submit", saveRally);
    $("rally-new").addEventListener("click", () => editRally(null));
    $("import-file").addEventListener("change", readImport);
    $("import-run").addEventListener("click", runImport);
    $("announcement-form").addEventListener("submit", sendAnnouncement);
    $("ann-when").addEventListener("change", () => { $("ann-at-label").hidden = $("ann-when").value !== "at"; });
    $("announcements-reload").addEventListener("click", () => loadAnnouncements(false));
    $("announcements-more").addEventListener("click", () => loadAnnouncements(true));
    $("stats-reload").addEventListener("click", loadStats);
  });
})();
