// The page's central session (web/relay-session.js), no I/O: frames in, frames out, time as an
// input, checked byte by byte against docs/protocol.md's rules (node web/test/session-test.js).
"use strict";
const assert = require("assert");
const { test, report } = require("./harness.js");
const P = require("../relay-protocol.js");
const S = require("../relay-session.js");
const { CentralSession } = S;

const PERIPHERAL = 0x5e6f7081;
const welcome = (central, next = 1, mtu = null, peripheral = PERIPHERAL, session = 1, window = 65536) =>
  P.encodeSessionFrame({ type: "welcome", version: 3, session, central, peripheral, window, next, mtu });
const ack = (transfer, received, status = P.STATUS.receiving, session = 1, spans = []) =>
  P.encodeSessionFrame({ type: "acknowledgement", status, session, transfer, received, spans });
const data = (transfer, offset, bytes, session = 255) => P.encodeSessionFrame({ type: "data", session, transfer, offset, bytes });

/** Everything the session writes until it has nothing more, parsed. */
function drain(s, now) {
  const out = [];
  for (let v = s.nextValue(now); v; v = s.nextValue(now)) {
    out.push({ characteristic: v.characteristic, bytes: v.bytes, frame: v.bytes.length === 4 ? { type: "counter", value: P.parseCounter(v.bytes) } : P.parseSessionFrame(v.bytes) });
  }
  return out;
}

/** A session welcomed at time 0 (hello read, welcome with `mtu`). */
function welcomed(mtu = 517, options = {}) {
  const s = new CentralSession({ token: 0x1a2b3c4d, ...options });
  s.linkUp(true, 0);
  s.tick(0);
  const [hello] = drain(s, 0);
  assert.strictEqual(hello.frame.type, "hello");
  s.received("session", welcome(0x1a2b3c4d, 1, mtu), 0.1);
  return s;
}

test("the hello: version 2 (no compact frames), 20 bytes, again every 2 s, version 1 after five", () => {
  const s = new CentralSession({ token: 0x1a2b3c4d, window: 32768 });
  s.linkUp(true, 0);
  s.tick(0);
  const [first] = drain(s, 0);
  assert.strictEqual(first.characteristic, "session");
  assert.deepStrictEqual(Array.from(first.bytes), [0xb2, 1, 2, 0, 0x4d, 0x3c, 0x2b, 0x1a, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 1, 0]);
  s.tick(1.9);
  assert.strictEqual(drain(s, 1.9).length, 0, "not before 2 s");
  for (const t of [2, 4, 6, 8]) {
    s.tick(t);
    assert.strictEqual(drain(s, t).length, 1, `hello at ${t} s`);
  }
  s.tick(10);
  const events = s.takeEvents();
  assert.deepStrictEqual(events.map((e) => [e.type, e.protocol, e.listen]), [["ready", 1, "notify"]]);
  // A welcome that comes after the switch changes nothing.
  s.received("session", welcome(0x1a2b3c4d), 10.5);
  assert.deepStrictEqual(s.takeEvents(), []);
  s.sendCounter(7);
  assert.deepStrictEqual(drain(s, 10).map((v) => [v.characteristic, v.frame.value]), [["write", 7]]);
});

test("a welcome with the MTU sizes the data frames; without one, 20-byte values", () => {
  for (const [mtu, length] of [[517, 495], [247, 244], [null, 20]]) {
    const s = welcomed(mtu);
    assert.deepStrictEqual(s.takeEvents()[0], { type: "ready", protocol: 2, mtu, session: 1 });
    s.sendMessage({ id: 1, kind: P.KIND.binary, bytes: new Uint8Array(3000).fill(7), name: "" });
    const frames = drain(s, 0.2);
    assert.ok(frames.length > 1);
    assert.strictEqual(frames[0].bytes.length, length, `values at MTU ${mtu}`);
    for (const f of frames) assert.ok(f.bytes.length <= P.maxValueLength(mtu, "write"));
  }
});

