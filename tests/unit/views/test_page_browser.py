"""The visualizer page in a real headless Chromium (Debian's chromium + chromium-driver,
driven by selenium): it loads without console errors, typing shows the ids tokenforge
gives, search finds a token and draws its merge tree, and a screenshot is written.

Skips with a reason when no browser is installed, except under CI=true, where it fails;
skips under scripts/sanitize_tests.sh (chromedriver inherits the preloaded libasan and
aborts at start-up: a page test exercises JavaScript, not the sanitized core).
"""

from __future__ import annotations

import os
import shutil

import pytest
from _shared import MODELS, need_shared, under_sanitizer

pytestmark = pytest.mark.skipif(under_sanitizer(), reason="chromedriver cannot start with libasan preloaded")

TYPED = "Tokenizers cut text: naïve café, 12345 and     spaces!\n  def f(x): return x**2  # Ω"
# ChromeDriver types only the Basic Multilingual Plane and a tab moves the focus: this text
# is set by script instead.
PASTED = "emoji 🙂👍🏽, tabs\t\tand CJK 分词器\r\n\n  end   "


def _browser():
    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    try:
        import selenium  # noqa: F401
    except ImportError:
        binary = None
    if binary is None or driver is None:
        reason = "needs chromium, chromedriver and selenium (apt-get install chromium chromium-driver; pip install selenium)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + ": CI must install them (.ci/run)")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver), options=options)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    need_shared()
    from tokenforge.minbpe import RegexTokenizer
    from tokenforge.views.models import load_model
    from tokenforge.views.page import write_page

    folder = tmp_path_factory.mktemp("page")
    tok = RegexTokenizer()
    tok.train("Tokenizers cut text into tokens; tokens are counted. " * 40, 256 + 60)
    model_file, _ = tok.save(folder / "toy")
    models = [load_model("cl100k_base"), load_model(model_file)]
    path = write_page(models, folder / "page.html")
    driver = _browser()
    driver.get("file://" + str(path))
    yield driver, models, folder
    driver.quit()


def tokens_shown(driver, column):
    from selenium.webdriver.common.by import By

    spans = driver.find_elements(By.CSS_SELECTOR, f".model[data-model='{column}'] .tokens .tok")
    return [int(s.get_attribute("data-id")) for s in spans]


def test_loads_without_console_errors(page):
    driver, models, _ = page
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    from tokenforge.views.summary import SAMPLE

    assert tokens_shown(driver, 0) == models[0].encode(SAMPLE)


def test_typing_shows_tokenforges_tokens(page):
    from selenium.webdriver.common.by import By

    driver, models, folder = page
    box = driver.find_element(By.ID, "text")
    box.clear()
    box.send_keys(TYPED)
    assert tokens_shown(driver, 0) == models[0].encode(TYPED)
    assert tokens_shown(driver, 1) == models[1].encode(TYPED)  # the minbpe model, side by side
    driver.execute_script(
        "const b = document.getElementById('text'); b.value = arguments[0];"
        "b.dispatchEvent(new Event('input'));", PASTED)
    text = driver.execute_script("return document.getElementById('text').value")
    assert text == PASTED.replace("\r\n", "\n")  # (a textarea keeps line ends as \n)
    assert tokens_shown(driver, 0) == models[0].encode(text)
    assert tokens_shown(driver, 1) == models[1].encode(text)
    driver.save_screenshot(str(folder / "page.png"))
    assert (folder / "page.png").stat().st_size > 10_000
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


def test_search_finds_a_token_and_draws_its_tree(page):
    from selenium.webdriver.common.by import By

    driver, models, _ = page
    search = driver.find_element(By.CSS_SELECTOR, ".model[data-model='0'] .search")
    search.clear()
    search.send_keys(" tokenizer")
    results = driver.find_elements(By.CSS_SELECTOR, ".model[data-model='0'] .results a")
    want = models[0].encoding.encode_single_token(" tokenizer")
    assert want in [int(a.get_attribute("data-id")) for a in results]
    nodes = driver.find_elements(By.CSS_SELECTOR, ".model[data-model='0'] .tree g.node")
    ids = {int(n.get_attribute("data-id")) for n in nodes}
    # The tree of the first result reaches down to single bytes.
    assert any(len(models[0].token_bytes(i)) == 1 for i in ids) and len(ids) >= 3


def test_hover_shows_id_bytes_and_parents(page):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    driver, models, _ = page
    driver.execute_script(
        "const b = document.getElementById('text'); b.value = ' tokenizer'; b.dispatchEvent(new Event('input'));")
    span = driver.find_element(By.CSS_SELECTOR, ".model[data-model='0'] .tokens .tok")
    ActionChains(driver).move_to_element(span).perform()
    tip = driver.find_element(By.ID, "tip")
    token = int(span.get_attribute("data-id"))
    a, b = models[0].parents[token]
    lines = tip.text.splitlines()
    assert lines[0] == f"id {token}"
    assert lines[2] == "bytes " + models[0].token_bytes(token).hex(" ")
    assert lines[3].endswith(f"{a} + [{models[0].token_bytes(b).decode()}] {b}")
