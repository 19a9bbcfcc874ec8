#!/usr/bin/env python3
"""Turns a results folder of bench/run.sh into the markdown of BENCHMARKS.md.

Usage: bench/report.py bench/results/<timestamp>

Per scale, setup (sqlite, postgres, postgres-2) and scenario: median req/s, median p50 and
p99 of the runs, share of the nginx median measured in the same run; the setups of a scale
side by side; then the targets of the issue, each marked met or missed.
"""
import csv
import json
import os
import statistics
import sys

READS = ["video-by-id", "web-video", "web-day", "home-first", "home-deep", "news", "rally-top"]
# Issue 33: a public page at least half of GET /v1/videos/{id} in the same run.
WEB_PAGES = ["web-video", "web-day"]
# Issue 31: the original app's rally-day query through the Parse facade, within 2x of /v1's.
PARSE_PAIRS = {"parse-rally-top": "rally-top", "parse-home": "home-first"}
PARSE_RATIO_TARGET = 0.5
ORDER = ["nginx"] + READS + list(PARSE_PAIRS) + ["like-unlike", "comment", "login", "mix", "search", "me", "me-during-search", "search-paced", "search-light",
                             "avatar", "avatar-thumb", "video-by-id-during-uploads", "uploads"]
# Issue 29: the renditions as fast as a video by id, and the reads unharmed by uploads.
AVATARS = ["avatar", "avatar-thumb"]
READ_P99_DURING_UPLOADS_MS = 20
SHARE_TARGETS = {"video-by-id": 0.30, "home-first": 0.08, "news": 0.08, "rally-top": 0.08}  # page 50: the ratio
# Issue 15's targets (they raised issue 4's 3,000 likes and 2,000 comments per second).
WRITES = ["like-unlike", "comment", "mix"]
WRITE_TARGETS = {"like-unlike": 5000, "comment": 3000, "mix": 5000}
WRITE_P99_MS = 50
DRAIN_TARGET_S = 5  # after 10 s of writes at full speed, everything fanned out within 5 s
SERVER_RSS_TARGET_MIB = 200  # on the large dataset
DESCRIPTIONS = {
    "nginx": "nginx, fixed JSON (ceiling)",
    "video-by-id": "GET /v1/videos/{id}",
    "web-video": "GET /v/{id}, a video's public page (HTML, anonymous)",
    "web-day": "GET /r/{id}/{n}, the busiest day's public page (HTML: 5 top + 15 recent)",
    "home-first": "GET /v1/feed/home, first page",
    "home-deep": "GET /v1/feed/home, page 50",
    "news": "GET /v1/feed/news",
    "rally-top": "GET /v1/rallies/{id}/days/{n}/videos?sort=top",
    "parse-rally-top": "GET /parse/classes/Video?where={rallyId,nDay}&order=-nLikes&include=owner (the same list, Parse)",
    "parse-home": "GET /parse/classes/Video?where={owner:{$select: my follows}}&order=-createdAt (home, Parse)",
    "like-unlike": "PUT + DELETE /v1/videos/{id}/like",
    "comment": "POST /v1/videos/{id}/comments",
    "login": "POST /v1/sessions (bcrypt cost 10)",
    "mix": "70% read / 20% like / 10% comment",
    "search": "GET /v1/search/{users,videos}?q= (words, 1-5 letter prefixes, two words)",
    "me": "GET /v1/users/me",
    "me-during-search": "GET /v1/users/me while 6 clients search once a second",
    "search-paced": "those 6 clients' searches (1/s each, beside me-during-search)",
    "search-light": "the search scenario at 32 clients searching once a second each",
    "avatar": "GET /media/avatars/{name}, 400 px (no session, from the picture cache)",
    "avatar-thumb": "GET /media/avatars/{name}, 100 px (no session, from the picture cache)",
    "video-by-id-during-uploads": "GET /v1/videos/{id} while 4 clients upload 12 MP photos",
    "uploads": "those 4 clients' PUT /v1/users/me/avatar (12 MP JPEG, beside video-by-id-during-uploads)",
}


