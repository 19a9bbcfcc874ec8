"""Browser test of the public web (serve --public-web) in a real headless Chromium (Debian's
chromium and chromium-driver), driven by Selenium; an Open Graph check as link previewers
read pages (html.parser, not a regex); and the app-link files against their formats. Run by Tests/EndToEndTests/PublicWebTests.swift, which starts `pacenote serve`,
makes the content and passes it in the environment:

  BASE_URL            http://127.0.0.1:PORT (the server)
  PUBLIC_URL          the server's --public-url (og:url and the like are built on it)
  PAGES               the paths to check, separated by spaces (/v/..., /r/..., /r/.../1, /u/...)
  VIDEO_PATH          the video page whose title, owner, description and comment are hostile
  HOSTILE_TITLE, HOSTILE_NAME, HOSTILE_COMMENT, HOSTILE_DESCRIPTION
                      the raw texts, which must show as text, exactly, and never run
  LONG_TITLE_PATH     a video page whose 100-character title og:title must cut to 90
  ARTIFACTS           where the screenshots go (<kind>-desktop.png, <kind>-phone.png)

Offline: the browser resolves no host but 127.0.0.1 (--host-resolver-rules), so requests to
YouTube's hosts fail; they are still seen in Chrome's performance log, where the set of hosts
requested is asserted. Nothing is downloaded: Selenium is pointed at /usr/bin/chromedriver,
and SE_AVOID_STATS is set. Exits 0 when every check passes; prints what failed and exits 1.
"""
import json
import os
import sys
import urllib.request
from html.parser import HTMLParser
from urllib.parse import urlsplit

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

