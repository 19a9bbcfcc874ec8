"""Browser test of the moderation console in a real headless Chromium (Debian's chromium and
chromium-driver), driven by Selenium. Run by Tests/EndToEndTests/ConsoleBrowserTests.swift,
which starts `pacenote serve`, makes the accounts and the flagged videos, and passes them in
the environment:

  CONSOLE_URL         http://127.0.0.1:PORT/console/
  MODERATOR_LOGIN / MODERATOR_PASSWORD, USER_LOGIN / USER_PASSWORD
  FLAGGED_TITLE       the title of a flagged video the moderator hides
  HOSTILE_TITLE       a flagged video's title that is HTML (`<img src=x onerror=alert(1)>`)
  ARTIFACTS           where the screenshots go

Exits 0 when every check passes; prints what failed and exits 1 otherwise. Nothing is
downloaded: Selenium is pointed at /usr/bin/chromedriver, and SE_AVOID_STATS is set.
"""
import os
import sys
import time

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
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

        # The log shows the hide with its reason.
        driver.find_element(By.CSS_SELECTOR, ".tab[data-view=log]").click()
        try:
            wait.until(lambda d: any("Dangerous spectators" in row.text and "hide" in row.text
                                     for row in d.find_elements(By.CSS_SELECTOR, "#log li")))
        except TimeoutException:
            check(False, "the log shows the hide and its reason")
        driver.save_screenshot(os.path.join(artifacts, "log-laptop.png"))

        # The session is in this origin's sessionStorage only, never a cookie.
        check(driver.get_cookies() == [], "no cookie holds the session")
        check(driver.execute_script("return sessionStorage.getItem('pacenote.console.session')") is not None,
              "the session is in sessionStorage")

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