def statuses(folder, scale, setup, name):
    """{status: count} over the runs of a scenario whose wrk script prints a `Statuses:` line."""
    total = {}
    raw = os.path.join(folder, "raw")
    prefix = f"{scale}-{setup}-{name}-"
    for file in sorted(os.listdir(raw)) if os.path.isdir(raw) else []:
        if file.startswith(prefix) and file[len(prefix):-4].isdigit():
            for line in open(os.path.join(raw, file)):
                if line.startswith("Statuses:"):
                    for part in line.split()[1:]:
                        status, n = part.split("=")
                        total[status] = total.get(status, 0) + int(n)
    return total


SETUPS = ["sqlite", "postgres", "postgres-2"]
SETUP_TITLES = {"sqlite": "SQLite", "postgres": "PostgreSQL, 1 server", "postgres-2": "PostgreSQL, 2 servers behind nginx"}


def key(scale, setup):
    """The file prefix of a scale's setup: SQLite's files keep the names they had before."""
    return scale if setup == "sqlite" else f"{scale}-{setup}"


def load(folder, name, default=None):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


def fmt(x, digits=0):
    if x is None:
        return "–"
    return f"{x:,.{digits}f}"


def pct(x):
    return "–" if x is None else f"{100 * x:.1f}%"


def mark(ok):
    return "–" if ok is None else ("met" if ok else "**missed**")


def medians(folder):
    """{(scale, setup, scenario): medians of its runs} of a results folder."""
    runs = {}
    for r in csv.DictReader(open(os.path.join(folder, "results.csv"))):
        runs.setdefault((r["scale"], r.get("setup", "sqlite"), r["scenario"]), []).append(r)
    return {k: {
        "rps": statistics.median(float(r["rps"]) for r in rs),
        "p50": statistics.median(float(r["p50_ms"]) for r in rs),
        "p99": statistics.median(float(r["p99_ms"]) for r in rs),
        "n": len(rs),
        "bad": sum(int(r["non2xx"]) + int(r["errors"]) for r in rs),
        "requests": sum(int(r["requests"]) for r in rs),
    } for k, rs in runs.items()}


