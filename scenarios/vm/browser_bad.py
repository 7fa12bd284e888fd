"""The browser page's bad input (issue 48), for scenario-browser.py: the page that Chromium has
open against three peripherals that are not what it hopes for, each on its own controller.

    peers = BadPeripherals("hci2", "hci3", "hci4")   # started early: they come up beside Chromium
    bad_input(browser, page, peers, problems, figures)

1. A wrong device: scenarios/vm/peers/foreign_peripheral.py serves the relay service's UUID (so the
   chooser lists it) with none of relay's characteristics: the page says in one line that it is
   not a relay-peripheral, does not try again, and Connect is free.
2. relay-peripheral --secure: headless Chromium has no one to type a passkey, reading the pairing
   characteristic fails and Chromium ends the link unpaired; the page says to pair the device in
   the system's settings and stops there; relay-peripheral reports `pairing-failed` `not-paired`.
3. A peripheral that is not relay and notifies malformed frames: scenarios/vm/peers/
   hostile_peripheral.py (protocol 1 only: no session characteristic) notifies bursts of hostile
   values (random bytes, truncated headers, lying lengths, wrong CRCs, interleaved ids, first
   frames that never continue), each round followed by one honest message and one counter: the
   page shows every honest message (same SHA-256, in order) and the last counter, keeps the
   garbage's reports paced and bounded, stays connected and still writes counters.
"""
import time

from hostile_checks import log_lines, log_tail, wait_log
from scenario import OUT, WaitFailed, expect, fail, peer, relay

ROUNDS = 2


class BadPeripherals:
    """The three peripherals, started together."""

    def __init__(self, foreign, secure, hostile):
        self.foreign = peer("foreign", "foreign_peripheral.py", "--adapter", foreign, "--name", "not-relay",
                            "--timeout", "400")
        self.secure = relay("secure", "relay-peripheral", "--adapter", secure, "--secure", "--name", "secure-sample")
        self.secure.send("start")
        self.hostile = peer("hostile", "hostile_peripheral.py", "--adapter", hostile, "--name", "hostile",
                            "--rounds", ROUNDS, "--burst", "150", "--firsts", "30", "--settle", "0.3",
                            "--honest-file", f"{OUT}/honest.sha", "--timeout", "300", "--linger", "30")

    def wait_advertising(self):
        for name, program in (("foreign", self.foreign), ("hostile", self.hostile)):
            try:
                wait_log(program, "advertising on", 60)
            except WaitFailed as problem:
                fail(f"the {name} peripheral did not advertise ({problem})")
        expect(self.secure, "advertising", "the secure peripheral did not advertise", timeout=60)

    def stop(self):
        self.foreign.terminate(grace=5)
        self.hostile.terminate(grace=5)
        self.secure.send("quit")


def stays_idle(browser, seconds=2.5):
    """True when the page makes no second attempt within SECONDS (it would after 2 s)."""
    time.sleep(seconds)
    return browser.evaluate("relayPage.state === 'idle' && !relayPage.log.slice(-1)[0].startsWith('Connecting')")


def bad_input(browser, page, peers, problems, figures):
    # 1. A wrong device.
    page.choose("not-relay")
    said = browser.wait_until(
        "relayPage.state === 'idle' && relayPage.log.find(l => l.includes('not a relay-peripheral'))", timeout=60)
    if not said:
        fail(f"the page did not say the wrong device is not a relay-peripheral ({page.log()})")
    figures["wrong device"] = said.split(" (")[0]
    problems.check(stays_idle(browser), f"the page tried the wrong device again ({page.log(3)})")
    problems.check(browser.evaluate("document.getElementById('connect').disabled") is False,
                   "Connect stayed off after the wrong device")

    # 2. relay-peripheral --secure, the link not paired.
    mark = peers.secure.mark()
    page.choose("secure-sample")
    said = browser.wait_until("relayPage.state === 'idle' && relayPage.log.find(l => l.includes('--secure'))",
                              timeout=90)
    if not said:
        fail(f"the page did not say the peripheral wants a paired link ({page.log(4)})")
    figures["secure"] = said.split(": pair the device")[0]
    problems.check("pair the device in the system's Bluetooth settings" in said, f"the page did not say what to do: {said}")
    problems.check(not browser.evaluate("relayPage.log.some(l => l.startsWith('The link dropped'))"),
                   "the page said the link dropped while it was still connecting")
    problems.check(stays_idle(browser), f"the page tried the secure peripheral again ({page.log(3)})")
    refused = expect(peers.secure, "pairing-failed", "relay-peripheral did not report the unpaired browser",
                     timeout=20, since=mark)
    problems.check(refused.get("reason") == "not-paired", f"relay-peripheral says {refused.get('reason')}, not not-paired")
    problems.check(peers.secure.last("subscribed", since=mark) is None, "the unpaired browser subscribed")

    # 3. Malformed frames from a peripheral that is not relay.
    page.choose("hostile")
    if not browser.wait_until("relayPage.state === 'ready'", timeout=60):
        fail(f"the page never became ready with the hostile peripheral: {page.log()}")
    problems.check(browser.evaluate("relayPage.protocol") == 1, "the page did not fall back to protocol 1")
    try:
        wait_log(peers.hostile, "done|timed out|Error", 200)
    except WaitFailed as problem:
        fail(f"the hostile peripheral did not finish ({problem})")
    if not log_lines(peers.hostile, "done"):
        fail(f"the hostile peripheral failed: {log_tail(peers.hostile, 2)}")
    with open(f"{OUT}/honest.sha") as handle:
        honest = handle.read().split()
    shown = browser.wait_until(f"relayPage.received.length >= {len(honest)} && relayPage.received.every(m => m.sha) && "
                               "relayPage.received.map(m => m.sha)", timeout=30) or []
    problems.check(shown == honest, f"the page showed {len(shown)} messages, not the {len(honest)} honest ones in order")
    last = 1000 + ROUNDS - 1
    problems.check(browser.wait_until(f"relayPage.counterIn === {last}", timeout=10),
                   f"the page's counter is {browser.evaluate('relayPage.counterIn')}, not {last}")
    errors = browser.evaluate("relayPage.errors.filter(e => !e.includes('--secure') && !e.includes('No Characteristics'))")
    figures["hostile: reports"] = len(errors)
    figures["hostile: last report"] = errors[-1] if errors else None
    problems.check(0 < len(errors) <= 20, f"the page made {len(errors)} reports of the garbage (paced: a few)")
    problems.check(browser.evaluate("relayPage.state") == "ready", f"the page left the hostile peripheral ({page.log(3)})")
    problems.check(isinstance(browser.evaluate("relayPage.sendCounter()"), int),
                   "the page cannot send a counter after the garbage")
    browser.evaluate("relayPage.disconnect(); 1")
    if not browser.wait_until("relayPage.state === 'closed' || relayPage.state === 'idle'", timeout=20):
        problems.append(f"the page did not let the hostile peripheral go ({page.log(2)})")
    # The received list is the main flow's from here on.
    browser.evaluate("relayPage.received.length = 0; relayPage.errors.length = 0; 1")
    peers.stop()
