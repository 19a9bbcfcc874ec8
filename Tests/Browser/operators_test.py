"""Browser test of the console's operators' screens (issue 34) in a real headless Chromium,
driven by Selenium. Run by Tests/EndToEndTests/OperatorsConsoleBrowserTests.swift, which
starts `pacenote serve` and makes the accounts, passed in the environment:

  CONSOLE_URL                              http://127.0.0.1:PORT/console/
  ADMIN_LOGIN / ADMIN_PASSWORD             an admin
  MODERATOR_LOGIN / MODERATOR_PASSWORD     a moderator (who must not see the admin screens)
  SEASON                                   next season's year, whose calendar is imported
  ARTIFACTS                                where the screenshots go

What an admin does: imports next season's calendar from a JSON file (one row of it bad,
reported and skipped), fixes one rally's name, schedules an announcement two seconds ahead
and sees it sent, and reads the statistics chart; all at laptop and phone width. A moderator
sees none of those tabs. The browser's log must hold no error at all (a missing favicon
included). Exits 0 when every check passes.
"""
import json
import os
import sys
import tempfile

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 15


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--no-first-run", "--disable-background-networking", "--disable-component-update",
                 "--disable-default-apps", "--disable-sync", "--metrics-recording-only"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def sign_in(driver, url, login, password):
    driver.get(url)
    wait = WebDriverWait(driver, WAIT)
    wait.until(EC.visibility_of_element_located((By.ID, "login"))).send_keys(login)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "signin-submit").click()


def texts(driver, selector):
    """The text of every element matching selector, read again if the list is redrawn meanwhile."""
    for _ in range(20):
        try:
            return [e.text for e in driver.find_elements(By.CSS_SELECTOR, selector)]
        except StaleElementReferenceException:
            continue
    return []


def tab(driver, view):
    WebDriverWait(driver, WAIT).until(EC.element_to_be_clickable((By.CSS_SELECTOR, ".tab[data-view=%s]" % view))).click()


def both_widths(driver, artifacts, name):
    driver.set_window_size(1366, 900)
    driver.save_screenshot(os.path.join(artifacts, name + "-laptop.png"))
    driver.set_window_size(390, 844)
    wide = driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth + 1")
    check(not wide, name + " needs no sideways scrolling at phone width")
    driver.save_screenshot(os.path.join(artifacts, name + "-phone.png"))
    driver.set_window_size(1366, 900)