def main():
    folder = sys.argv[1]
    machine = load(folder, "machine.json", {})
    med = medians(folder)
    scales = [s for s in ("small", "large", "small-social", "large-social") if any(k[0] == s for k in med)]
    setups = [s for s in SETUPS if any(k[1] == s for k in med)]

    out = []
    out.append(f"Results of `{machine.get('command', 'bench/run.sh')}`: median of {machine.get('runs', '?')} runs "
               f"of {machine.get('seconds', '?')} s each; `{machine.get('wrk', 'wrk')}` on loopback, the server "
               f"(and nginx) pinned to CPU 0, wrk to CPU 1"
               + (" (PostgreSQL, and for two servers the nginx in front of them, on CPU 0 too)" if setups != ["sqlite"] else "")
               + ".\n")
    targets = []  # (label, description, value text, ok)

    outbox_csv = os.path.join(folder, "outbox.csv")
    outbox = list(csv.DictReader(open(outbox_csv))) if os.path.exists(outbox_csv) else []
    for scale in scales:
        for setup in setups:
            if not any(k[0] == scale and k[1] == setup for k in med):
                continue
            targets += setup_section(out, folder, med, outbox, scale, setup, label=scale if setups == ["sqlite"] else f"{scale} {setup}",
                                     seconds=float(machine["seconds"]) if machine.get("seconds") else None)
        if len(setups) > 1:
            out.append(f"### {scale}: the setups side by side\n")
            out.append("| scenario | " + " | ".join(f"{SETUP_TITLES[s]} req/s (p99 ms)" for s in setups) + " |")
            out.append("|---|" + "---:|" * len(setups))
            for name in ORDER[1:] + sorted({k[2] for k in med if k[0] == scale} - set(ORDER)):
                cells = [med.get((scale, s, name)) for s in setups]
                if any(cells):
                    out.append(f"| {name} | " + " | ".join("–" if m is None else f"{fmt(m['rps'])} ({fmt(m['p99'], 2)})" for m in cells) + " |")
            out.append("")

    if "small" in scales and "large" in scales:
        for setup in setups:
            out.append(f"### large vs small{'' if setups == ['sqlite'] else f', {SETUP_TITLES[setup]}'}\n")
            out.append("| scenario | small req/s | large req/s | large / small |")
            out.append("|---|---:|---:|---:|")
            for name in ORDER[1:]:
                s, l = med.get(("small", setup, name)), med.get(("large", setup, name))
                if s and l:
                    ratio = l["rps"] / s["rps"]
                    out.append(f"| {name} | {fmt(s['rps'])} | {fmt(l['rps'])} | {pct(ratio)} |")
                    if name != "login":  # bcrypt-bound, the same at any scale
                        label = "large/small" if setups == ["sqlite"] else f"large/small {setup}"
                        targets.append((label, f"{name} large >= 80% of small", pct(ratio), ratio >= 0.8))
            out.append("")

    if targets:
        out.append("### Targets\n")
        out.append("| scale | target | measured | |")
        out.append("|---|---|---|---|")
        for label, what, value, ok in targets:
            out.append(f"| {label} | {what} | {value} | {mark(ok)} |")
        met = sum(1 for t in targets if t[3])
        out.append(f"\n{met} of {len(targets)} targets met.\n")

    out.append("### Machine\n")
    out.append(f"- command: `{machine.get('command', '?')}` at commit {machine.get('commit', '?')}")
    out.append(f"- {machine.get('nproc', '?')} CPUs, {machine.get('cpu', '?')}, {machine.get('memory_gib', '?')} GiB; "
               f"Linux {machine.get('kernel', '?')}")
    out.append(f"- {machine.get('swift', '?')}")
    if machine.get("postgres"):
        out.append(f"- PostgreSQL: {machine['postgres']}")
    out.append(f"- raw wrk output and logs: `{os.path.relpath(folder)}`")
    print("\n".join(out))


