// The page's protocol code against docs/protocol.md's golden vectors (node web/test/protocol-test.js;
// make web-test, a stage of make test). Every vector but the L2CAP lane's (the page has no lane) is
// checked: encoding, parsing and the trace line.
"use strict";
const assert = require("assert");
const { test, report } = require("./harness.js");
const P = require("../relay-protocol.js");
const M = require("../relay-meaning.js");
const { vectors, messageOf } = require("./vectors.js");
const same = (actual, expected, what) => assert.deepStrictEqual(Array.from(actual), Array.from(expected), what);

const all = vectors();
const laneVectors = all.filter((v) => v.fields.lane != null);
const pageVectors = all.filter((v) => v.fields.lane == null);

test("the document has the vectors this test knows", () => {
  assert.ok(pageVectors.length >= 20, `only ${pageVectors.length} vectors`);
  assert.ok(laneVectors.length >= 1);
  for (const v of pageVectors) {
    const known = v.fields.counter != null || v.fields["message-id"] != null || v.fields["session-frame"] != null || v.fields["compact-frame"] != null;
    assert.ok(known, `vector ${v.name} is of a kind this test does not check`);
  }
});

test("CRC-32C check values", () => {
  assert.strictEqual(P.crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
  assert.strictEqual(P.crc32c(new Uint8Array(0)), 0);
  const running = new P.CRC32C().update(new TextEncoder().encode("1234")).update(new TextEncoder().encode("56789"));
  assert.strictEqual(running.value, 0xe3069283);
});

test("chunk sizes of docs/protocol.md's table", () => {
  const table = [
    [23, 20, 18, 20, 18],
    [185, 182, 180, 182, 180],
    [247, 244, 242, 244, 242],
    [517, 510, 510, 495, 493],
  ];
  for (const [mtu, maxW, maxN, sendW, sendN] of table) {
    assert.strictEqual(P.maxValueLength(mtu, "write"), maxW, `max written at ${mtu}`);
    assert.strictEqual(P.maxValueLength(mtu, "notify"), maxN, `max notified at ${mtu}`);
    assert.strictEqual(P.sendLength(mtu, "write"), sendW, `sent written at ${mtu}`);
    assert.strictEqual(P.sendLength(mtu, "notify"), sendN, `sent notified at ${mtu}`);
  }
  assert.strictEqual(P.sendLength(null, "write"), 20, "an unknown MTU is 23: 20-byte writes");
});

for (const v of pageVectors) {
  test(`vector ${v.name}`, () => {
    const value = v.hex.value || v.hex["frame 0"];
    const characteristic = v.fields["session-frame"] != null || v.fields["compact-frame"] != null ? "session" : "write";
    if (v.fields.trace != null) assert.strictEqual(M.describe(value, characteristic), v.fields.trace, "trace line");
    if (v.fields.counter != null) {
      same(P.encodeCounter(v.integer("counter")), value, "counter bytes");
      assert.strictEqual(P.parseCounter(value), v.integer("counter"));
    } else if (v.fields["message-id"] != null) {
      const message = messageOf(v);
      assert.strictEqual(message.length, v.integer("length"));
      assert.strictEqual(P.crc32c(message), v.integer("crc32c"));
      const frames = P.messageFrames(message, P.KIND[v.fields.kind], v.integer("message-id"), v.integer("mtu"));
      assert.strictEqual(frames.length, v.integer("frames"), "frame count");
      for (const key of Object.keys(v.hex)) {
        const index = Number(key.replace("frame ", ""));
        same(frames[index], v.hex[key], key);
      }
      const reassembler = new P.FrameReassembler(1 << 20);
      let got = null;
      frames.forEach((frame, i) => {
        const out = reassembler.take(frame);
        if (i < frames.length - 1) assert.strictEqual(out, null);
        else got = out;
      });
      same(got.bytes, message, "reassembled");
      assert.strictEqual(got.kind, P.KIND[v.fields.kind]);
    } else if (v.fields["compact-frame"] != null) {
      const frame = P.parseCompact(value);
      assert.strictEqual(P.compactOffset(frame.residue, v.integer("received")), v.integer("offset"));
    } else if (v.fields.refused != null) {
      assert.throws(() => P.parseSessionFrame(value), (e) => e instanceof P.ProtocolError && e.message === v.fields.refused);
    } else if (v.fields["session-frame"] === "stream") {
      const message = messageOf(v);
      const stream = P.messageStream(message, P.KIND[v.fields.kind]);
      const room = P.sendLength(v.integer("mtu"), "notify") - P.DATA_HEADER;
      const frames = [];
      for (let offset = 0; offset < stream.length; offset += room) {
        frames.push(
          P.encodeSessionFrame({
            type: "data",
            session: v.integer("session"),
            transfer: v.integer("transfer"),
            offset,
            bytes: stream.subarray(offset, offset + room),
          })
        );
      }
      assert.strictEqual(frames.length, v.integer("frames"));
      for (const key of Object.keys(v.hex)) same(frames[Number(key.replace("frame ", ""))], v.hex[key], key);
    } else {
      const parsed = P.parseSessionFrame(value);
      same(P.encodeSessionFrame(parsed), value, "parse then encode");
      const type = v.fields["session-frame"] === "acknowledgement" ? "acknowledgement" : v.fields["session-frame"];
      assert.strictEqual(parsed.type, type);
      for (const key of ["version", "session", "window", "next", "transfer", "offset", "received", "mtu"]) {
        if (v.fields[key] != null) assert.strictEqual(parsed[key], v.integer(key), key);
      }
      for (const key of ["token", "central", "peripheral"]) {
        if (v.fields[key] != null) assert.strictEqual(parsed[key], Number(v.fields[key]), key);
      }
      if (v.fields.address != null) assert.strictEqual(parsed.address, v.fields.address);
      if (v.fields.status != null) assert.strictEqual(P.STATUS_TEXT[parsed.status], v.fields.status);
      if (v.fields.reason != null) assert.strictEqual(P.REASON_TEXT[parsed.reason], v.fields.reason);
      if (v.fields.spans != null) {
        const spans = v.fields.spans === "" ? [] : v.fields.spans.split(" ").map((s) => s.split("..<").map(Number));
        assert.deepStrictEqual(parsed.spans, spans);
      }
      if (type === "data" && v.fields.text != null) {
        const header = P.parseStreamHeader(parsed.bytes);
        assert.strictEqual(header.crc, v.integer("crc32c"));
        same(P.messageStream(messageOf(v), P.KIND[v.fields.kind]), parsed.bytes, "the stream");
      }
      if (type === "welcome" && v.fields.mtu == null) assert.strictEqual(parsed.mtu, null, "no MTU in 18 bytes");
    }
  });
}

test("hostile values: a one-line reason, never an exception of another kind", () => {
  const samples = [[], [0xb2], [0xb2, 0x09], [0xb2, 0x02, 3], [0xb2, 0x04, 9, 1, 0, 0, 0, 0, 0, 0], [0xb1, 4, 0, 0, 0], [0x00, 1, 2]];
  for (let n = 0; n < 2000; n++) {
    const length = n % 40;
    samples.push(Array.from({ length }, (_, i) => (n * 131 + i * 71) & 0xff));
  }
  for (const sample of samples) {
    const bytes = Uint8Array.from(sample);
    for (const c of ["session", "write"]) {
      const line = M.describe(bytes, c);
      assert.strictEqual(typeof line, "string");
      assert.ok(!line.includes("\n"));
    }
  }
  assert.strictEqual(M.describe(Uint8Array.from([0, 1, 2]), "write"), "not a relay value: not a relay frame (first byte 0x00)");
});

report(__filename, ` (${pageVectors.length} vectors; ${laneVectors.length} lane vectors are not the page's)`);
