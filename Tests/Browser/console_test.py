"""Browser test of the moderation console in a real headless Chromium (Debian's chromium and
chromium-driver), driven by Selenium. Run by Tests/EndToEndTests/ConsoleBrowserTests.swift,
which starts `pacenote serve`, makes the accounts and the flagged videos, and passes them in
the environment:

  CONSOLE_URL         http://127.0.0.1:PORT/console/
  MODERATOR_LOGIN / MODERATOR_PASSWORD, USER_LOGIN / USER_PASSWORD (a plain user, with a
                      picture), ADMIN_LOGIN / ADMIN_PASSWORD
  FLAGGED_TITLE       the title of a flagged video the moderator hides
  HOSTILE_TITLE       a flagged video's title that is HTML (`<img src=x onerror=alert(1)>`)
                      (its owner, also FLAGGED_TITLE's, has no picture)
  PICTURED_TITLE      the title of a flagged video whose owner has a picture, which the
                      moderator removes
  PICTURED_OWNER      that owner's username
  ARTIFACTS           where the screenshots go

Exits 0 when every check passes; prints what failed and exits 1 otherwise. Nothing is
downloaded: Selenium is pointed at /usr/bin/chromedriver, and SE_AVOID_STATS is set.
"""
import os
import sys
import time
import urllib.error
import urllib.request

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

WAIT = 15  # seconds any one thing may take to appear


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-sync", "--metrics-recording-only"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def sign_in(driver, url, login, password):
    driver.get(url)
    wait = WebDriverWait(driver, WAIT)
    wait.until(EC.visibility_of_element_located((By.ID, "login"))).send_keys(login)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "signin-submit").click()


def card_titled(driver, title):
    for card in driver.find_elements(By.CSS_SELECTOR, "#queue li.video"):
        if card.find_element(By.CSS_SELECTOR, ".title").text == title:
            return card
    return None


def owner_avatar(card):
    """The owner's thumbnail (an img) or placeholder (a span) on a queue card, or None."""
    found = card.find_elements(By.CSS_SELECTOR, ".byline .avatar")
    return found[0] if found else None


def buttons(card, label):
    return [b for b in card.find_elements(By.CSS_SELECTOR, ".actions button") if b.text == label]


