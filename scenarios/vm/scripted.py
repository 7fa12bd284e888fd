"""A scripted pair for the scenarios beside scenario.py (scenario-disconnect.py,
scenario-air-old.py): relay-central on hci1 fed a whole script, scanning before relay-peripheral
on hci0 (fed its own script) starts advertising; both run their scripts to the end."""
from scenario import WaitFailed, finish, relay


def central_first(central_script, peripheral_script, central_limit, peripheral_limit, prefix="", central_args=()):
    """relay-central (--scan-timeout 60 --adapter hci1 CENTRAL_ARGS) runs CENTRAL_SCRIPT; once it
    scans (waited up to 30 s; the caller's checks tell what went wrong when it does not),
    relay-peripheral (--adapter hci0) runs PERIPHERAL_SCRIPT. Each gets its LIMIT in seconds to
    finish, the central first. Named PREFIX + central / peripheral. (central, peripheral,
    central's exit status, peripheral's exit status), a status None when it had to be killed."""
    central = relay(f"{prefix}central", "relay-central", "--scan-timeout", "60", "--adapter", "hci1", *central_args,
                    script=central_script)
    try:
        central.wait("scanning", timeout=30)
    except WaitFailed:
        pass
    peripheral = relay(f"{prefix}peripheral", "relay-peripheral", "--adapter", "hci0", script=peripheral_script)
    central_status = finish(central, central_limit)
    peripheral_status = finish(peripheral, peripheral_limit)
    return central, peripheral, central_status, peripheral_status