test("counters go on the session characteristic, first; a counter notified is shown", () => {
  const s = welcomed();
  s.takeEvents();
  s.sendCounter(1000);
  assert.deepStrictEqual(drain(s, 0.2).map((v) => [v.characteristic, Array.from(v.bytes)]), [["session", [0xe8, 3, 0, 0]]]);
  s.received("session", P.encodeCounter(42), 0.3);
  assert.deepStrictEqual(s.takeEvents(), [{ type: "counter", value: 42 }]);
});

test("a message goes in order within the window and is delivered by the final acknowledgement", () => {
  const s = welcomed(247);
  s.takeEvents();
  const bytes = Uint8Array.from({ length: 10240 }, (_, i) => i % 251);
  s.sendMessage({ id: 9, kind: P.KIND.text, bytes, name: "" });
  const stream = P.messageStream(bytes, P.KIND.text);
  let held = 0;
  let now = 0.2;
  for (let round = 0; round < 100 && held < stream.length; round++) {
    const frames = drain(s, now);
    assert.ok(frames.length > 0 && frames.length <= 16, `round ${round}: ${frames.length} frames in flight`);
    for (const f of frames) {
      assert.strictEqual(f.frame.type, "data");
      assert.strictEqual(f.frame.transfer, 1);
      assert.strictEqual(f.frame.offset, held, "in order, nothing twice");
      held += f.frame.bytes.length;
    }
    now += 0.1;
    s.received("session", ack(1, held), now);
  }
  assert.strictEqual(held, stream.length);
  assert.ok(!s.takeEvents().some((e) => e.type === "delivered"), "not before the final word");
  s.received("session", ack(1, held, P.STATUS.delivered), now);
  assert.ok(s.takeEvents().some((e) => e.type === "delivered" && e.id === 9));
});

test("no acknowledgement: sent again from the first byte lacking after the time-out, the final word asked for", () => {
  const s = welcomed(247);
  s.takeEvents();
  s.sendMessage({ id: 1, kind: P.KIND.text, bytes: new TextEncoder().encode("hello there"), name: "" });
  const [only] = drain(s, 0.2);
  s.received("session", ack(1, only.frame.bytes.length), 0.3);
  s.tick(1.0);
  assert.strictEqual(drain(s, 1.0).length, 0);
  s.tick(2.4);
  const [again] = drain(s, 2.4);
  assert.strictEqual(again.frame.offset, only.frame.bytes.length - 1, "the last byte, asking for the final word");
  s.received("session", ack(1, only.frame.bytes.length, P.STATUS.delivered), 2.5);
  assert.ok(s.takeEvents().some((e) => e.type === "delivered"));
});

test("a link drop: resumed from what the peripheral holds (same token); failed when it restarted", () => {
  const s = welcomed(247);
  s.takeEvents();
  const bytes = new Uint8Array(5000).fill(1);
  s.sendMessage({ id: 4, kind: P.KIND.binary, bytes, name: "a.bin" });
  drain(s, 0.2);
  s.received("session", ack(1, 1000), 0.3);
  s.linkDown(1);
  s.tick(5);
  assert.strictEqual(s.nextValue(5), null, "nothing while down");
  s.linkUp(true, 10);
  s.tick(10);
  const [hello] = drain(s, 10);
  assert.strictEqual(hello.frame.next, 1, "the hello names the message under way");
  s.received("session", welcome(0x1a2b3c4d, 1, 247, PERIPHERAL, 2), 10.1);
  assert.strictEqual(drain(s, 10.1).length, 0, "waits for the acknowledgement");
  s.received("session", ack(1, 3000, P.STATUS.receiving, 2), 10.2);
  const events = s.takeEvents();
  assert.ok(events.some((e) => e.type === "resumed-at" && e.offset === 3000 - (P.STREAM_HEADER + 5)));
  const frames = drain(s, 10.2);
  assert.strictEqual(frames[0].frame.offset, 3000);
  assert.strictEqual(frames[0].frame.session, 2, "the new session number");
  // The peripheral restarted: the message fails, an abort tells the new one.
  s.linkDown(11);
  s.linkUp(true, 12);
  s.tick(12);
  drain(s, 12);
  s.received("session", welcome(0x1a2b3c4d, 1, 247, 0x11111111, 1), 12.1);
  const after = drain(s, 12.1);
  assert.deepStrictEqual(after.map((f) => f.frame.type), ["abort"]);
  assert.ok(s.takeEvents().some((e) => e.type === "failed" && e.why === "the receiving program restarted"));
});

