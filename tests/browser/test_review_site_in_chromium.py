"""The review site in a real browser (headless Chromium): the index served as by
`python -m http.server`, the other pages opened from disk; no console errors, every image and
plot loads, the filters and sorting change the list, and one screenshot per page kind. The same
checks on a produced dataset with its campaign: tests/integration/test_dataset_production.py."""

from __future__ import annotations

import os

import pytest

from storage.content import FilesystemStore
from review_site.build import build_site
from review_site.sources import Source
from storage.objects import FilesystemObjects
from tests.site_support.browser import chromium, http_server, keep_screenshots, load_and_check, screenshot
from tests.site_support.publications import frozen_revision


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("review-site")
    source = Source(FilesystemObjects(tmp / "var"), FilesystemStore(tmp / "var" / "store"))
    frozen_revision(source, tmp)
    out = tmp / "site"
    build_site(source, out, dataset=("rv", "r1"))
    return out


@pytest.fixture(scope="module")
def driver():
    with chromium() as d:
        yield d


def visible_tasks(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#tasks tbody tr'))"
        ".filter(r => !r.classList.contains('hidden')).map(r => r.cells[0].getAttribute('data-value'))")


def test_the_index_loads_and_its_filters_and_sorting_change_the_list(site, driver, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with http_server(site) as base:
        media = load_and_check(driver, f"{base}/index.html")
        assert visible_tasks(driver) == ["mug-material", "table-model"]
        assert driver.find_element(By.ID, "shown").text == "2 of 2 shown"
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=group]")).select_by_value("MOD")
        assert visible_tasks(driver) == ["table-model"]
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=group]")).select_by_value("")
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=split]")).select_by_value("test")
        assert visible_tasks(driver) == ["mug-material"]
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=split]")).select_by_value("")
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=profession]")).select_by_value("PRF-3DART")
        assert visible_tasks(driver) == ["table-model"]
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=profession]")).select_by_value("")
        driver.find_element(By.CSS_SELECTOR, "[data-filter=text]").send_keys("pbr")
        assert visible_tasks(driver) == ["mug-material"]  # matched in the title
        assert driver.find_element(By.ID, "shown").text == "1 of 2 shown"
        driver.find_element(By.CSS_SELECTOR, "[data-filter=text]").clear()
        driver.execute_script("document.querySelector('[data-filter=text]').dispatchEvent(new Event('input'))")
        header = driver.find_element(By.XPATH, "//table[@id='tasks']//th[1]")
        header.click()
        assert visible_tasks(driver) == ["mug-material", "table-model"]
        header.click()
        assert visible_tasks(driver) == ["table-model", "mug-material"]  # descending
        assert media["images"] == 1  # only the revision's funnel (an SVG): no task picture, it stays light
        shots = [screenshot(driver, tmp_path / "index.png")]
    keep_screenshots(shots[0].parent, os.environ.get("ARKEVO_SCREENSHOTS"))


def test_a_task_page_shows_the_reference_deliveries_and_the_plot(site, driver, tmp_path):
    media = load_and_check(driver, (site / "tasks" / "table-model.html").as_uri())
    srcs = driver.execute_script("return Array.from(document.images).map(i => i.getAttribute('src'))")
    assert sum("plots/scores-" in s for s in srcs) == 1
    # 4 reference views, 4 views of each configuration's chosen delivery, the plot
    assert media["images"] == 4 + 4 * 2 + 1
    text = driver.find_element("tag name", "body").text
    assert "Model a four-legged dining table" in text and "defect:short_legs" in text
    screenshot(driver, tmp_path / "task.png")
    keep_screenshots(tmp_path, os.environ.get("ARKEVO_SCREENSHOTS"))


def test_a_trial_page_shows_its_renders_criteria_and_vl_answers(site, driver, tmp_path):
    media = load_and_check(driver, (site / "trials" / "table-model" / "nop-1.html").as_uri())
    assert media["images"] == 4
    text = driver.find_element("tag name", "body").text
    assert "REQ-SIZE" in text and "silhouette_iou" in text
    link = driver.find_element("link text", "score record").get_attribute("href")
    driver.get(link)  # the linked record is in the site
    assert '"total"' in driver.find_element("tag name", "body").text
    screenshot(driver, tmp_path / "trial.png")
    keep_screenshots(tmp_path, os.environ.get("ARKEVO_SCREENSHOTS"))
