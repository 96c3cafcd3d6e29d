"""The review site's index at volume, in headless Chromium: 130 task rows (a revision with two
seed families) are paged 50 at a time, the filters page what they keep from the first page on,
and the Family filter keeps one family's instances. The page is the index template and site.js
as `build_site` writes them (its own environment and index context); the rows are made up,
only the paging and the filters are under test (a produced revision's site in the browser:
test_review_site_in_chromium.py and tests/integration/test_dataset_production.py)."""

from __future__ import annotations

import shutil

from review_site.build import STATIC, _environment, _index_context
from tests.site_support.browser import chromium, load_and_check


def row(task_id: str, family: str, group: str, split: str) -> dict:
    return {"task_id": task_id, "title": f"{family} at other dimensions", "url": f"tasks/{task_id}.html",
            "split": split, "group": {"id": group, "name": group}, "profession": {"id": "PRF-3DART", "name": "3D"},
            "workflow": {"id": f"{group}-01", "name": "w"}, "profile": "blender-70-30@2", "margin": 0.48,
            "calibrated": True, "summary": [], "publication_id": f"{task_id}-r1", "published_at": "", "family": family}


def visible(driver) -> list[str]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#tasks tbody tr'))"
        ".filter(r => getComputedStyle(r).display !== 'none').map(r => r.cells[0].getAttribute('data-value'))")


def test_a_large_index_is_paged_and_filters_page_what_they_keep(tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    rows = ([row(f"table-model-{i:03d}", "table-model", "MOD", "train") for i in range(1, 81)]
            + [row(f"robot-carry-{i:03d}", "robot-carry", "ANI", "validation") for i in range(1, 49)]
            + [row("fence-array", "fence-array", "MOD", "test"), row("crate-texture", "crate-texture", "TEX", "test")])
    scope = {"kind": "dataset", "namespace": "scale", "revision": "r1", "frozen": False, "splits": {}, "targets": {},
             "export_commands": []}
    context = {**_index_context(rows, [], scope), "reviews": [], "retractions": [], "yield": None, "drift": None}
    assert context["families"] == ["robot-carry", "table-model"]  # roots holding more than one task
    html = _environment().get_template("index.html.j2").render(**context, root="", page="index.html")
    (tmp_path / "index.html").write_text(html)
    shutil.copytree(STATIC, tmp_path / "static")

    with chromium() as driver:
        load_and_check(driver, (tmp_path / "index.html").as_uri())
        assert len(visible(driver)) == 50 and visible(driver)[0] == "table-model-001"
        assert driver.find_element(By.ID, "shown").text == "130 of 130 shown"
        assert driver.find_element(By.ID, "page").text == "page 1 of 3"
        next_page = driver.find_element(By.CSS_SELECTOR, "#pager [data-page=next]")
        next_page.click()
        next_page.click()
        assert driver.find_element(By.ID, "page").text == "page 3 of 3" and len(visible(driver)) == 30
        assert not next_page.is_enabled()
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=family]")).select_by_value("robot-carry")
        assert driver.find_element(By.ID, "page").get_attribute("textContent") == "page 1 of 1"  # from the first page
        assert len(visible(driver)) == 48 and all(t.startswith("robot-carry-") for t in visible(driver))
        assert not driver.find_element(By.ID, "pager").is_displayed()
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=family]")).select_by_value("")
        Select(driver.find_element(By.CSS_SELECTOR, "[data-filter=split]")).select_by_value("train")
        assert driver.find_element(By.ID, "shown").text == "80 of 130 shown"
        assert driver.find_element(By.ID, "page").text == "page 1 of 2" and len(visible(driver)) == 50
        header = driver.find_element(By.XPATH, "//table[@id='tasks']//th[1]")
        header.click()
        header.click()  # descending: the last instance first, still 50 to a page
        assert visible(driver)[0] == "table-model-080" and len(visible(driver)) == 50