test("a final acknowledgement lost with the link: answered again after the reconnect, the message not shown twice", () => {
  const s = welcomed(247);
  s.takeEvents();
  const stream = P.messageStream(new TextEncoder().encode("once only"), P.KIND.text);
  s.received("session", data(1, 0, stream), 1);
  assert.strictEqual(s.takeEvents().filter((e) => e.type === "message").length, 1);
  s.linkDown(1.01); // before the final acknowledgement was written
  s.linkUp(true, 3);
  s.tick(3);
  drain(s, 3);
  s.received("session", welcome(0x1a2b3c4d, 1, 247), 3.1); // the peripheral still sends transfer 1
  const [final] = drain(s, 3.1);
  assert.deepStrictEqual([final.frame.type, final.frame.status, final.frame.transfer, final.frame.received], ["acknowledgement", P.STATUS.delivered, 1, stream.length]);
  s.received("session", data(1, 0, stream), 3.2);
  assert.ok(!s.takeEvents().some((e) => e.type === "message"), "not shown twice");
  s.received("session", data(2, 0, P.messageStream(new TextEncoder().encode("next"), P.KIND.text)), 3.3);
  assert.ok(s.takeEvents().some((e) => e.type === "message" && new TextDecoder().decode(e.bytes) === "next"));
});

test("a second welcome on the same link (an answer to a hello written again) is not a reconnect", () => {
  const s = welcomed(247);
  s.takeEvents();
  s.sendMessage({ id: 1, kind: P.KIND.text, bytes: new Uint8Array(3000), name: "" });
  const first = drain(s, 0.2);
  s.received("session", welcome(0x1a2b3c4d, 1, 247), 0.3);
  assert.deepStrictEqual(s.takeEvents(), []);
  s.received("session", ack(1, 1000), 0.4);
  const more = drain(s, 0.4);
  assert.ok(more.length === 0 || more[0].frame.offset >= first[first.length - 1].frame.offset, "no resend from the start");
});

test("version 1: a message cut by a drop goes again from its first frame on the next link", () => {
  const s = new CentralSession({ token: 5 });
  s.linkUp(false, 0);
  s.takeEvents();
  s.sendMessage({ id: 8, kind: P.KIND.text, bytes: new TextEncoder().encode("a message of several version-one frames"), name: "" });
  const one = s.nextValue(0);
  s.nextValue(0);
  s.linkDown(1);
  s.linkUp(false, 2);
  const again = drain2(s, 2);
  assert.deepStrictEqual(Array.from(again[0].bytes), Array.from(one.bytes), "from the first frame");
  assert.ok(s.takeEvents().some((e) => e.type === "unconfirmed" && e.id === 8));
});

test("a link that stays away fails the messages after the resume time-out", () => {
  const s = welcomed(247, { resumeTimeout: 60 });
  s.takeEvents();
  s.sendMessage({ id: 2, kind: P.KIND.text, bytes: new Uint8Array(100), name: "" });
  drain(s, 0.2);
  s.linkDown(1);
  s.tick(60.9);
  assert.ok(!s.takeEvents().some((e) => e.type === "failed"));
  s.tick(61);
  assert.ok(s.takeEvents().some((e) => e.type === "failed" && e.why === "the link did not come back within 60 s"));
});