def main():
    env = os.environ
    url, artifacts, season = env["CONSOLE_URL"], env["ARTIFACTS"], env["SEASON"]
    os.makedirs(artifacts, exist_ok=True)
    rallies = [
        {"name": "Rally Sweden", "country": "Sweden", "startDate": season + "-02-12", "endDate": season + "-02-15"},
        {"name": "Rally Mexcio", "country": "Mexico", "startDate": season + "-03-05", "endDate": season + "-03-08"},
        {"name": "Broken row", "country": "Nowhere", "startDate": "soon", "endDate": season + "-01-01"},
        {"name": "Safari Rally", "country": "Kenya", "startDate": season + "-03-26", "endDate": season + "-03-29"},
    ]
    calendar_file = os.path.join(tempfile.mkdtemp(), "season.json")
    with open(calendar_file, "w", encoding="utf-8") as f:
        json.dump(rallies, f)

    driver = browser()
    wait = WebDriverWait(driver, WAIT)
    try:
        driver.set_window_size(1366, 900)
        sign_in(driver, url, env["ADMIN_LOGIN"], env["ADMIN_PASSWORD"])

        # The calendar: import the file, see the preview and the per-row report.
        tab(driver, "calendar")
        season_input = wait.until(EC.visibility_of_element_located((By.ID, "season")))
        driver.find_element(By.ID, "import-file").send_keys(calendar_file)
        try:
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#import-rows tr")) == 4)
            results = [c.text for c in driver.find_elements(By.CSS_SELECTOR, "#import-rows td.result")]
            check(results.count("Ready") == 3 and results[2].startswith("Will be skipped"), "the preview: three ready, the bad row skipped: %r" % results)
            check(driver.find_element(By.ID, "import-run").text == "Import 3 rallies", "the import button counts the good rows")
            driver.find_element(By.ID, "import-run").click()
            wait.until(lambda d: [c.text for c in d.find_elements(By.CSS_SELECTOR, "#import-rows td.result")].count("Created") == 3)
            check(True, "the report says each good row was created")
            wait.until(lambda d: len(texts(d, "#calendar li.rally")) == 3)
            check(season_input.get_attribute("value") == season, "the calendar shows the imported season")
        except TimeoutException:
            check(False, "the season is imported from the file")

        # Fix the typo in one rally's name.
        try:
            row = next(r for r in driver.find_elements(By.CSS_SELECTOR, "#calendar li.rally") if "Mexcio" in r.text)
            next(b for b in row.find_elements(By.TAG_NAME, "button") if b.text == "Edit").click()
            name = driver.find_element(By.ID, "rally-name")
            check(name.get_attribute("value") == "Rally Mexcio", "the form holds the rally to edit")
            name.clear()
            name.send_keys("Rally Mexico")
            driver.find_element(By.ID, "rally-save").click()
            wait.until(lambda d: any("Rally Mexico" in t for t in texts(d, "#calendar li.rally"))
                       and not any("Mexcio" in t for t in texts(d, "#calendar li.rally")))
            check(True, "the rally is renamed")
        except (TimeoutException, StopIteration):
            check(False, "a rally is fixed through the form")
        both_widths(driver, artifacts, "calendar")

        # An announcement two seconds ahead, in English and Spanish, seen sent.
        tab(driver, "announcements")
        wait.until(EC.visibility_of_element_located((By.ID, "ann-title-en"))).send_keys("Season opener")
        driver.find_element(By.ID, "ann-title-es").send_keys("Arranca la temporada")
        driver.find_element(By.ID, "ann-body-en").send_keys("Sweden starts on Thursday.")
        driver.find_element(By.ID, "ann-body-es").send_keys("Suecia empieza el jueves.")
        Select(driver.find_element(By.ID, "ann-when")).select_by_value("at")
        check(driver.find_element(By.ID, "ann-at").is_displayed(), "choosing a time shows the time field")
        driver.execute_script("""
            const at = new Date(Date.now() + 2000), pad = (n) => String(n).padStart(2, "0");
            document.getElementById("ann-at").value = at.getFullYear() + "-" + pad(at.getMonth() + 1) + "-" + pad(at.getDate())
              + "T" + pad(at.getHours()) + ":" + pad(at.getMinutes()) + ":" + pad(at.getSeconds());
        """)
        driver.find_element(By.ID, "ann-send").click()
        try:
            wait.until(lambda d: any("Season opener" in t and "scheduled" in t for t in texts(d, "#announcements li.announcement")))
            check(True, "the announcement is listed as scheduled")

            def sent(d):
                d.find_element(By.ID, "announcements-reload").click()
                return any("Season opener" in t and "Sent" in t for t in texts(d, "#announcements li.is-sent"))
            WebDriverWait(driver, WAIT, poll_frequency=1).until(sent)
            check(True, "the announcement is seen sent")
        except TimeoutException:
            check(False, "the scheduled announcement is sent within %d s" % WAIT)
        both_widths(driver, artifacts, "announcements")

        # The statistics: one line per series, drawn by the page itself.
        tab(driver, "stats")
        try:
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#stats-chart svg polyline")) == 6)
            check(len(driver.find_elements(By.CSS_SELECTOR, "#stats-rows tr")) == 31, "the totals and the 30 days in the table")
        except TimeoutException:
            check(False, "the statistics chart is drawn")
        both_widths(driver, artifacts, "stats")

        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        check(errors == [], "no error in the browser's log as an admin: %r" % errors)

        # A moderator: the admin screens are not offered.
        driver.find_element(By.ID, "sign-out").click()
        sign_in(driver, url, env["MODERATOR_LOGIN"], env["MODERATOR_PASSWORD"])
        wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, ".tab[data-view=queue]")))
        for view in ("calendar", "announcements", "stats", "users"):
            check(not driver.find_element(By.CSS_SELECTOR, ".tab[data-view=%s]" % view).is_displayed(), "a moderator has no %s tab" % view)
        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        check(errors == [], "no error in the browser's log as a moderator: %r" % errors)
    finally:
        driver.quit()

    if failures:
        print("%d operators' check(s) failed" % len(failures), flush=True)
        return 1
    print("operators' console checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