def setup_section(out, folder, med, outbox, scale, setup, label, seconds=None):
    """The table of one scale on one setup; answers its targets."""
    k = key(scale, setup)
    imp = load(folder, f"{k}-import.json", {})
    counters = load(folder, f"{k}-counters.json")
    login = load(folder, f"{k}-login-time.json")
    server = load(folder, f"{k}-server.json", {})
    upload = load(folder, f"{k}-upload-time.json")
    m_of = lambda name: med.get((scale, setup, name))
    nginx = (m_of("nginx") or {}).get("rps")
    out.append(f"### {scale}" + ("" if label == scale else f", {SETUP_TITLES[setup]}") + "\n")
    bits = []
    if imp:
        bits.append(f"import {imp['import_s']:.1f} s, peak RSS {imp['import_peak_rss_kb'] / 1024:.0f} MiB, "
                    f"database {imp['db_bytes'] / 2**20:.0f} MiB"
                    + (f", {imp['home_rows']:,} home timeline rows" if imp.get("home_rows") is not None else ""))
    if server:
        bits.append(f"server peak RSS {server['server_peak_rss_kb'] / 1024:.0f} MiB"
                    + (f" (the larger of {server['servers']})" if server.get("servers", 1) > 1 else ""))
    drains = [r for r in outbox if r["scale"] == scale and r.get("setup", "sqlite") == setup]
    if drains:
        left = sum(int(r["left"]) for r in drains)
        bits.append(f"outbox backlog (feed and notify lanes) after a write scenario at most {max(int(r['backlog']) for r in drains):,} jobs, "
                    f"drained in at most {max(float(r['drain_s']) for r in drains)} s"
                    + (f" (**{left:,} jobs never drained**)" if left else ""))
    if upload:
        mib = lambda kb: kb / 1024
        samples = upload["samples_s"]
        cpu = upload.get("server_cpu_s_per_upload")
        before, first, last = upload["vmhwm_before_kb"], upload["vmhwm_after_first_kb"], upload["vmhwm_after_kb"]
        bits.append(f"one upload of a {upload['photo_bytes'] / 2**20:.1f} MiB 12 MP JPEG: median {1000 * upload['median_s']:.0f} ms "
                    f"of {len(samples)} in a row ({1000 * min(samples):.0f} to {1000 * max(samples):.0f} ms"
                    + (f", server CPU {1000 * cpu:.0f} ms each" if cpu is not None else "") + "), "
                    + (f"server VmHWM {mib(upload['vmhwm_cold_kb']):.1f} MiB at first, {mib(before):.1f} MiB after a "
                       f"{upload['warm_up']} upload (libvips's start), " if upload.get("warm_up") else f"server VmHWM {mib(before):.1f} MiB before, ")
                    + f"{mib(first):.1f} MiB after the first (+{mib(first - before):.1f}), "
                    f"{mib(last):.1f} MiB after the last (+{mib(last - before):.1f})")
    if counters:
        bits.append("counters exact after the writes" if counters["ok"] else
                    f"**counters drift**: {counters['videos_drifting']} videos, {counters['users_drifting']} users")
    if bits:
        out.append("; ".join(bits) + ".\n")
    out.append("| scenario | req/s | p50 ms | p99 ms | share of nginx | notes |")
    out.append("|---|---:|---:|---:|---:|---|")
    for name in ORDER + sorted({n for (sc, se, n) in med if sc == scale and se == setup} - set(ORDER)):
        m = m_of(name)
        if not m:
            continue
        share = m["rps"] / nginx if nginx and name != "nginx" else None
        notes = []
        if m["bad"]:
            notes.append(f"**{m['bad']} non-2xx/socket errors of {m['requests']}**")
        if name == "like-unlike":
            notes.append("each PUT or DELETE counts as one write")
        if name == "uploads":
            counts = statuses(folder, scale, setup, name)
            if counts:
                notes.append("answers: " + ", ".join(f"{n:,} x {status}" for status, n in sorted(counts.items()))
                             + f" ({counts.get('503', 0):,} x 503)")
        out.append(f"| {DESCRIPTIONS.get(name, name)} | {fmt(m['rps'])} | {fmt(m['p50'], 2)} | {fmt(m['p99'], 2)} | "
                   f"{pct(share) if name != 'nginx' else '100%'} | {'; '.join(notes)} |")
    out.append("")

    targets = []
    for name, share_target in SHARE_TARGETS.items():
        m = m_of(name)
        if m and nginx:
            share = m["rps"] / nginx
            targets.append((label, f"{name} >= {share_target:.0%} of nginx", pct(share), share >= share_target and not m["bad"]))
    for parse_name, v1_name in PARSE_PAIRS.items():
        parse_m, v1_m = m_of(parse_name), m_of(v1_name)
        if parse_m and v1_m:
            ratio = parse_m["rps"] / v1_m["rps"]
            targets.append((label, f"{parse_name} >= {PARSE_RATIO_TARGET:.0%} of {v1_name} (within 2x)", pct(ratio),
                            ratio >= PARSE_RATIO_TARGET and not parse_m["bad"]))
    first, deep = m_of("home-first"), m_of("home-deep")
    if first and deep:
        ratio = deep["rps"] / first["rps"]
        targets.append((label, "home page 50 >= 90% of first page", pct(ratio), ratio >= 0.9))
    for name in READS:
        m = m_of(name)
        if m:
            targets.append((label, f"{name} p99 <= 20 ms", f"{m['p99']:.2f} ms", m["p99"] <= 20))
    for name in ("search", "search-paced", "search-light"):
        m = m_of(name)
        if m:
            targets.append((label, f"{name} p99 <= 20 ms", f"{m['p99']:.2f} ms", m["p99"] <= 20 and not m["bad"]))
    video = m_of("video-by-id")
    for name in WEB_PAGES:
        m = m_of(name)
        if m and video:
            ratio = m["rps"] / video["rps"]
            targets.append((label, f"{name} >= 50% of video-by-id", pct(ratio), ratio >= 0.5 and not m["bad"]))
    for name in AVATARS:
        m = m_of(name)
        if m and video and nginx:
            targets.append((label, f"{name} share of nginx >= video-by-id's", f"{pct(m['rps'] / nginx)} against {pct(video['rps'] / nginx)}",
                            m["rps"] >= video["rps"] and not m["bad"]))
        if m:
            targets.append((label, f"{name} p99 <= 20 ms", f"{m['p99']:.2f} ms", m["p99"] <= 20 and not m["bad"]))
    during = m_of("video-by-id-during-uploads")
    if during:
        alone_text = f" (alone {video['p99']:.2f} ms)" if video else ""
        targets.append((label, f"video-by-id p99 while 4 clients upload <= {READ_P99_DURING_UPLOADS_MS} ms",
                        f"{during['p99']:.2f} ms{alone_text}", during["p99"] <= READ_P99_DURING_UPLOADS_MS and not during["bad"]))
    alone, during = m_of("me"), m_of("me-during-search")
    if alone and during:
        targets.append((label, "/v1/users/me p99 during searches <= 20 ms", f"{during['p99']:.2f} ms (alone {alone['p99']:.2f} ms)",
                        during["p99"] <= 20 and not during["bad"]))
    for name, floor in WRITE_TARGETS.items():
        m = m_of(name)
        if m:
            unit = "req/s" if name == "mix" else "writes/s"
            targets.append((label, f"{name} >= {floor:,} {unit}", fmt(m["rps"]), m["rps"] >= floor and not m["bad"]))
    for name in WRITES:
        m = m_of(name)
        if m:
            targets.append((label, f"{name} p99 <= {WRITE_P99_MS} ms", f"{m['p99']:.2f} ms", m["p99"] <= WRITE_P99_MS and not m["bad"]))
    if drains and (seconds is None or seconds >= 10):  # the burst is 10 s at full speed
        for name in WRITES:
            runs = [r for r in drains if r["scenario"] == name]
            if runs:
                worst = max(runs, key=lambda r: float(r["drain_s"]))
                ok = all(float(r["drain_s"]) <= DRAIN_TARGET_S and int(r["left"]) == 0 for r in runs)
                targets.append((label, f"{name}: backlog drained <= {DRAIN_TARGET_S} s after the burst",
                                f"{float(worst['drain_s']):.1f} s ({int(worst['backlog']):,} jobs)", ok))
    if scale.startswith("large") and server:
        mib = server["server_peak_rss_kb"] / 1024
        targets.append((label, f"server peak RSS < {SERVER_RSS_TARGET_MIB} MiB", f"{mib:.0f} MiB", mib < SERVER_RSS_TARGET_MIB))
    if counters and any(m_of(n) for n in ("like-unlike", "comment", "mix")):
        targets.append((label, "counters exact after the writes", "OK" if counters["ok"] else
                        f"{counters['videos_drifting']} videos, {counters['users_drifting']} users drift", counters["ok"]))
    if scale == "large" and imp:
        seconds, mib = imp["import_s"], imp["import_peak_rss_kb"] / 1024
        targets.append((label, "import in under 2 minutes with under 1 GiB", f"{seconds:.1f} s, {mib:.0f} MiB", seconds < 120 and mib < 1024))
    if scale == "large-social" and imp:  # issue 15: home timelines bounded per reader
        seconds, gb = imp["import_s"], imp["db_bytes"] / 1e9
        targets.append((label, "import in under 2 minutes, database under 1.5 GB", f"{seconds:.1f} s, {gb:.2f} GB", seconds < 120 and gb < 1.5))
    m = m_of("login")
    if m and login:
        bound = 1 / login["median_s"]  # the server has one core; one hash at a time saturates it
        ratio = m["rps"] / bound
        targets.append((label, "login >= 90% of the bcrypt bound",
                        f"{m['rps']:.1f}/s vs {bound:.1f}/s (1 core / {1000 * login['median_s']:.1f} ms) = {pct(ratio)}",
                        ratio >= 0.9 and not m["bad"]))
    return targets


if __name__ == "__main__":
    main()