test("receiving: in order, acknowledged within 50 ms, delivered once with its name; a gap answered at once", () => {
  const s = welcomed(247);
  s.takeEvents();
  const bytes = new TextEncoder().encode("x".repeat(600));
  const stream = P.messageStream(bytes, P.KIND.binary, "notes.txt");
  s.received("session", data(1, 0, stream.subarray(0, 232)), 1);
  assert.strictEqual(drain(s, 1).length, 0);
  s.tick(1.06);
  const [first] = drain(s, 1.06);
  assert.deepStrictEqual([first.frame.type, first.frame.received, first.frame.transfer, first.frame.session], ["acknowledgement", 232, 1, 1]);
  s.received("session", data(1, 464, stream.subarray(464)), 1.1);
  s.tick(1.1);
  const [gap] = drain(s, 1.1);
  assert.strictEqual(gap.frame.received, 232, "a gap: what is held, at once");
  s.received("session", data(1, 232, stream.subarray(232)), 1.2);
  const [final] = drain(s, 1.2);
  assert.deepStrictEqual([final.frame.status, final.frame.received], [P.STATUS.delivered, stream.length]);
  const messages = s.takeEvents().filter((e) => e.type === "message");
  assert.strictEqual(messages.length, 1);
  assert.strictEqual(messages[0].name, "notes.txt");
  assert.deepStrictEqual(Array.from(messages[0].bytes), Array.from(bytes));
  // A duplicate of the finished message is answered with its final word, at most every 0.5 s.
  s.received("session", data(1, 232, stream.subarray(232)), 2);
  assert.strictEqual(drain(s, 2)[0].frame.status, P.STATUS.delivered);
  s.received("session", data(1, 232, stream.subarray(232)), 2.1);
  assert.strictEqual(drain(s, 2.1).length, 0);
  // Frames of another central's session are not ours.
  s.received("session", data(2, 0, stream.subarray(0, 100), 7), 3);
  s.tick(3.1);
  assert.strictEqual(drain(s, 3.1).length, 0);
});

test("hostile data: a wrong checksum, a length over the limit, bytes past the end, a bad kind", () => {
  const cases = [
    ["checksum", (b) => { const st = P.messageStream(b, P.KIND.text); st[6] ^= 1; return st; }, P.STATUS.checksumMismatch],
    ["too large", (b) => { const st = P.messageStream(b, P.KIND.text); st[5] = 0x7f; return st; }, P.STATUS.tooLarge],
    ["kind", (b) => { const st = P.messageStream(b, P.KIND.text); st[0] = 9; return st; }, P.STATUS.badHeader],
    ["past the end", (b) => P.concat([P.messageStream(b, P.KIND.text), Uint8Array.of(1, 2, 3)]), P.STATUS.badHeader],
  ];
  for (const [name, make, status] of cases) {
    const s = welcomed(247, { maxMessage: 1 << 20 });
    s.takeEvents();
    const stream = make(new TextEncoder().encode("hello"));
    s.received("session", data(1, 0, stream), 1);
    const [answer] = drain(s, 1);
    assert.strictEqual(answer.frame.status, status, name);
    assert.ok(!s.takeEvents().some((e) => e.type === "message"), `${name}: nothing delivered`);
    // The next message is taken.
    s.received("session", data(2, 0, P.messageStream(new TextEncoder().encode("ok"), P.KIND.text)), 2);
    assert.strictEqual(drain(s, 2)[0].frame.status, P.STATUS.delivered, `${name}: the next message`);
  }
});

test("malformed values are one paced line each, and the session goes on", () => {
  const s = welcomed(247);
  s.takeEvents();
  s.received("session", Uint8Array.of(0xb2, 9, 1), 1);
  s.received("session", Uint8Array.of(0xc1, 2, 3), 1.1);
  s.received("notify", Uint8Array.of(0x00, 1, 2), 1.2);
  let events = s.takeEvents();
  assert.deepStrictEqual(events, [{ type: "error", text: "unknown session frame type 0x09" }]);
  s.received("session", Uint8Array.of(0xb2, 4), 2.5);
  events = s.takeEvents();
  assert.strictEqual(events[0].text, "truncated acknowledgement frame: 2 bytes, needs 10 (2 more not shown)");
  s.received("session", P.encodeCounter(5), 2.6);
  assert.deepStrictEqual(s.takeEvents(), [{ type: "counter", value: 5 }]);
});

