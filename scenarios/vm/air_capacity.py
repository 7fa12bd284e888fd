#!/usr/bin/env python3
"""The test bed radio's capacity for an L2CAP LE credit-based flood, and whether a measured one
matches it (scenarios/vm/scenario-air-*.sh, docs/test-bed.md).

    air_capacity.py expect SPEC SDU          the model's throughput in kB/s (1024 bytes)
    air_capacity.py check SPEC SDU LOG       exit 0 when the l2test receiver log LOG is within 15 %
    air_capacity.py att SPEC MTU             the ATT capacity at that MTU in kB/s, and the value size
                                             that reaches it (write commands or notifications)
    air_capacity.py att SPEC MTU VALUE       the throughput of a flood of VALUE-byte values

SPEC is btvirt's --air SPEC (interval=MS,events=N,octets=N,phy=1M|2M,buffers=MTUxN,...). The
model, as emulator/btdev-air.c runs it: a connection event every interval carries PDU exchanges
(central, 150 us, peripheral, 150 us) while they fit before the next anchor, at most `events`; a
PDU is (1 preamble + 4 access address + 2 header + payload + 3 CRC) bytes at 1 Mbit/s, or 2
preamble bytes at 2 Mbit/s. An SDU of n bytes travels as K-frames of at most MPS = MTU - 4 bytes
(the ACL buffer size less the L2CAP header; 2 of the first K-frame's are the SDU length), each one
L2CAP PDU of K-frame + 4 bytes in ceil(that / octets) LL PDUs.
"""
import math
import re
import sys


def median(values):
    """The median (statistics' import alone costs a scenario seconds of the guest's CPU under TCG)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def parse(spec):
    values = dict(item.split("=", 1) for item in spec.split(",") if "=" in item)
    mtu, count = values.get("buffers", "251x8").split("x")
    return {
        "interval_us": float(values.get("interval", "30")) * 1000,
        "events": int(values.get("events", "6")),
        "octets": int(values.get("octets", "251")),
        "phy": 2 if values.get("phy", "1M") in ("2M", "2") else 1,
        "mtu": int(mtu),
        "buffers": int(count),
    }


def pdu_us(phy, payload):
    return (2 + 4 + 2 + payload + 3) * 4 if phy == 2 else (1 + 4 + 2 + payload + 3) * 8


def coc_packets(radio, sdu):
    """The host ACL packets of one SDU on an L2CAP LE credit-based channel, as LL PDU payload
    sizes: K-frames of at most MPS = ACL MTU - 4 bytes (2 of the first are the SDU length),
    each one L2CAP PDU of K-frame + 4 bytes in one ACL packet."""
    mps = radio["mtu"] - 4
    frames = math.ceil((sdu + 2) / mps)
    sizes = [mps] * (frames - 1) + [sdu + 2 - mps * (frames - 1)]
    return [list(chunks(size + 4, radio["octets"])) for size in sizes]


def att_packets(radio, value):
    """The host ACL packets of one ATT write command or notification of `value` bytes: an L2CAP
    PDU of 4 + 3 + value bytes, fragmented into ACL packets of at most the ACL MTU."""
    return [list(chunks(packet, radio["octets"])) for packet in chunks(4 + 3 + value, radio["mtu"])]


def flood(radio, packets, unit):
    """(kB/s of payload, LL PDUs per event) of an endless flood of units of `unit` payload bytes,
    each the host ACL packets `packets`, by running the model's events: at the start of an event
    the controller holds `buffers` host packets (the host refills the ones completed at the end
    of the previous event, Number Of Completed Packets); the event carries their LL PDUs while the
    exchanges (PDU, 150 us, empty PDU back, 150 us) fit before the next anchor, at most `events`."""
    budget = radio["interval_us"] - 150
    units = 400
    stream = packets * units
    packet, pdu, events, pdus_sent = 0, 0, 0, 0
    while packet < len(stream):
        events += 1
        used, exchanges = 0, 0
        window_end = min(packet + radio["buffers"], len(stream))
        while packet < window_end and exchanges < radio["events"]:
            dt = pdu_us(radio["phy"], stream[packet][pdu]) + 150 + pdu_us(radio["phy"], 0) + 150
            if used + dt > budget:
                break
            used += dt
            exchanges += 1
            pdus_sent += 1
            pdu += 1
            if pdu == len(stream[packet]):
                packet, pdu = packet + 1, 0
    seconds = events * radio["interval_us"] / 1e6
    return units * unit / seconds / 1024, pdus_sent / events


def expect(spec, sdu):
    """(kB/s of SDU payload, LL PDUs per event, LL PDUs per SDU) of an L2CAP CoC flood."""
    radio = parse(spec)
    packets = coc_packets(radio, sdu)
    rate, per_event = flood(radio, packets, sdu)
    return rate, per_event, sum(len(packet) for packet in packets)


def att_capacity(spec, mtu, limit=510):
    """The ATT capacity (kB/s) of a write-command or notification flood at ATT MTU `mtu`: the
    best over value sizes up to min(mtu - 3, limit) (BlueZ 5.66 takes at most 510), and that size."""
    radio = parse(spec)
    best = (0.0, 0)
    for value in range(1, min(mtu - 3, limit) + 1):
        rate, _ = flood(radio, att_packets(radio, value), value)
        best = max(best, (rate, value))
    return best


def chunks(total, size):
    while total > 0:
        yield min(total, size)
        total -= size


def measured(log):
    """The median of l2test's block rates after the first block (connection set-up, negotiation)."""
    rates = [float(match.group(1)) for match in re.finditer(r"bytes in [0-9.]+ sec, ([0-9.]+) kB/s", open(log).read())]
    if len(rates) < 3:
        raise SystemExit(f"air_capacity: only {len(rates)} blocks in {log}")
    return median(rates[1:]), len(rates)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "expect":
        rate, per_event, pdus = expect(sys.argv[2], int(sys.argv[3]))
        print(f"{rate:.2f}")
        return 0
    if len(sys.argv) in (4, 5) and sys.argv[1] == "att":
        if len(sys.argv) == 5:
            radio = parse(sys.argv[2])
            value = int(sys.argv[4])
            print(f"{flood(radio, att_packets(radio, value), value)[0]:.2f}")
        else:
            rate, value = att_capacity(sys.argv[2], int(sys.argv[3]))
            print(f"{rate:.2f} {value}")
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "check":
        spec, sdu, log = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        rate, per_event, pdus = expect(spec, sdu)
        got, blocks = measured(log)
        ratio = got / rate
        radio = parse(spec)
        print(f"model {rate:.1f} kB/s ({per_event:.2f} PDUs/event of {radio['events']}, {pdus} PDUs per {sdu} B SDU, "
              f"{radio['interval_us'] / 1000:g} ms, {radio['phy']}M PHY, octets {radio['octets']}); "
              f"measured {got:.1f} kB/s over {blocks - 1} blocks = {ratio:.1%} of the model "
              f"({got * 1024 * 8 / 1e6:.3f} Mbit/s)")
        return 0 if abs(ratio - 1) <= 0.15 else 1
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main())