def http_status(url):
    """The status of a plain GET of url, outside the browser (and its cache)."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"Cache-Control": "no-cache"}), timeout=WAIT) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def main():
    env = os.environ
    url = env["CONSOLE_URL"]
    artifacts = env["ARTIFACTS"]
    os.makedirs(artifacts, exist_ok=True)
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)
            print("FAIL:", message, flush=True)

    driver = browser()
    try:
        # A user who is not a moderator is refused, clearly.
        sign_in(driver, url, env["USER_LOGIN"], env["USER_PASSWORD"])
        try:
            refusal = WebDriverWait(driver, WAIT).until(EC.visibility_of_element_located((By.ID, "refusal")))
            check("not a moderator" in refusal.text.lower(), "the refusal says why: " + refusal.text)
            check(env["USER_LOGIN"] in refusal.text, "the refusal names the account: " + refusal.text)
        except TimeoutException:
            check(False, "a plain user sees a refusal")
        check(not driver.find_element(By.ID, "view-queue").is_displayed(), "a plain user never sees the queue")
        driver.delete_all_cookies()
        driver.execute_script("sessionStorage.clear()")

        # A moderator signs in and sees the queue, the hostile title as text.
        sign_in(driver, url, env["MODERATOR_LOGIN"], env["MODERATOR_PASSWORD"])
        wait = WebDriverWait(driver, WAIT)
        try:
            wait.until(lambda d: card_titled(d, env["FLAGGED_TITLE"]) is not None)
        except TimeoutException:
            check(False, "the flagged video is in the queue")
        hostile = card_titled(driver, env["HOSTILE_TITLE"])
        check(hostile is not None, "the hostile title is shown literally, as text")
        try:
            alert = driver.switch_to.alert
            check(False, "no alert fired, yet one says: " + alert.text)
            alert.dismiss()
        except NoAlertPresentException:
            pass
        check(len(driver.find_elements(By.CSS_SELECTOR, "#queue .title img")) == 0, "no element was made from a title")
        card = card_titled(driver, env["FLAGGED_TITLE"])
        if card is not None:
            check("flag" in card.find_element(By.CSS_SELECTOR, ".badge.count").text, "the flag count shows")
            check(len(card.find_elements(By.CSS_SELECTOR, ".flags li")) >= 1, "each flag shows with its user")
            check(card.find_element(By.CSS_SELECTOR, "a.watch").get_attribute("href").startswith("https://www.youtube.com/watch?v="),
                  "a link to watch")
            check(card.find_element(By.CSS_SELECTOR, ".thumb img").get_attribute("src").startswith("https://i.ytimg.com/vi/"),
                  "the thumbnail")
            placeholder = owner_avatar(card)
            check(placeholder is not None and placeholder.tag_name == "span" and "none" in placeholder.get_attribute("class").split(),
                  "an owner without a picture shows the placeholder")
            check(buttons(card, "Remove picture") == [], "no Remove picture for an owner without one")

        # The owner with a picture: their thumbnail with alt text, loaded by its path on this
        # origin (the API's URL is on the public host, which the CSP would refuse).
        origin = url.split("/console/")[0]
        steady = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
        picture_url = None
        try:
            steady.until(lambda d: card_titled(d, env["PICTURED_TITLE"]) is not None)
            img = owner_avatar(card_titled(driver, env["PICTURED_TITLE"]))
            check(img is not None and img.tag_name == "img", "the owner's thumbnail is an img")
            if img is not None and img.tag_name == "img":
                check("@" + env["PICTURED_OWNER"] in (img.get_attribute("alt") or ""), "the thumbnail's alt text names the owner: %r" % img.get_attribute("alt"))
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", img)  # it loads lazily
                steady.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", owner_avatar(card_titled(d, env["PICTURED_TITLE"]))) == 100)
                picture_url = img.get_attribute("src")
                check((img.get_dom_attribute("src") or "").startswith("/media/avatars/"), "loaded by its path: %r" % img.get_dom_attribute("src"))
                check(picture_url.startswith(origin + "/media/avatars/") and picture_url.endswith("-100.jpg"),
                      "the 100 px thumbnail, from the console's origin: " + picture_url)
        except TimeoutException:
            check(False, "the pictured owner's thumbnail loads (naturalWidth 100)")
        if picture_url:
            check(http_status(picture_url) == 200, "the thumbnail is served before its removal")
        driver.execute_script("window.scrollTo(0, 0)")

        # Screenshots of the queue, phone and laptop.
        for name, (width, height) in {"queue-phone": (390, 844), "queue-laptop": (1366, 768)}.items():
            driver.set_window_size(width, height)
            time.sleep(0.3)  # let the layout settle after the resize (no test outcome depends on it)
            driver.save_screenshot(os.path.join(artifacts, name + ".png"))
        driver.set_window_size(1366, 768)

        # Hide the flagged video with a reason, through the confirmation.
        card = card_titled(driver, env["FLAGGED_TITLE"])
        if card is not None:
            hide = [b for b in card.find_elements(By.CSS_SELECTOR, ".actions button") if b.text == "Hide"]
            check(len(hide) == 1, "a Hide button")
            if hide:
                hide[0].click()
                reason = wait.until(EC.visibility_of_element_located((By.ID, "confirm-reason")))
                check(env["FLAGGED_TITLE"] in driver.find_element(By.ID, "confirm-text").text, "the confirmation names the video")
                driver.save_screenshot(os.path.join(artifacts, "confirm.png"))
                reason.send_keys("Dangerous spectators")
                driver.find_element(By.ID, "confirm-ok").click()
                try:
                    wait.until(lambda d: "Done" in d.find_element(By.ID, "status").text)
                    wait.until(lambda d: (c := card_titled(d, env["FLAGGED_TITLE"])) is not None
                               and len(c.find_elements(By.CSS_SELECTOR, ".badge.hidden")) == 1)
                except TimeoutException:
                    check(False, "the hide is confirmed and the card shows Hidden: " + driver.find_element(By.ID, "status").text)

        # Remove the owner's picture with a reason, through the confirmation: the thumbnail
        # gives way to the placeholder, the action to nothing, and the old URL is gone.
        removal_reason = "Helmet cam selfie of someone else"
        card = card_titled(driver, env["PICTURED_TITLE"])
        if card is not None:
            remove = buttons(card, "Remove picture")
            check(len(remove) == 1, "a Remove picture button for an owner with a picture")
            if remove:
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", remove[0])
                remove[0].click()
                reason = wait.until(EC.visibility_of_element_located((By.ID, "confirm-reason")))
                check("@" + env["PICTURED_OWNER"] in driver.find_element(By.ID, "confirm-text").text, "the confirmation names the owner")
                driver.save_screenshot(os.path.join(artifacts, "confirm-picture.png"))
                reason.send_keys(removal_reason)
                driver.find_element(By.ID, "confirm-ok").click()
                try:
                    steady.until(lambda d: "picture" in d.find_element(By.ID, "status").text and "Done" in d.find_element(By.ID, "status").text)
                    steady.until(lambda d: (c := card_titled(d, env["PICTURED_TITLE"])) is not None
                                 and (a := owner_avatar(c)) is not None and a.tag_name == "span"
                                 and "none" in a.get_attribute("class").split() and buttons(c, "Remove picture") == [])
                except TimeoutException:
                    check(False, "the removal is confirmed and the card shows the placeholder: " + driver.find_element(By.ID, "status").text)
                check(driver.find_elements(By.CSS_SELECTOR, "#queue img.avatar") == [], "no owner's or flagger's picture is left in the queue")
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(os.path.join(artifacts, "picture-removed.png"))
        if picture_url:
            check(http_status(picture_url) == 404, "the removed thumbnail's path answers 404")

        # The log shows the hide and the removal, each with its reason, the removal's target as
        # the user (now without a picture).
        driver.find_element(By.CSS_SELECTOR, ".tab[data-view=log]").click()
        try:
            wait.until(lambda d: any("Dangerous spectators" in row.text and "hide" in row.text
                                     for row in d.find_elements(By.CSS_SELECTOR, "#log li")))
        except TimeoutException:
            check(False, "the log shows the hide and its reason")

        def removal_row(d):
            for row in d.find_elements(By.CSS_SELECTOR, "#log li[data-action=remove_picture]"):
                if removal_reason in row.text and "@" + env["PICTURED_OWNER"] in row.find_element(By.CSS_SELECTOR, ".target").text:
                    return row
            return None
        try:
            row = steady.until(removal_row)
            check("remove picture" in row.find_element(By.CSS_SELECTOR, ".action").text, "the action reads 'remove picture': " + row.text)
            check("@" + env["MODERATOR_LOGIN"] in row.find_element(By.CSS_SELECTOR, ".actor").text, "the log names the moderator: " + row.text)
            check(len(row.find_elements(By.CSS_SELECTOR, ".target .avatar.none")) == 1, "the target shows without a picture")
        except TimeoutException:
            check(False, "the log shows the removal, its reason and the user")
        driver.save_screenshot(os.path.join(artifacts, "log-laptop.png"))
        driver.set_window_size(390, 844)
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(artifacts, "log-phone.png"))
        driver.set_window_size(1366, 768)

        # The session is in this origin's sessionStorage only, never a cookie.
        check(driver.get_cookies() == [], "no cookie holds the session")
        check(driver.execute_script("return sessionStorage.getItem('pacenote.console.session')") is not None,
              "the session is in sessionStorage")

        # An admin's Users view: a user with a picture shows it and offers its removal; the
        # owner whose picture is gone shows the placeholder and no such action.
        driver.find_element(By.ID, "sign-out").click()
        sign_in(driver, url, env["ADMIN_LOGIN"], env["ADMIN_PASSWORD"])
        try:
            wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, ".tab[data-view=users]"))).click()
            for login, pictured in ((env["USER_LOGIN"], True), (env["PICTURED_OWNER"], False)):
                query = wait.until(EC.visibility_of_element_located((By.ID, "user-query")))
                query.clear()
                query.send_keys(login)
                driver.find_element(By.CSS_SELECTOR, "#user-search button[type=submit]").click()

                def user_row(d):
                    for row in d.find_elements(By.CSS_SELECTOR, "#users li.user"):
                        if "@" + login in row.find_element(By.CSS_SELECTOR, ".name").text:
                            return row
                    return None
                steady.until(user_row)
                if pictured:
                    steady.until(lambda d: d.execute_script(
                        "return arguments[0].complete && arguments[0].naturalWidth", user_row(d).find_element(By.CSS_SELECTOR, "img.avatar")) == 100)
                    check(len(buttons(user_row(driver), "Remove picture")) == 1, "Remove picture for a user with one")
                    driver.save_screenshot(os.path.join(artifacts, "users-laptop.png"))
                else:
                    row = user_row(driver)
                    check(len(row.find_elements(By.CSS_SELECTOR, ".avatar.none")) == 1, "the placeholder for a user without a picture")
                    check(buttons(row, "Remove picture") == [], "no Remove picture for a user without one")
        except TimeoutException:
            check(False, "an admin finds users with their pictures in the Users view")

        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"
                  and "Content Security Policy" in entry.get("message", "")]
        check(errors == [], "no Content-Security-Policy violations: %r" % errors)
    finally:
        driver.quit()

    if failures:
        print("%d console check(s) failed" % len(failures), flush=True)
        return 1
    print("console checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
