// relay's wire protocol for the browser page: counters, version-1 frames, version-2 session frames,
// the message stream's header, CRC-32C and chunk sizes (the one-line meaning of a value, what
// `--trace` prints, is relay-meaning.js). No I/O: bytes in, values out. docs/protocol.md is the specification; the
// tests (web/test/protocol-test.js) read its golden vectors, as the Swift codec's tests do.
//
// A classic script (a page opened from a file cannot load modules): in a browser it defines
// `RelayProtocol`; under Node.js it is `require`d.
(function (root) {
  "use strict";

  const UUID = {
    service: "6b5c4a86-cfb7-4031-98eb-09df5e2543f0",
    write: "4551abae-ce14-4f9e-b31a-e61fc372e480",
    notify: "dfb13451-1740-4f8a-b0f0-7c20d79e8bdf",
    session: "a559017e-46d9-46da-84a8-fe75d26e0816",
    pairing: "3c1f2e9a-5b7d-4e61-9a0c-8d2f6b41e7c5",
  };

  /** A protocol error: `message` is the same one line the Swift codec gives. */
  class ProtocolError extends Error {}

  const hexByte = (b) => b.toString(16).padStart(2, "0");
  const hex32 = (v) => "0x" + (v >>> 0).toString(16).padStart(8, "0");
  const hex = (bytes) => Array.from(bytes, hexByte).join(" ");

  function u16(bytes, at) {
    return bytes[at] | (bytes[at + 1] << 8);
  }
  function u32(bytes, at) {
    return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
  }
  function putU16(out, value) {
    out.push(value & 0xff, (value >>> 8) & 0xff);
  }
  function putU32(out, value) {
    out.push(value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff);
  }

  // CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, table-driven.
  const crcTable = (() => {
    const table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
      table[n] = c >>> 0;
    }
    return table;
  })();

  /** A running CRC-32C: `update(bytes)`, then `value`. */
  class CRC32C {
    constructor() {
      this.register = 0xffffffff;
    }
    update(bytes) {
      let c = this.register;
      for (let i = 0; i < bytes.length; i++) c = crcTable[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
      this.register = c >>> 0;
      return this;
    }
    get value() {
      return (this.register ^ 0xffffffff) >>> 0;
    }
  }
  const crc32c = (bytes) => new CRC32C().update(bytes).value;

  // ---- Chunk size (docs/protocol.md, "Chunk size") ----

  const MTU_MIN = 23;
  const MTU_MAX = 517;
  const VALUE_CEILING = 510;
  const OVERHEAD = { write: 3, notify: 5 };

  /** The largest value on a link of ATT MTU `mtu` (null: unknown, taken as 23), written or notified. */
  function maxValueLength(mtu, carrier) {
    const m = mtu == null ? MTU_MIN : Math.min(Math.max(mtu, MTU_MIN), MTU_MAX);
    return Math.min(m - OVERHEAD[carrier], VALUE_CEILING);
  }

  /** The length values are cut to: two or one link-layer payloads when they fit (sendLength). */
  function sendLength(mtu, carrier) {
    const max = maxValueLength(mtu, carrier);
    const two = 498 - OVERHEAD[carrier];
    const one = 247 - OVERHEAD[carrier];
    return max >= two ? two : max >= one ? one : max;
  }

  // ---- Counter ----

  const COUNTER_LENGTH = 4;
  function encodeCounter(value) {
    const out = [];
    putU32(out, value >>> 0);
    return Uint8Array.from(out);
  }
  const isCounter = (bytes) => bytes.length === COUNTER_LENGTH;
  const parseCounter = (bytes) => u32(bytes, 0);

  // ---- Message kinds ----

  const KIND = { text: 1, binary: 2 };
  const kindName = (k) => (k === 1 ? "text" : k === 2 ? "binary" : null);

  // ---- Version 1 frames ----

  const V1 = { marker: 0xb1, first: 1, last: 2, firstHeader: 14, header: 5 };

  /** Parses a version-1 frame's header; throws ProtocolError with the Swift codec's text. */
  function parseFrame(bytes) {
    if (bytes.length < 1) throw new ProtocolError("truncated frame header: 0 bytes, header needs 5");
    if (bytes[0] >> 4 !== 0xb) throw new ProtocolError(`not a relay frame (first byte 0x${hexByte(bytes[0])})`);
    if ((bytes[0] & 0x0f) !== 1) throw new ProtocolError(`unsupported relay protocol version ${bytes[0] & 0x0f}`);
    if (bytes.length < V1.header) {
      throw new ProtocolError(`truncated frame header: ${bytes.length} bytes, header needs ${V1.header}`);
    }
    const flags = bytes[1];
    if (flags & ~3) throw new ProtocolError(`reserved flag bits set (flags 0x${hexByte(flags)})`);
    const frame = { first: !!(flags & 1), last: !!(flags & 2), id: bytes[2], sequence: u16(bytes, 3) };
    let headerLength = V1.header;
    if (frame.first) {
      if (bytes.length < V1.firstHeader) {
        throw new ProtocolError(`truncated frame header: ${bytes.length} bytes, header needs ${V1.firstHeader}`);
      }
      if (frame.sequence !== 0) {
        throw new ProtocolError(`first chunk with sequence number ${frame.sequence}, expected 0`);
      }
      frame.kind = bytes[5];
      if (!kindName(frame.kind)) throw new ProtocolError(`unknown message kind 0x${hexByte(frame.kind)}`);
      frame.length = u32(bytes, 6);
      frame.crc = u32(bytes, 10);
      headerLength = V1.firstHeader;
    }
    frame.payload = bytes.subarray(headerLength);
    if (frame.payload.length === 0 && !(frame.first && frame.last && frame.length === 0)) {
      throw new ProtocolError("frame without payload in a non-empty message");
    }
    return frame;
  }

  /** The version-1 frames of one message (`bytes`, `kind`) as message `id`, cut for `mtu` written. */
  function messageFrames(bytes, kind, id, mtu, carrier = "write") {
    const length = sendLength(mtu, carrier);
    const crc = crc32c(bytes);
    const frames = [];
    let offset = 0;
    let sequence = 0;
    do {
      const first = sequence === 0;
      const room = length - (first ? V1.firstHeader : V1.header);
      const end = Math.min(bytes.length, offset + room);
      const last = end === bytes.length;
      const out = [V1.marker, (first ? V1.first : 0) | (last ? V1.last : 0), id & 0xff];
      putU16(out, sequence & 0xffff);
      if (first) {
        out.push(kind);
        putU32(out, bytes.length);
        putU32(out, crc);
      }
      const frame = new Uint8Array(out.length + end - offset);
      frame.set(out);
      frame.set(bytes.subarray(offset, end), out.length);
      frames.push(frame);
      offset = end;
      sequence++;
    } while (offset < bytes.length);
    return frames;
  }

  /** Puts version-1 frames back together (one message at a time per sender, as relay sends). */
  class FrameReassembler {
    constructor(maxMessage) {
      this.maxMessage = maxMessage;
      this.partial = null;
    }
    /** Takes one frame's bytes: returns a message {kind, bytes} when one is complete, else null. */
    take(bytes) {
      const frame = parseFrame(bytes);
      if (frame.first) {
        if (frame.length > this.maxMessage) {
          this.partial = null;
          throw new ProtocolError(`message of ${frame.length} bytes is over the limit of ${this.maxMessage}`);
        }
        this.lost = null;
        this.partial = { id: frame.id, next: 1, kind: frame.kind, length: frame.length, crc: frame.crc, parts: [], got: 0 };
      } else if (!this.partial || frame.id !== this.partial.id || frame.sequence !== this.partial.next) {
        // The rest of a message already given up is ignored, said once.
        if (this.lost === frame.id && !this.partial) return null;
        this.partial = null;
        this.lost = frame.id;
        throw new ProtocolError(`frame of message ${frame.id} out of sequence (${frame.sequence}): the message is lost`);
      } else {
        this.partial.next = (this.partial.next + 1) & 0xffff;
      }
      const p = this.partial;
      p.parts.push(frame.payload.slice());
      p.got += frame.payload.length;
      if (p.got > p.length) {
        this.partial = null;
        throw new ProtocolError(`message ${frame.id} longer than its header says`);
      }
      if (!frame.last) return null;
      this.partial = null;
      const whole = concat(p.parts, p.got);
      if (whole.length !== p.length) throw new ProtocolError(`message ${frame.id} ended short of its length`);
      if (crc32c(whole) !== p.crc) throw new ProtocolError(`message ${frame.id}: checksum mismatch`);
      return { kind: p.kind, bytes: whole, name: "" };
    }
  }

  function concat(parts, length) {
    const whole = new Uint8Array(length == null ? parts.reduce((n, p) => n + p.length, 0) : length);
    let at = 0;
    for (const part of parts) {
      whole.set(part, at);
      at += part.length;
    }
    return whole;
  }

  // ---- Version 2: session frames (docs/protocol.md, "Frames") ----

  const SESSION_MARKER = 0xb2;
  const TYPE = { hello: 1, welcome: 2, data: 3, acknowledgement: 4, abort: 5 };
  const TYPE_NAME = ["", "hello", "welcome", "data", "acknowledgement", "abort"];
  const STATUS = { receiving: 0, delivered: 1, gaveUp: 2, tooLarge: 3, checksumMismatch: 4, badHeader: 5, notSaved: 6 };
  const STATUS_TEXT = [
    "receiving",
    "delivered",
    "given up by the receiver",
    "too large for the receiver",
    "checksum mismatch at the receiver",
    "refused by the receiver: malformed header",
    "not saved by the receiver",
  ];
  const REASON = { noProgress: 1, cancelled: 2, sourceFailed: 3 };
  const REASON_TEXT = ["", "no progress", "cancelled", "the sender could not read it"];
  const EVERYONE = 255;
  const HELLO_LENGTH = 20;
  const WELCOME_LENGTH = 18;
  const WELCOME_MTU_LENGTH = 20;
  const DATA_HEADER = 10;
  const ACK_HEADER = 10;
  const SPAN_LENGTH = 8;
  const MAX_SPANS = 4;
  const COMPACT = { marker: 0xc0, modulus: 1 << 14, span: 1 << 13, header: 2 };

  function begin(bytes, type, required) {
    if (bytes.length < 1) throw new ProtocolError("not a relay session frame (first byte 0x00)");
    if (bytes[0] !== SESSION_MARKER) {
      throw new ProtocolError(`not a relay session frame (first byte 0x${hexByte(bytes[0])})`);
    }
    if (bytes.length < 2) throw new ProtocolError("unknown session frame type 0x00");
    const got = bytes[1];
    if (!TYPE_NAME[got]) throw new ProtocolError(`unknown session frame type 0x${hexByte(got)}`);
    if (type != null && got !== type) {
      throw new ProtocolError(`a ${TYPE_NAME[got]} frame where a ${TYPE_NAME[type]} frame was expected`);
    }
    if (bytes.length < required) {
      throw new ProtocolError(`truncated ${TYPE_NAME[got]} frame: ${bytes.length} bytes, needs ${required}`);
    }
    return got;
  }

  function session(value, type, anyone) {
    if (value === 0 || (!anyone && value === EVERYONE)) {
      throw new ProtocolError(`${TYPE_NAME[type]} frame with session number ${value}`);
    }
    return value;
  }

  /** Parses a session frame: {type: "hello"|"welcome"|"data"|"acknowledgement"|"abort", ...fields}. */
  function parseSessionFrame(bytes) {
    const minimum = { 1: HELLO_LENGTH, 2: WELCOME_LENGTH, 3: DATA_HEADER, 4: ACK_HEADER, 5: 6 };
    const type = begin(bytes, null, 2);
    begin(bytes, type, minimum[type]);
    switch (type) {
      case TYPE.hello: {
        const version = bytes[2];
        if (version < 2) throw new ProtocolError(`hello frame of unsupported version ${version}`);
        if (bytes[3] !== 0) throw new ProtocolError(`hello frame with reserved bits set (0x${hexByte(bytes[3])})`);
        const token = u32(bytes, 4);
        if (token === 0) throw new ProtocolError("hello frame with token 0");
        const address = Array.from(bytes.subarray(8, 14), (b) => hexByte(b).toUpperCase()).join(":");
        return { type: "hello", version, token, address, window: u32(bytes, 14), next: u16(bytes, 18) };
      }
      case TYPE.welcome: {
        const version = bytes[2];
        if (version < 2 || version > 3) throw new ProtocolError(`welcome frame of unsupported version ${version}`);
        const number = session(bytes[3], type, false);
        const central = u32(bytes, 4);
        const peripheral = u32(bytes, 8);
        if (central === 0 || peripheral === 0) throw new ProtocolError("welcome frame with token 0");
        let mtu = null;
        if (bytes.length >= WELCOME_MTU_LENGTH) {
          const value = u16(bytes, 18);
          if (value >= MTU_MIN && value <= MTU_MAX) mtu = value;
        }
        return { type: "welcome", version, session: number, central, peripheral, window: u32(bytes, 12), next: u16(bytes, 16), mtu };
      }
      case TYPE.data: {
        if (bytes[2] !== 0) throw new ProtocolError(`data frame with reserved bits set (0x${hexByte(bytes[2])})`);
        const number = session(bytes[3], type, true);
        if (bytes.length === DATA_HEADER) throw new ProtocolError("data frame without data");
        const offset = u32(bytes, 6);
        if (offset + bytes.length - DATA_HEADER > 0xffffffff) throw new ProtocolError("acknowledgement with ranges out of order");
        return { type: "data", session: number, transfer: u16(bytes, 4), offset, bytes: bytes.subarray(DATA_HEADER) };
      }
      case TYPE.acknowledgement: {
        const extra = bytes.length - ACK_HEADER;
        if (extra % SPAN_LENGTH !== 0 || extra / SPAN_LENGTH > MAX_SPANS) {
          const expected = ACK_HEADER + Math.min(MAX_SPANS, Math.floor(extra / SPAN_LENGTH)) * SPAN_LENGTH;
          throw new ProtocolError(`acknowledgement frame of ${bytes.length} bytes, expected ${expected}`);
        }
        const status = bytes[2];
        if (status >= STATUS_TEXT.length) {
          throw new ProtocolError(`acknowledgement with unknown status 0x${hexByte(status)}`);
        }
        const number = session(bytes[3], type, false);
        const received = u32(bytes, 6);
        const spans = [];
        let floor = received;
        for (let at = ACK_HEADER; at < bytes.length; at += SPAN_LENGTH) {
          const start = u32(bytes, at);
          const end = u32(bytes, at + 4);
          if (!(start > floor) || !(end > start)) throw new ProtocolError("acknowledgement with ranges out of order");
          spans.push([start, end]);
          floor = end;
        }
        return { type: "acknowledgement", status, session: number, transfer: u16(bytes, 4), received, spans };
      }
      case TYPE.abort: {
        if (bytes.length !== 6) throw new ProtocolError(`abort frame of ${bytes.length} bytes, expected 6`);
        const reason = bytes[2];
        if (!REASON_TEXT[reason]) throw new ProtocolError(`abort with unknown reason 0x${hexByte(reason)}`);
        return { type: "abort", reason, session: session(bytes[3], type, true), transfer: u16(bytes, 4) };
      }
    }
  }

  /** Encodes a session frame of the shape `parseSessionFrame` returns. */
  function encodeSessionFrame(frame) {
    const out = [SESSION_MARKER, TYPE[frame.type]];
    switch (frame.type) {
      case "hello":
        out.push(frame.version, 0);
        putU32(out, frame.token);
        for (const part of (frame.address || "00:00:00:00:00:00").split(":")) out.push(parseInt(part, 16));
        putU32(out, frame.window);
        putU16(out, frame.next);
        break;
      case "welcome":
        out.push(frame.version, frame.session);
        putU32(out, frame.central);
        putU32(out, frame.peripheral);
        putU32(out, frame.window);
        putU16(out, frame.next);
        if (frame.mtu != null) putU16(out, frame.mtu);
        break;
      case "data":
        out.push(0, frame.session);
        putU16(out, frame.transfer);
        putU32(out, frame.offset);
        for (const b of frame.bytes) out.push(b);
        break;
      case "acknowledgement":
        out.push(frame.status, frame.session);
        putU16(out, frame.transfer);
        putU32(out, frame.received);
        for (const [start, end] of frame.spans || []) {
          putU32(out, start);
          putU32(out, end);
        }
        break;
      case "abort":
        out.push(frame.reason, frame.session);
        putU16(out, frame.transfer);
        break;
    }
    return Uint8Array.from(out);
  }

  const isCompact = (bytes) => bytes.length > 0 && (bytes[0] & 0xc0) === 0xc0;

  /** A compact data frame: the offset's 14 bits and the stream bytes. */
  function parseCompact(bytes) {
    if (bytes.length <= COMPACT.header) throw new ProtocolError("data frame without data");
    return { residue: ((bytes[0] & 0x3f) << 8) | bytes[1], bytes: bytes.subarray(COMPACT.header) };
  }

  /** The offset of a compact frame's `residue` that lies within 8192 of `received`. */
  function compactOffset(residue, received) {
    const base = received - COMPACT.span;
    const from = ((base % COMPACT.modulus) + COMPACT.modulus) % COMPACT.modulus;
    return base + ((residue - from + COMPACT.modulus) % COMPACT.modulus);
  }

  // ---- The message stream (docs/protocol.md, "The message stream") ----

  const STREAM_HEADER = 11;

  /** The stream of one message: the 11-byte header, the name (UTF-8, at most 255 bytes), the bytes. */
  function messageStream(bytes, kind, name = "") {
    let nameBytes = new TextEncoder().encode(name);
    if (nameBytes.length > 255) nameBytes = nameBytes.subarray(0, 255);
    const header = [kind, 0];
    putU32(header, bytes.length);
    putU32(header, crc32c(bytes));
    header.push(nameBytes.length);
    return concat([Uint8Array.from(header), nameBytes, bytes]);
  }

  /** Reads a stream header once `bytes` hold it: {kind, flags, length, crc, name, size} or null. */
  function parseStreamHeader(bytes) {
    if (bytes.length < STREAM_HEADER) return null;
    const nameLength = bytes[10];
    if (bytes.length < STREAM_HEADER + nameLength) return null;
    return {
      kind: bytes[0],
      flags: bytes[1],
      length: u32(bytes, 2),
      crc: u32(bytes, 6),
      name: bytes.subarray(STREAM_HEADER, STREAM_HEADER + nameLength),
      size: STREAM_HEADER + nameLength,
    };
  }

  /** Stream bytes a data frame carries at `mtu` (full header; written by a central). */
  const dataRoom = (mtu, carrier = "write") => sendLength(mtu, carrier) - DATA_HEADER;

  const api = {
    UUID,
    ProtocolError,
    CRC32C,
    crc32c,
    hex,
    hex32,
    MTU_MIN,
    MTU_MAX,
    maxValueLength,
    sendLength,
    COUNTER_LENGTH,
    encodeCounter,
    isCounter,
    parseCounter,
    KIND,
    kindName,
    parseFrame,
    messageFrames,
    FrameReassembler,
    concat,
    TYPE,
    STATUS,
    STATUS_TEXT,
    REASON,
    REASON_TEXT,
    EVERYONE,
    DATA_HEADER,
    ACK_HEADER,
    SPAN_LENGTH,
    MAX_SPANS,
    COMPACT,
    parseSessionFrame,
    encodeSessionFrame,
    isCompact,
    parseCompact,
    compactOffset,
    STREAM_HEADER,
    messageStream,
    parseStreamHeader,
    dataRoom,
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.RelayProtocol = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
