#!/usr/bin/env python3
"""Opens a password-reset link in headless Chromium and sets a new password through the page,
as a person would: types it twice, presses the button, waits for the page's answer.

Usage: reset_in_browser.py URL NEW_PASSWORD [LANGUAGE]
Prints one JSON line: the page's language, title and final status text and class, and any
console errors (a Content-Security-Policy violation shows up there). Exits 0 when it got that
far, whatever the page said; the test judges the answer.
"""
import json
import os
import sys

os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


def main():
    url, password = sys.argv[1], sys.argv[2]
    language = sys.argv[3] if len(sys.argv) > 3 else "en"
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--lang={language}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.set_page_load_timeout(30)
        driver.get(url)
        wait = WebDriverWait(driver, 20)
        wait.until(EC.visibility_of_element_located((By.ID, "password")))
        driver.find_element(By.ID, "password").send_keys(password)
        driver.find_element(By.ID, "repeat").send_keys(password)
        driver.find_element(By.ID, "submit").click()
        status = driver.find_element(By.ID, "status")
        wait.until(lambda _: status.get_attribute("class") in ("ok", "error"))
        # The browser asks for /favicon.ico on its own; the pages have none, and that 404 is not theirs.
        errors = [entry["message"] for entry in driver.get_log("browser")
                  if entry.get("level") == "SEVERE" and "favicon.ico" not in entry["message"]]
        print(json.dumps({
            "lang": driver.find_element(By.TAG_NAME, "html").get_attribute("lang"),
            "title": driver.title,
            "status": status.text,
            "statusClass": status.get_attribute("class"),
            "consoleErrors": errors,
        }), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
