"""Headless Chromium (Debian's `chromium` + `chromium-driver`, installed by
scripts/system-deps.sh) driven through Selenium, and the checks every page of the review site
must pass: no console errors, every image and plot loaded, every video's metadata readable."""

from __future__ import annotations

import io
import shutil
import threading
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# Every image eager, then wait until each has loaded or failed: pages use loading="lazy".
ALL_MEDIA_SETTLED = """
const done = arguments[arguments.length - 1];
const imgs = Array.from(document.images);
imgs.forEach(i => { i.loading = "eager"; });
const waits = imgs.map(i => i.complete ? Promise.resolve() : new Promise(r => { i.onload = r; i.onerror = r; }));
const videos = Array.from(document.querySelectorAll("video"));
videos.forEach(v => v.load());
const vwaits = videos.map(v => v.readyState >= 1 ? Promise.resolve() :
    new Promise(r => { v.onloadedmetadata = r; v.onerror = r; setTimeout(r, 5000); }));
Promise.all(waits.concat(vwaits)).then(() => done({
  images: imgs.length,
  broken: imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute("src")),
  videos: videos.length,
  unplayable: videos.filter(v => v.readyState < 1).map(v => v.getAttribute("src")),
}));
"""


def chromium_or_skip():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    if missing:
        pytest.skip(f"headless Chromium is not installed ({', '.join(missing)} missing) and "
                    "scripts/system-deps.sh could not install Debian's chromium and chromium-driver "
                    "on this machine (no apt-get, or not root)")


@contextmanager
def chromium():
    chromium_or_skip()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1000",
                "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


@contextmanager
def http_server(root: Path):
    """`python -m http.server` for the site folder, on loopback."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def load_and_check(driver, url: str) -> dict:
    """Open `url`; fail on console errors, broken images or unplayable videos. Returns the media
    counts."""
    driver.get(url)
    media = driver.execute_async_script(ALL_MEDIA_SETTLED)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], f"{url}: console errors {errors}"
    assert media["broken"] == [], f"{url}: images that did not load {media['broken']}"
    assert media["unplayable"] == [], f"{url}: videos without metadata {media['unplayable']}"
    return media


def screenshot(driver, dest: Path) -> Path:
    """A full-page PNG of the current page, checked to be a real picture (not blank)."""
    from PIL import Image

    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1300, min(max(height, 600), 6000))
    data = driver.get_screenshot_as_png()
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert image.width >= 1000 and image.height >= 500, image.size
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is None or len(colours) > 50, f"{dest.name}: a nearly blank page"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    driver.set_window_size(1300, 1000)
    return dest


def keep_screenshots(folder: Path, into: str | None) -> None:
    """Copy the screenshots somewhere a person can look at them (ARKEVO_SCREENSHOTS)."""
    if into:
        shutil.copytree(folder, into, dirs_exist_ok=True)
