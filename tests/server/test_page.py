"""The page at `GET /` (src/server/page.html) in a real headless browser, against a real `auris serve`.

Drives Debian's chromium through chromedriver (apt-get install chromium chromium-driver; PyPI
selenium). Picking a file only selects it: the test then presses the Transcribe button (#transcribe),
as a person would. The page streams the answer (stream=true), shows each segment as it arrives and
builds txt/srt/vtt itself, so the downloads are compared with the server's own response_formats.

AURIS_SCREENSHOT=1 writes the screenshot of the finished page to docs/server_page.png (otherwise
it goes to pytest's tmp_path).
"""
import difflib
import os
import pathlib
import re
import secrets
import shutil
import subprocess
import time
import urllib.request
import uuid

import pytest

from conftest import REPO, audio

webdriver = pytest.importorskip("selenium.webdriver", reason="PyPI selenium is not installed")
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
TIMEOUT = 120  # seconds for one transcription of jfk (11 s of audio) on a slow machine


@pytest.fixture(scope="module")
def downloads(tmp_path_factory):
    return tmp_path_factory.mktemp("downloads")


def chromium(downloads, *arguments):
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            pytest.skip(f"{path} is missing: apt-get install {package}")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1100,800",
                     "--disable-gpu", "--hide-scrollbars", *arguments):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {
        "download.default_directory": str(downloads),
        "download.prompt_for_download": False,
        "download.directory_upgrade": True,
        "safebrowsing.enabled": True,
    })
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        # Headless Chrome only downloads where it is told to over CDP.
        driver.execute_cdp_cmd("Browser.setDownloadBehavior",
                               {"behavior": "allow", "downloadPath": str(downloads), "eventsEnabled": False})
    except Exception:
        driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.set_window_size(1100, 800)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",  # the screenshot's size: 1100x800
                           {"width": 1100, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    return driver


@pytest.fixture(scope="module")
def browser(downloads):
    driver = chromium(downloads)
    yield driver
    driver.quit()


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def open_page(driver, server):
    driver.get(server.url + "/")
    # The model list comes from GET /v1/models; the first served model is the default.
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script("return [...document.querySelectorAll('#model option')].map(o => o.value)")
        == ["tiny.en", "base"],
        message="#model never listed the served models")


def pick_and_transcribe(driver, path):
    driver.find_element(By.ID, "file").send_keys(str(pathlib.Path(path).resolve()))
    button = driver.find_element(By.ID, "transcribe")
    WebDriverWait(driver, 10).until(lambda d: button.is_enabled(), message="#transcribe stayed disabled")
    button.click()


def wait_finished(driver):
    """Waits until #status says Done or #error shows something; returns (status, error)."""
    def finished(d):
        status, error = text(d, "status"), text(d, "error")
        return (status, error) if status.startswith("Done") or error else None
    try:
        return WebDriverWait(driver, TIMEOUT, poll_frequency=0.2).until(finished)
    except Exception:
        raise AssertionError("the page did not finish in %d s: status %r, error %r" %
                             (TIMEOUT, text(driver, "status"), text(driver, "error")))


def wait_download(directory, name, timeout=30):
    path = directory / name
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and not (directory / (name + ".crdownload")).exists() and path.stat().st_size:
            return path.read_text(encoding="utf-8")
        time.sleep(0.1)
    raise AssertionError(f"{name} was not downloaded into {directory}: {sorted(os.listdir(directory))}")


