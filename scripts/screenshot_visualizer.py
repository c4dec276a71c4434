"""Makes docs/visualizer.png, the README's picture of the visualizer page, with the project's
own command (`tokenforge visualize`) and the headless Chromium the page's test uses.

    TOKENFORGE_MODELS_DIR=../shared/models/tiktoken python scripts/screenshot_visualizer.py [-o docs/visualizer.png]

Needs chromium, chromedriver (Debian: apt-get install chromium chromium-driver) and selenium.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

TEXT = 'Tokenizers cut text into tokens: "naïve café" → 12345 tokens!\ndef greet(name):\n    return f"Hello, {name}!"'


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-o", "--output", default=os.path.join("docs", "visualizer.png"))
    ap.add_argument("--model", action="append", default=None)
    args = ap.parse_args()
    models = args.model or ["cl100k_base", "o200k_base"]
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        cmd = [sys.executable, "-m", "tokenforge.cli", "visualize", "-o", page]
        for m in models:
            cmd += ["--model", m]
        subprocess.run(cmd, check=True)
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,860", "--hide-scrollbars"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
        try:
            driver.get("file://" + page)
            driver.execute_script(
                "const b = document.getElementById('text'); b.value = arguments[0]; b.dispatchEvent(new Event('input'));",
                TEXT)
            for box in driver.find_elements(By.CSS_SELECTOR, ".search"):
                box.send_keys(" tokenizer")
            span = driver.find_elements(By.CSS_SELECTOR, ".model[data-model='0'] .tokens .tok")[2]
            ActionChains(driver).move_to_element(span).perform()
            os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
            driver.save_screenshot(args.output)
        finally:
            driver.quit()
    print(f"wrote {args.output} ({os.path.getsize(args.output)} bytes)")


if __name__ == "__main__":
    main()