test("version 1: frames of 20 bytes on the write characteristic, unconfirmed; frames notified put together", () => {
  const s = new CentralSession({ token: 5 });
  s.linkUp(false, 0);
  assert.strictEqual(s.takeEvents()[0].protocol, 1);
  s.sendMessage({ id: 3, kind: P.KIND.text, bytes: new TextEncoder().encode("Hello, relay of version one"), name: "" });
  const frames = drain2(s, 0);
  assert.ok(frames.every((f) => f.characteristic === "write" && f.bytes.length <= 20));
  assert.ok(s.takeEvents().some((e) => e.type === "unconfirmed" && e.id === 3));
  for (const frame of P.messageFrames(new TextEncoder().encode("from the peripheral"), P.KIND.text, 4, null, "notify")) s.received("notify", frame, 1);
  const message = s.takeEvents().find((e) => e.type === "message");
  assert.strictEqual(new TextDecoder().decode(message.bytes), "from the peripheral");
  assert.strictEqual(message.confirmed, false);
});

test("the flight: 16 frames at most, never beyond the window the peripheral announced", () => {
  const bytes = Uint8Array.from({ length: 100000 }, (_, i) => i % 251);
  for (const [window, most] of [[65536, 16 * P.dataRoom(517)], [4096, 4096]]) {
    const s = new CentralSession({ token: 0x1a2b3c4d });
    s.linkUp(true, 0);
    s.tick(0);
    drain(s, 0);
    s.received("session", welcome(0x1a2b3c4d, 1, 517, PERIPHERAL, 1, window), 0.1);
    s.sendMessage({ id: 1, kind: P.KIND.binary, bytes, name: "" });
    let acked = 0;
    let sent = 0;
    for (let round = 0, now = 0.2; round < 400 && acked < 100011; round++, now += 0.05) {
      for (const f of drain(s, now).filter((f) => f.frame.type === "data")) sent = f.frame.offset + f.frame.bytes.length;
      assert.ok(sent - acked <= most, `window ${window}: ${sent - acked} bytes beyond the acknowledged`);
      if (round === 0) assert.strictEqual(sent, Math.min(window, most), `window ${window}: the first flight`);
      acked = Math.min(sent, acked + 4096);
      s.received("session", ack(1, acked), now);
    }
    assert.strictEqual(sent, acked, `window ${window}: all sent and acknowledged`);
  }
});

test("silence: data unanswered and nothing heard for 6 s says so once a link, so the page links again", () => {
  const s = welcomed(517);
  s.takeEvents();
  s.sendMessage({ id: 1, kind: P.KIND.text, bytes: new TextEncoder().encode("after the drop"), name: "" });
  drain(s, 0.2);
  const silent = [];
  for (let now = 0.2; now < 20; now += 0.25) {
    s.tick(now);
    drain(s, now);
    silent.push(...s.takeEvents().filter((e) => e.type === "silent").map(() => now));
  }
  assert.strictEqual(silent.length, 1, `one silent event, not ${silent.length}`);
  assert.ok(silent[0] >= 0.1 + S.SILENT && silent[0] < 0.1 + S.SILENT + 2, `said at ${silent[0]} s`);
  // Anything heard (here a counter) resets the clock; a new link may say it again.
  const t = welcomed(517);
  t.takeEvents();
  t.sendMessage({ id: 1, kind: P.KIND.text, bytes: new TextEncoder().encode("x"), name: "" });
  for (let now = 0.2; now < 20; now += 0.25) {
    t.tick(now);
    drain(t, now);
    t.received("session", P.encodeCounter(7), now);
    assert.ok(!t.takeEvents().some((e) => e.type === "silent"), `silent at ${now} s though counters came`);
  }
});

function drain2(s, now) {
  const out = [];
  for (let v = s.nextValue(now); v; v = s.nextValue(now)) out.push(v);
  return out;
}

report(__filename);