def server_answer(server, path, response_format):
    """The server's own (non-streamed) answer for the same file, as the reference for the downloads."""
    boundary = uuid.uuid4().hex
    body = b"".join([
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{path.name}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode(), path.read_bytes(), b"\r\n",
        f'--{boundary}\r\nContent-Disposition: form-data; name="response_format"\r\n\r\n'
        f"{response_format}\r\n--{boundary}--\r\n".encode()])
    request = urllib.request.Request(server.url + "/v1/audio/transcriptions", data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
        return response.read().decode("utf-8")


def test_page_transcribes_jfk_and_downloads_subtitles(server, browser, downloads, tmp_path):
    jfk = audio("jfk.flac")
    started = time.monotonic()
    open_page(browser, server)
    for ext in ("txt", "srt", "vtt"):
        assert not browser.find_element(By.ID, f"download-{ext}").is_enabled()
    pick_and_transcribe(browser, jfk)

    status, error = wait_finished(browser)
    assert not error, f"the page shows an error: {error!r} (status {status!r})"
    assert "language en" in status, status
    transcript = text(browser, "transcript")
    assert "ask not what your country can do for you" in transcript.lower(), transcript
    assert transcript.startswith("[00:00.000 \u2192 "), transcript  # [mm:ss.mmm → mm:ss.mmm] text
    print(f"\npage transcribed jfk in {time.monotonic() - started:.1f} s: {status}")

    shot = REPO / "docs" / "server_page.png" if os.environ.get("AURIS_SCREENSHOT") == "1" else tmp_path / "page.png"
    browser.execute_script("document.activeElement && document.activeElement.blur()")
    assert browser.save_screenshot(str(shot)), f"could not write {shot}"

    browser.find_element(By.ID, "download-srt").click()
    srt = wait_download(downloads, "jfk.srt")
    assert srt.startswith("1\n00:00:00,000 --> "), srt
    assert "fellow Americans" in srt, srt

    # The page builds the files from the streamed segments: they must equal the server's own formats.
    for ext, response_format in (("srt", "srt"), ("vtt", "vtt"), ("txt", "text")):
        if ext != "srt":
            browser.find_element(By.ID, f"download-{ext}").click()
        assert wait_download(downloads, "jfk." + ext) == server_answer(server, jfk, response_format), ext


def test_page_shows_an_error_for_a_non_audio_file(server, browser, tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("this is not audio " + secrets.token_hex(256) + "\n")
    open_page(browser, server)
    pick_and_transcribe(browser, junk)
    status, error = wait_finished(browser)
    assert not status.startswith("Done"), status
    element = browser.find_element(By.ID, "error")
    assert element.is_displayed()
    assert error.strip(), "#error is empty"
    assert not browser.find_element(By.ID, "download-srt").is_enabled()
    print(f"\nerror shown for a text file: {error!r}")


JFK_WORDS = "and so my fellow americans ask not what your country can do for you ask what you can do for your country".split()


def share_of_jfk(shown_text):
    """The share of jfk's words on the page, in order."""
    matcher = difflib.SequenceMatcher(a=JFK_WORDS, b=shown_text.split(), autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(JFK_WORDS)


def test_page_goes_live_with_the_microphone(server, downloads, tmp_path):
    """The Live button: chromium's fake microphone plays jfk once; its words appear while it plays
    (the realtime WebSocket), and Stop ends the session with the transcript kept."""
    wav = tmp_path / "jfk.wav"
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(audio("jfk.flac")), "-ar", "48000", "-ac", "1", str(wav)], check=True)
    driver = chromium(downloads, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                      f"--use-file-for-fake-audio-capture={wav}%noloop", "--autoplay-policy=no-user-gesture-required")
    try:
        open_page(driver, server)
        driver.find_element(By.ID, "live").click()
        shown = lambda d: re.sub(r"[^a-z ]", "", text(d, "transcript").lower())  # noqa: E731
        # The browser's audio graph resamples the microphone, and where each decode's buffer starts
        # depends on when the chunks came: tiny.en hears jfk nearly word for word, differently from
        # run to run ("and so am i fellow america asked not what you are country"). So the checks
        # are on how much of jfk is on the page, not on one phrase.
        WebDriverWait(driver, TIMEOUT, poll_frequency=0.2).until(
            lambda d: "fellow" in shown(d) or text(d, "error"), message="no words while jfk played")
        assert not text(driver, "error")
        assert "your country" not in shown(driver), "the first words came only once jfk's end was heard"
        try:
            WebDriverWait(driver, TIMEOUT, poll_frequency=0.2).until(lambda d: share_of_jfk(shown(d)) >= 0.5)
        except TimeoutException:
            pytest.fail(f"the words stopped coming; the page shows: {shown(driver)!r}")
        time.sleep(6)  # the rest of jfk
        driver.find_element(By.ID, "live").click()  # Stop
        status, error = wait_finished(driver)
        assert not error and status.startswith("Done"), (status, error)
        assert share_of_jfk(shown(driver)) >= 0.7, shown(driver)
        assert "can do for your country" in shown(driver), shown(driver)
        assert driver.find_element(By.ID, "download-txt").is_enabled()
    finally:
        driver.quit()
