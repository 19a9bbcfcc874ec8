"""Browser test of the console's Users view showing how each account signs in, in a real
headless Chromium driven by Selenium (as console_test.py, whose helpers it uses). Run by
Tests/EndToEndTests/ConsoleBrowserTests.swift, which starts `pacenote serve`, makes the
accounts and passes them in the environment:

  CONSOLE_URL         http://127.0.0.1:PORT/console/
  ADMIN_LOGIN / ADMIN_PASSWORD
  SEARCH              a word in the display name of each of the three accounts below
  PASSWORD_USER       an account with a password only
  IDENTITY_USER       an account without a password, with Facebook and Twitter identities
  NO_WAY_USER         an account with neither (an import without a usable hash)
  ARTIFACTS           where the screenshot goes

Exits 0 when every check passes; prints what failed and exits 1 otherwise. Nothing is
downloaded: Selenium is pointed at /usr/bin/chromedriver, and SE_AVOID_STATS is set.
"""
import os
import sys

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from console_test import WAIT, browser, sign_in


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

    expected = {
        env["PASSWORD_USER"]: ("known", "Signs in with: password"),
        env["IDENTITY_USER"]: ("known", "Signs in with: Facebook · Twitter"),
        env["NO_WAY_USER"]: ("none", "No way in (password reset only)"),
    }

    driver = browser()
    try:
        sign_in(driver, url, env["ADMIN_LOGIN"], env["ADMIN_PASSWORD"])
        wait = WebDriverWait(driver, WAIT)
        steady = WebDriverWait(driver, WAIT, ignored_exceptions=[StaleElementReferenceException])
        driver.set_window_size(1366, 768)
        try:
            wait.until(EC.element_to_be_clickable((By.CSS_SELECTOR, ".tab[data-view=users]"))).click()
            wait.until(EC.visibility_of_element_located((By.ID, "user-query"))).send_keys(env["SEARCH"])
            driver.find_element(By.CSS_SELECTOR, "#user-search button[type=submit]").click()

            def ways_by_user(d):
                """{username: (state, text)} of every row once none is still loading, else None."""
                found = {}
                for row in d.find_elements(By.CSS_SELECTOR, "#users li.user"):
                    name = row.find_element(By.CSS_SELECTOR, ".name strong").text
                    ways = row.find_elements(By.CSS_SELECTOR, ".name .ways")
                    if len(ways) != 1 or ways[0].get_attribute("data-state") == "loading":
                        return None
                    found[name] = (ways[0].get_attribute("data-state"), ways[0].text)
                return found if all("@" + login in found for login in expected) else None

            shown = steady.until(ways_by_user)
            for login, want in expected.items():
                check(shown.get("@" + login) == want, "@%s's row shows %r, not %r" % (login, want, shown.get("@" + login)))
            driver.save_screenshot(os.path.join(artifacts, "users-ways-in.png"))
        except TimeoutException:
            check(False, "every row of the search shows how its account signs in")

        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"
                  and "Content Security Policy" in entry.get("message", "")]
        check(errors == [], "no Content-Security-Policy violations: %r" % errors)
    finally:
        driver.quit()

    if failures:
        print("%d ways-in check(s) failed" % len(failures), flush=True)
        return 1
    print("ways-in checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
