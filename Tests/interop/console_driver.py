"""Driving the web console in headless Chromium (Selenium), for ``test_console.py``.

- ``browser`` (a fixture: import it into a test module): a fresh headless Chromium per test; when the test
  fails, a screenshot, the page's HTML and the browser's console log are saved in the test's tmp dir
  (their paths are printed);
- ``Console``: the console of one gateway in that browser, with helpers that find things the way a user
  does (cards by server id, buttons by their text, app views by tool) and wait for them;
- ``in_app_page``: run a block inside an app view's page (the inner frame of its sandbox).

Chromium and chromedriver are the Debian packages ``chromium`` and ``chromium-driver``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement

from harness import Gateway

CHROMIUM = os.environ.get("YRDEN_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("YRDEN_CHROMEDRIVER", "/usr/bin/chromedriver")
WAIT = 20.0

T = TypeVar("T")


def console_base(gw: Gateway) -> str:
    """Where the gateway serves its console (the root of its listener)."""
    return gw.base


@pytest.fixture
def browser(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[webdriver.Chrome]:
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.fail(f"no {CHROMIUM} / {CHROMEDRIVER}: apt-get install chromium chromium-driver", pytrace=False)
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    failed_before = request.session.testsfailed
    try:
        yield driver
    finally:
        if request.session.testsfailed > failed_before:
            _save_artifacts(driver, tmp_path)
        driver.quit()


def _save_artifacts(driver: webdriver.Chrome, directory: Path) -> None:
    try:
        driver.switch_to.default_content()
        shot = directory / "console-failure.png"
        driver.save_screenshot(str(shot))
        (directory / "console-failure.html").write_text(driver.page_source)
        log = "\n".join(f"{e['level']} {e['message']}" for e in driver.get_log("browser"))
        (directory / "console-failure.log").write_text(log)
        print(f"console artifacts: {shot}, console-failure.html, console-failure.log in {directory}")
    except WebDriverException as error:
        print(f"could not save console artifacts: {error}")


def wait_for(predicate: Callable[[], T], what: str, timeout: float = WAIT) -> T:
    """Poll ``predicate`` until it returns something truthy (exceptions of a changing page count as not yet)."""
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except (WebDriverException, StaleElementReferenceException, LookupError) as error:
            last = error
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last: {last})" if last else ""))
        time.sleep(0.1)


RECORD_STATES = """
const id = arguments[0];
const shown = ((window.yrdenStatesShown ||= {})[id] = []);
const current = () => document.querySelector(`.card[data-server-id="${CSS.escape(id)}"]`)?.getAttribute("data-state") ?? null;
const note = (state) => { if (shown.length === 0 || shown[shown.length - 1] !== state) shown.push(state); };
note(current());
new MutationObserver((records) => {
  for (const record of records) {
    // Each record's old value is the state shown before it: several changes in one batch are all noted.
    if (record.type === "attributes" && record.target.dataset?.serverId === id) note(record.oldValue);
  }
  note(current());
}).observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"], attributeOldValue: true});
"""


class Console:
    """One gateway's console in ``driver``."""

    def __init__(self, driver: webdriver.Chrome, gw: Gateway) -> None:
        self.driver = driver
        self.gw = gw
        self.base = console_base(gw)

    def open(self, view: str = "servers") -> Console:
        self.driver.get(f"{self.base}/#{view}")
        wait_for(lambda: self.driver.find_element(By.ID, "live-status").get_attribute("data-state") == "live",
                 "the console's event stream")
        return self

    def settings(self) -> dict[str, Any]:
        """What the gateway tells its console (``/console/settings.json``): the sandbox origin and more."""
        with httpx2.Client(timeout=10.0) as http:
            return http.get(f"{self.base}/console/settings.json").json()

    def show(self, view: str) -> None:
        self.driver.find_element(By.CSS_SELECTOR, f'.tab[data-view="{view}"]').click()

    # -- finding things

    def button(self, text: str, within: WebElement | None = None) -> WebElement:
        """The visible button whose text starts with ``text``."""
        scope = within or self.driver
        for candidate in scope.find_elements(By.CSS_SELECTOR, "button"):
            if candidate.is_displayed() and candidate.text.strip().startswith(text):
                return candidate
        raise LookupError(f"no visible button {text!r}")

    def click(self, text: str, within: WebElement | None = None) -> None:
        wait_for(lambda: self.button(text, within), f"a button {text!r}").click()

    def card(self, server_id: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, f'.card[data-server-id="{server_id}"]')

    def state(self, server_id: str) -> str | None:
        try:
            return self.card(server_id).get_attribute("data-state")
        except WebDriverException:
            return None

    def wait_state(self, server_id: str, accept: Callable[[str | None], bool], what: str, timeout: float = WAIT) -> str:
        seen: list[str | None] = []

        def reached() -> str | None:
            state = self.state(server_id)
            if not seen or seen[-1] != state:
                seen.append(state)
            return state if accept(state) else None

        try:
            return wait_for(reached, f"{server_id} {what}", timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; states seen: {seen}") from None

    def record_states(self, server_id: str) -> None:
        """From now on, note in the page every state the server's card shows, in order: a state shown only
        for a moment (between two reconnect attempts) is then not missed by a poll of the card."""
        self.script(RECORD_STATES, server_id)

    def wait_state_shown(self, server_id: str, accept: Callable[[str | None], bool], what: str, timeout: float = WAIT) -> str:
        """The first state since ``record_states`` that ``accept`` takes (the list only grows: polled, not sampled)."""

        def shown() -> list[str | None]:
            return self.script("return (window.yrdenStatesShown || {})[arguments[0]] || []", server_id)

        try:
            return wait_for(lambda: next((s for s in shown() if accept(s)), None), f"{server_id} {what}", timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; states shown: {shown()}") from None

    def field(self, name: str, within: WebElement | None = None) -> WebElement:
        return (within or self.driver).find_element(By.CSS_SELECTOR, f'[name="{name}"]')

    def fill(self, name: str, text: str, within: WebElement | None = None) -> None:
        element = self.field(name, within)
        element.clear()
        element.send_keys(text)

    # -- explore

    def pick_tool(self, server_id: str, public_name: str) -> WebElement:
        """Shows the tool's detail in Explore; returns its call form."""
        self.show("explore")
        select = self.driver.find_element(By.ID, "explore-server")
        wait_for(lambda: select.find_elements(By.CSS_SELECTOR, f'option[value="{server_id}"]'), f"{server_id} in Explore")
        if select.get_attribute("value") != server_id:
            select.find_element(By.CSS_SELECTOR, f'option[value="{server_id}"]').click()
        self.click(public_name, self.driver.find_element(By.ID, "explore-catalog"))
        return wait_for(lambda: self.driver.find_element(By.CSS_SELECTOR, f'.call-form[data-tool="{public_name}"]'),
                        f"the form of {public_name}")

    def call_tool(self, server_id: str, public_name: str, **arguments: str) -> WebElement:
        """Fills the generated form (text inputs by property name), calls, returns the detail pane."""
        form = self.pick_tool(server_id, public_name)
        for name, value in arguments.items():
            label = form.find_element(By.XPATH, f'.//label[starts-with(normalize-space(.), "{name}")]')
            target = form.find_element(By.ID, label.get_attribute("for"))
            target.clear()
            target.send_keys(value)
        self.button("Call", form).click()
        return self.driver.find_element(By.ID, "explore-detail")

    def app_cards(self, tool: str | None = None) -> list[WebElement]:
        cards = self.driver.find_elements(By.CSS_SELECTOR, ".app-card")
        return [c for c in cards if tool is None or c.get_attribute("data-tool") == tool]

    @contextmanager
    def in_app_page(self, card: WebElement) -> Iterator[None]:
        """Switches into the app's page (outer sandbox frame, then its inner frame) for the block."""
        outer = wait_for(lambda: card.find_element(By.CSS_SELECTOR, "iframe"), "the app's sandbox frame")
        self.driver.switch_to.frame(outer)
        try:
            inner = wait_for(lambda: self.driver.find_element(By.TAG_NAME, "iframe"), "the app's page frame")
            self.driver.switch_to.frame(inner)
            yield
        finally:
            self.driver.switch_to.default_content()

    def text_of(self, css: str) -> str:
        return self.driver.find_element(By.CSS_SELECTOR, css).text

    def script(self, source: str, *args: Any) -> Any:
        return self.driver.execute_script(source, *args)