BASE = os.environ["BASE_URL"].rstrip("/")
PUBLIC = os.environ["PUBLIC_URL"].rstrip("/")
PAGES = os.environ["PAGES"].split()
VIDEO_PATH = os.environ["VIDEO_PATH"]
ARTIFACTS = os.environ["ARTIFACTS"]
SIZES = {"desktop": (1280, 900), "phone": (375, 812)}
ALLOWED_HOSTS = {urlsplit(BASE).netloc, "i.ytimg.com", "www.youtube-nocookie.com"}
TITLE_LIMIT, DESCRIPTION_LIMIT = 90, 200

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-sync", "--metrics-recording-only",
                 "--hide-scrollbars",
                 # Offline: only the server's address resolves; YouTube's hosts fail fast.
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    # Records any alert (a script that ran) in the page itself: CDP's script is not the page's,
    # so the page's CSP does not stop it, and a call is visible even if a dialog were dismissed.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        for (const name of ["alert", "confirm", "prompt"]) {
          const original = window[name];
          window[name] = function (...args) { document.documentElement.setAttribute("data-alerted", name); return original.apply(this, args); };
        }
    """})
    return driver


def kind(path):
    parts = [p for p in path.split("/") if p]
    if parts[0] == "v":
        return "video"
    if parts[0] == "u":
        return "user"
    return "day" if len(parts) == 3 else "rally"


def requested_hosts(driver):
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        if url.startswith(("http://", "https://")):
            hosts.add(urlsplit(url).netloc)
    return hosts


def check_page(driver, path, name):
    for size, (width, height) in SIZES.items():
        driver.set_window_size(width, height)
        driver.get(BASE + path)
        label = f"{path} at {width} px"
        check(driver.find_elements(By.TAG_NAME, "main"), f"{label}: a <main>")
        check(driver.execute_script("return document.documentElement.lang") in ("en", "es"), f"{label}: <html lang>")
        check(not driver.find_elements(By.TAG_NAME, "script"), f"{label}: no script element")
        check(not driver.find_elements(By.CSS_SELECTOR, "img[src='x'], img[onerror]"), f"{label}: no injected image")
        check(not driver.find_elements(By.CSS_SELECTOR, "a[href^='javascript:' i]"), f"{label}: no javascript: link")
        check(driver.execute_script("return document.documentElement.getAttribute('data-alerted')") is None, f"{label}: nothing alerted")
        try:
            driver.switch_to.alert
            failures.append(f"{label}: an alert is open")
        except NoAlertPresentException:
            pass
        # The stylesheet loaded (served by the binary, allowed by the CSP).
        check(driver.execute_script("return getComputedStyle(document.body).overflowWrap") == "anywhere",
              f"{label}: the stylesheet applies")
        if size == "phone":
            scroll, inner = driver.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
            check(scroll <= inner, f"{label}: no sideways scroll (scrollWidth {scroll} > innerWidth {inner})")
        driver.save_screenshot(os.path.join(ARTIFACTS, f"{name}-{size}.png"))


def check_hostile_video(driver):
    driver.set_window_size(1280, 900)
    driver.get(BASE + VIDEO_PATH)
    text = lambda selector: driver.find_element(By.CSS_SELECTOR, selector).get_property("textContent")
    check(text("h1") == os.environ["HOSTILE_TITLE"], f"the title is shown as text: {text('h1')!r}")
    check(text("article .meta a.user") == os.environ["HOSTILE_NAME"], f"the owner's name is shown as text: {text('article .meta a.user')!r}")
    check(text(".comment .content") == os.environ["HOSTILE_COMMENT"], f"the comment is shown as text: {text('.comment .content')!r}")
    check(text(".description") == os.environ["HOSTILE_DESCRIPTION"], "the description is shown as text")
    check(driver.title.startswith(os.environ["HOSTILE_TITLE"][:20]), f"the document title is text: {driver.title!r}")
    # The right-to-left override stays inside its <bdi>: the page's own words keep their order.
    footer = driver.find_element(By.CSS_SELECTOR, "footer.site").get_property("textContent")
    check("Pacenote" in footer, "the footer reads as written")
    frames = driver.find_elements(By.CSS_SELECTOR, ".player iframe")
    check(len(frames) == 1 and frames[0].get_attribute("src").startswith("https://www.youtube-nocookie.com/embed/"),
          "the player is YouTube's privacy-enhanced embed")
    links = [a.get_attribute("href") or "" for a in driver.find_elements(By.TAG_NAME, "a")]
    check(all(link.startswith(("http://", "https://")) for link in links), f"every link is http(s): {links}")


class MetaTags(HTMLParser):
    """What a link previewer reads: <meta property|name content> in the document, and <html lang>."""

    def __init__(self):
        super().__init__()
        self.tags, self.lang, self.title = {}, None, ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang")
        if tag == "title":
            self._in_title = True
        if tag == "meta" and "content" in attrs:
            key = attrs.get("property") or attrs.get("name")
            if key:
                self.tags.setdefault(key, attrs["content"])

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def check_open_graph(path):
    request = urllib.request.Request(BASE + path, headers={"User-Agent": "facebookexternalhit/1.1", "Accept-Language": "es"})
    with urllib.request.urlopen(request, timeout=15) as response:
        html = response.read().decode("utf-8")
        check(response.headers.get("Set-Cookie") is None, f"{path}: no cookie")
    parser = MetaTags()
    parser.feed(html)
    tags = parser.tags
    label = f"Open Graph of {path}"
    check(parser.lang == "es", f"{label}: Accept-Language es gives <html lang=es>")
    for key in ("og:title", "og:description", "og:url", "og:image", "og:type", "twitter:card"):
        check(bool(tags.get(key)), f"{label}: {key} present")
    check(tags.get("og:url") == PUBLIC + path, f"{label}: og:url is absolute on the public URL: {tags.get('og:url')}")
    for key in ("og:url", "og:image"):
        parts = urlsplit(tags.get(key, ""))
        check(parts.scheme in ("http", "https") and parts.netloc, f"{label}: {key} is absolute: {tags.get(key)}")
    check(len(tags.get("og:title", "")) <= TITLE_LIMIT, f"{label}: og:title within {TITLE_LIMIT}: {len(tags.get('og:title', ''))}")
    check(len(tags.get("og:description", "")) <= DESCRIPTION_LIMIT, f"{label}: og:description within {DESCRIPTION_LIMIT}")
    if kind(path) == "video":
        check(tags.get("og:type") == "video.other", f"{label}: og:type video.other")
        check(tags.get("og:video", "").startswith("https://www.youtube-nocookie.com/embed/"), f"{label}: og:video is the embed")
        check(tags.get("twitter:card") == "player", f"{label}: twitter:card player")
        check(tags.get("twitter:player") == tags.get("og:video"), f"{label}: twitter:player is the embed")
        check(tags.get("og:image", "").startswith("https://i.ytimg.com/vi/") and tags["og:image"].endswith("/hqdefault.jpg"),
              f"{label}: og:image is the thumbnail")
    else:
        check(tags.get("og:type") == "website", f"{label}: og:type website")
        check(tags.get("twitter:card") == "summary_large_image", f"{label}: twitter:card summary_large_image")
    return tags


def fetch_json(path):
    with urllib.request.urlopen(BASE + path, timeout=15) as response:
        check(response.headers.get_content_type() == "application/json", f"{path} is application/json")
        return json.loads(response.read().decode("utf-8"))


def check_app_links():
    """The two files against their published formats: Apple's "Supporting associated domains"
    (applinks: apps [], details [{appIDs [str], components [{"/": str}], appID str, paths [str]}])
    and Google's Digital Asset Links statement list."""
    aasa = fetch_json("/.well-known/apple-app-site-association")
    check(isinstance(aasa, dict) and set(aasa) == {"applinks"}, f"AASA is {{applinks}}: {aasa}")
    applinks = aasa.get("applinks", {})
    check(applinks.get("apps") == [], "AASA applinks.apps is the empty array")
    details = applinks.get("details")
    check(isinstance(details, list) and len(details) >= 1, "AASA applinks.details is a non-empty array")
    for detail in details or []:
        app_ids = detail.get("appIDs")
        check(isinstance(app_ids, list) and app_ids and all(isinstance(a, str) and len(a.split(".", 1)[0]) == 10 for a in app_ids),
              f"appIDs are TEAMID.BUNDLE strings: {app_ids}")
        components = detail.get("components")
        check(isinstance(components, list) and all(isinstance(c, dict) and isinstance(c.get("/"), str) for c in components),
              f"components are objects with a '/' pattern: {components}")
        check(sorted(c.get("/") for c in components or []) == ["/r/*", "/u/*", "/v/*"], "components cover /r/*, /v/*, /u/*")
        check(isinstance(detail.get("appID"), str) and detail["appID"] in (app_ids or []), "the older appID is one of appIDs")
        check(sorted(detail.get("paths") or []) == ["/r/*", "/u/*", "/v/*"], "the older paths cover the same patterns")
    statements = fetch_json("/.well-known/assetlinks.json")
    check(isinstance(statements, list) and len(statements) >= 1, "assetlinks.json is a non-empty array of statements")
    for statement in statements or []:
        check(statement.get("relation") == ["delegate_permission/common.handle_all_urls"], "relation handle_all_urls")
        target = statement.get("target", {})
        check(target.get("namespace") == "android_app", "target namespace android_app")
        check(isinstance(target.get("package_name"), str) and "." in target["package_name"], "target package_name")
        prints = target.get("sha256_cert_fingerprints")
        check(isinstance(prints, list) and prints and all(
            isinstance(p, str) and len(p.split(":")) == 32 and all(len(b) == 2 and b == b.upper() and int(b, 16) >= 0 for b in p.split(":"))
            for p in prints), f"fingerprints are 32 upper-case hex bytes separated by colons: {prints}")


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver = browser()
    try:
        seen = {}
        for path in PAGES:
            name = kind(path)
            seen[name] = seen.get(name, 0) + 1
            check_page(driver, path, name if seen[name] == 1 else f"{name}-{seen[name]}")
        check_hostile_video(driver)
        hosts = requested_hosts(driver)
        print("hosts requested:", sorted(hosts))
        check(urlsplit(BASE).netloc in hosts, "the server was requested")
        check(hosts <= ALLOWED_HOSTS, f"no request to another host: {sorted(hosts - ALLOWED_HOSTS)}")
    finally:
        driver.quit()
    check_app_links()
    titles = {}
    for path in PAGES:
        titles[path] = check_open_graph(path).get("og:title", "")
    print("og:title lengths:", {path: len(title) for path, title in titles.items()})
    long_title = titles.get(os.environ.get("LONG_TITLE_PATH", ""), "")
    check(long_title.endswith("…") and len(long_title) <= TITLE_LIMIT, f"a 100-character title is cut to {TITLE_LIMIT}: {long_title!r}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("public web: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
