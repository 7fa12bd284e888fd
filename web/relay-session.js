// The browser page's relay central, as a state machine with no I/O: the page's driver feeds it
// what happened (the link came up, a value arrived, time passed, the user asked for something) with
// the time as an input, asks it for the next value to write when the write path is free, and shows
// the events it returns. docs/protocol.md ("Version 2: delivery confirmed") is what it speaks; the
// tests run it against a peer built from the same codec (web/test/session-test.js).
//
// What it does of protocol 2: the handshake (hello version 2: no compact frames; the welcome's MTU
// sizes the writes, 20 bytes without one), one message at a time with a window, acknowledgements,
// a retransmission time-out that sends again from the first byte the peripheral lacks, the final
// word, resume after a link drop (same token) or start over (a new one), and the time-outs of
// docs/protocol.md. Received bytes are taken in order only (bytes beyond a gap are dropped and the
// gap acknowledged at once: the sender sends them again). With a peripheral without the session
// characteristic, or one that never welcomes, it speaks version 1 (counters and frames on the write
// and notify characteristics; messages `unconfirmed`).
(function (root) {
  "use strict";
  const P = typeof module !== "undefined" && module.exports ? require("./relay-protocol.js") : root.RelayProtocol;

  const HELLO_INTERVAL = 2;
  const HELLOS = 5;
  const ACK_DELAY = 0.05;
  const FINAL_ANSWER_INTERVAL = 0.5;
  const RESUME_WAIT = 1;
  const FLIGHT_FRAMES = 16;
  const RTO_FIRST = 2;
  const RTO_MAX = 16;
  const ERROR_INTERVAL = 1;
  // Data unanswered and nothing at all heard for this long: the page's subscription may be gone
  // with a link the browser never saw drop (seen in the test bed), so the page links again.
  const SILENT = 6;

  /** A relay central's session with one relay-peripheral. */
  class CentralSession {
    /**
     * options: token (UInt32, not 0), window (bytes held beyond a gap we announce), maxMessage,
     * deliveryTimeout (s), resumeTimeout (s).
     */
    constructor(options = {}) {
      this.token = options.token || 1 + Math.floor(Math.random() * 0xfffffffe);
      // The hello's receive window: bytes held beyond a gap. The page holds none (it takes bytes in
      // order), so it announces little: the peripheral then never has more than this unacknowledged.
      this.window = options.window || 16384;
      this.maxMessage = options.maxMessage || 16 * 1024 * 1024;
      this.deliveryTimeout = options.deliveryTimeout || 120;
      this.resumeTimeout = options.resumeTimeout || 60;
      this.events = [];
      this.control = [];
      this.counters = [];
      this.protocol = 0; // 0 until known, then 1 or 2
      this.linked = false;
      this.hellos = 0;
      this.helloAt = -Infinity;
      this.peer = null; // {token, session, window, mtu}
      this.downSince = null;
      this.errorAt = -Infinity;
      this.suppressed = 0;
      // sending
      this.queue = [];
      this.current = null;
      this.nextTransfer = 1;
      this.nextMessageID = 0; // version 1
      this.v1Messages = []; // {message, frames, next}: re-cut from its first frame after a drop
      // receiving
      this.expected = null;
      this.partial = null;
      this.finished = [];
      this.ackDue = null;
      this.reassembler = new P.FrameReassembler(this.maxMessage);
    }

    /** Events since the last call ({type, ...}: ready, counter, message, progress, delivered, failed, ...). */
    takeEvents() {
      const out = this.events;
      this.events = [];
      return out;
    }

    // ---- The link ----

    /** The link is up and subscribed: `sessionOffered` when the peripheral has the session characteristic. */
    linkUp(sessionOffered, now) {
      this.linked = true;
      this.heardAt = now;
      this.silenceSaid = false;
      if (!sessionOffered) {
        this.useVersion1(now, "the peripheral offers no session characteristic");
        return;
      }
      this.protocol = 0;
      this.hellos = 0;
      this.helloAt = -Infinity;
    }

    /** The link went down: everything waits for the next linkUp (resume). */
    linkDown(now) {
      this.linked = false;
      this.downSince = now;
      this.control = [];
      // A version-1 message cut by the drop goes again from its first frame (the peripheral
      // drops a partial one when a new first frame comes); frames half received are forgotten.
      if (this.v1Messages.length) this.v1Messages[0].next = 0;
      this.reassembler = new P.FrameReassembler(this.maxMessage);
      if (this.current) this.current.awaiting = true;
    }

    useVersion1(now, why) {
      this.protocol = 1;
      // `listen`: the characteristic the driver must now hear (the notify characteristic).
      this.events.push({ type: "ready", protocol: 1, mtu: null, why, listen: "notify" });
      // Messages waiting (or under way) go as version-1 frames, unconfirmed.
      const waiting = (this.current ? [this.current.message] : []).concat(this.queue);
      this.current = null;
      this.queue = [];
      for (const message of waiting) this.queueVersion1(message);
    }

    // ---- What the user asks ----

    /** Sends counter `value` (bare 4 bytes). */
    sendCounter(value) {
      this.counters.push(value >>> 0);
    }

    /** Queues a message ({id, kind, bytes, name}); `delivered` or `failed` tells how it ended. */
    sendMessage(message) {
      if (this.protocol === 1) this.queueVersion1(message);
      else this.queue.push(message);
    }

    queueVersion1(message) {
      const frames = P.messageFrames(message.bytes, message.kind, this.nextMessageID, null);
      this.nextMessageID = (this.nextMessageID + 1) & 0xff;
      this.v1Messages.push({ message, frames, next: 0 });
    }

    // ---- Values from the peripheral ----

    /** A value notified on `characteristic` ("session" or "notify"). */
    received(characteristic, bytes, now) {
      this.heardAt = now;
      if (bytes.length === P.COUNTER_LENGTH) {
        this.events.push({ type: "counter", value: P.parseCounter(bytes) });
        return;
      }
      if (characteristic === "notify") {
        try {
          const message = this.reassembler.take(bytes);
          if (message) this.events.push({ type: "message", kind: message.kind, bytes: message.bytes, name: "", confirmed: false });
        } catch (e) {
          this.protocolError(e, now);
        }
        return;
      }
      let frame;
      try {
        if (P.isCompact(bytes)) throw new P.ProtocolError("compact data frame, but the handshake did not agree on version 3");
        frame = P.parseSessionFrame(bytes);
      } catch (e) {
        this.protocolError(e, now);
        return;
      }
      switch (frame.type) {
        case "welcome":
          // Taken once per link, while the handshake waits for it: a second welcome (an answer to
          // a hello written again) or one after the switch to version 1 changes nothing.
          if (frame.central === this.token && this.linked && this.protocol === 0) this.welcomed(frame, now);
          break;
        case "data":
          if (this.peer && (frame.session === this.peer.session || frame.session === P.EVERYONE)) this.data(frame, now);
          break;
        case "acknowledgement":
          if (this.peer && frame.session === this.peer.session) this.acknowledged(frame, now);
          break;
        case "abort":
          if (this.peer && (frame.session === this.peer.session || frame.session === P.EVERYONE)) this.aborted(frame);
          break;
        default:
          break; // a hello is a central's: not for us
      }
    }

    protocolError(error, now) {
      if (!(error instanceof P.ProtocolError)) throw error;
      if (now - this.errorAt < ERROR_INTERVAL) {
        this.suppressed++;
        return;
      }
      this.errorAt = now;
      const more = this.suppressed ? ` (${this.suppressed} more not shown)` : "";
      this.suppressed = 0;
      this.events.push({ type: "error", text: error.message + more });
    }

    welcomed(welcome, now) {
      this.helloDue = false;
      const previous = this.peer;
      this.peer = { token: welcome.peripheral, session: welcome.session, window: welcome.window, mtu: welcome.mtu };
      const firstTime = this.protocol !== 2;
      this.protocol = 2;
      this.downSince = null;
      if (firstTime) this.events.push({ type: "ready", protocol: 2, mtu: welcome.mtu, session: welcome.session });
      const sameProcess = previous && previous.token === welcome.peripheral;
      // Receiving: what it sends next. A message it names that this page finished (its final
      // acknowledgement was lost with the link) is answered again, not taken twice.
      if (!sameProcess) this.finished = [];
      const done = this.finished.findLast((f) => f.transfer === welcome.next);
      if (done) {
        this.partial = null;
        this.expected = (welcome.next + 1) & 0xffff;
        done.answeredAt = now;
        this.control.push(this.finalAck(done));
      } else if (!sameProcess || welcome.next !== this.expected) {
        if (this.partial) this.events.push({ type: "dropped", transfer: this.expected, why: sameProcess ? "the peripheral gave it up" : "the peripheral restarted" });
        this.partial = null;
        this.expected = welcome.next;
      } else if (this.partial) {
        this.partial.lastFrameAt = now;
        this.queueAck(now, true);
      }
      // Version-1 messages cut before the handshake ended go as protocol-2 messages.
      for (const message of this.v1Messages.splice(0).map((m) => m.message)) this.queue.push(message);
      // Sending: resume, or start over with a new process.
      if (this.current) {
        if (previous && !sameProcess) {
          const c = this.current;
          this.current = null;
          this.control.push({ type: "abort", reason: P.REASON.cancelled, session: welcome.session, transfer: c.transfer });
          this.fail(c, "the receiving program restarted");
        } else if (previous) {
          this.current.progressAt = now;
          this.current.awaiting = true;
          this.current.resumeAt = now + RESUME_WAIT;
          this.current.resuming = true;
        }
      }
      if (previous && sameProcess) this.events.push({ type: "resumed" });
    }

    data(frame, now) {
      if (frame.transfer !== this.expected) {
        const done = this.finished.findLast((f) => f.transfer === frame.transfer);
        if (done && now - (done.answeredAt ?? -Infinity) >= FINAL_ANSWER_INTERVAL) {
          done.answeredAt = now;
          this.control.push(this.finalAck(done));
        }
        return;
      }
      if (!this.partial) this.partial = { parts: [], received: 0, header: null, crc: new P.CRC32C(), sinceAck: 0, lastFrameAt: now, first: [] };
      const p = this.partial;
      p.lastFrameAt = now;
      const end = frame.offset + frame.bytes.length;
      if (frame.offset > p.received) {
        this.queueAck(now, true); // a gap: say what is held at once
        return;
      }
      if (end <= p.received) {
        this.queueAck(now, false);
        return;
      }
      const fresh = frame.bytes.subarray(p.received - frame.offset);
      this.take(fresh, now);
    }

    take(fresh, now) {
      const p = this.partial;
      const transfer = this.expected;
      let bytes = fresh;
      if (!p.header) {
        p.first.push(bytes.slice());
        const head = P.concat(p.first);
        const header = P.parseStreamHeader(head);
        p.received += bytes.length;
        if (!header) return this.queueAck(now, false);
        p.first = null;
        p.header = header;
        if (!P.kindName(header.kind) || header.flags !== 0) return this.finish(P.STATUS.badHeader, now);
        if (header.length > this.maxMessage) return this.finish(P.STATUS.tooLarge, now);
        bytes = head.subarray(header.size);
        p.received -= bytes.length; // counted again below as message bytes
        this.events.push({ type: "incoming", transfer, kind: header.kind, total: header.length, name: new TextDecoder().decode(header.name) });
      }
      const total = p.header.size + p.header.length;
      if (p.received + bytes.length > total) return this.finish(P.STATUS.badHeader, now);
      if (bytes.length) {
        p.parts.push(bytes.slice());
        p.crc.update(bytes);
        p.received += bytes.length;
        p.sinceAck += bytes.length;
        this.events.push({ type: "progress", direction: "in", transfer, done: p.received - p.header.size, total: p.header.length });
      }
      if (p.received === total) {
        if (p.crc.value !== p.header.crc) return this.finish(P.STATUS.checksumMismatch, now);
        const body = P.concat(p.parts);
        this.events.push({ type: "message", kind: p.header.kind, bytes: body, name: new TextDecoder().decode(p.header.name), confirmed: true });
        return this.finish(P.STATUS.delivered, now);
      }
      this.queueAck(now, p.sinceAck >= this.window / 4);
    }

    finalAck(done) {
      return { type: "acknowledgement", status: done.status, session: this.peer.session, transfer: done.transfer, received: done.received, spans: [] };
    }

    finish(status, now) {
      const received = status === P.STATUS.delivered ? this.partial.received : 0;
      const transfer = this.expected;
      if (status !== P.STATUS.delivered) this.events.push({ type: "refused", transfer, status: P.STATUS_TEXT[status] });
      this.finished.push({ transfer, status, received, answeredAt: now });
      if (this.finished.length > 8) this.finished.shift();
      this.control.push({ type: "acknowledgement", status, session: this.peer.session, transfer, received, spans: [] });
      this.partial = null;
      this.ackDue = null;
      this.expected = (transfer + 1) & 0xffff;
    }

    queueAck(now, atOnce) {
      if (!this.partial) return;
      const due = atOnce ? now : now + ACK_DELAY;
      this.ackDue = this.ackDue == null ? due : Math.min(this.ackDue, due);
    }

    acknowledged(ack, now) {
      const c = this.current;
      if (!c || ack.transfer !== c.transfer) return;
      if (ack.status !== P.STATUS.receiving) {
        this.current = null;
        if (ack.status === P.STATUS.delivered) this.events.push({ type: "delivered", id: c.message.id });
        else this.fail(c, P.STATUS_TEXT[ack.status], false);
        return;
      }
      const stream = c.stream.length;
      const beyond = ack.spans.length ? ack.spans[ack.spans.length - 1][1] : ack.received;
      if (ack.received > stream || beyond > stream) {
        this.current = null;
        this.fail(c, "the peripheral acknowledged bytes never sent (protocol broken)");
        return;
      }
      if (ack.received > c.acked) {
        c.acked = ack.received;
        c.progressAt = now;
        c.rto = RTO_FIRST;
        c.retransmitAt = now + c.rto;
        this.events.push({ type: "progress", direction: "out", id: c.message.id, done: Math.max(0, c.acked - c.headerSize), total: c.message.bytes.length });
      }
      if (c.sent < c.acked) c.sent = c.acked;
      if (c.resuming) {
        c.resuming = false;
        c.awaiting = false;
        c.sent = c.acked;
        this.events.push({ type: "resumed-at", id: c.message.id, offset: Math.max(0, c.acked - c.headerSize), total: c.message.bytes.length });
      }
    }

    aborted(abort) {
      if (abort.transfer !== this.expected) return;
      this.partial = null;
      this.ackDue = null;
      this.events.push({ type: "dropped", transfer: abort.transfer, why: P.REASON_TEXT[abort.reason] });
      this.expected = (abort.transfer + 1) & 0xffff;
    }

    fail(c, why, abortIt = false) {
      if (abortIt && this.peer) this.control.push({ type: "abort", reason: P.REASON.noProgress, session: this.peer.session, transfer: c.transfer });
      this.events.push({ type: "failed", id: c.message.id, why });
    }

    // ---- Time ----

    /** Time passed: hellos, acknowledgements due, time-outs. */
    tick(now) {
      if (this.linked && this.protocol === 0 && now - this.helloAt >= HELLO_INTERVAL) {
        if (this.hellos >= HELLOS) this.useVersion1(now, "no welcome to 5 hellos");
        else this.helloDue = true;
      }
      if (this.ackDue != null && now >= this.ackDue && this.partial && this.linked && this.peer) {
        this.ackDue = null;
        this.partial.sinceAck = 0;
        this.control.push({ type: "acknowledgement", status: P.STATUS.receiving, session: this.peer.session, transfer: this.expected, received: this.partial.received, spans: [] });
      }
      const c = this.current;
      if (c && this.linked && this.protocol === 2) {
        if (c.resuming && now >= c.resumeAt) {
          c.resuming = false;
          c.awaiting = false;
          c.sent = c.acked;
        }
        if (!c.awaiting && (c.sent > c.acked || c.acked >= c.stream.length) && now >= c.retransmitAt) {
          // Nothing moved for a time-out: send again from the first byte the peripheral lacks
          // (everything acknowledged but no final word: its last byte).
          c.sent = c.acked >= c.stream.length ? c.stream.length - 1 : c.acked;
          c.rto = Math.min(c.rto * 2, RTO_MAX);
          c.retransmitAt = now + c.rto;
          if (now - this.heardAt >= SILENT && !this.silenceSaid) {
            this.silenceSaid = true;
            this.events.push({ type: "silent", seconds: Math.round(now - this.heardAt) });
          }
        }
        if (now - c.progressAt >= this.deliveryTimeout) {
          this.current = null;
          this.fail(c, "no progress", true);
        }
      }
      if (!this.linked && this.downSince != null && now - this.downSince >= this.resumeTimeout) {
        this.downSince = null;
        const lost = (this.current ? [this.current] : []).concat(this.queue.map((message) => ({ message })));
        this.current = null;
        this.queue = [];
        for (const c of lost) this.fail(c, `the link did not come back within ${this.resumeTimeout} s`);
        if (this.partial) this.events.push({ type: "dropped", transfer: this.expected, why: "the link did not come back" });
        this.partial = null;
      }
      if (this.partial && this.linked && now - this.partial.lastFrameAt >= this.deliveryTimeout) {
        this.events.push({ type: "dropped", transfer: this.expected, why: "no frame for the delivery time-out" });
        this.finish(P.STATUS.gaveUp, now);
      }
    }

    /** The value to write next, when the write path is free: {characteristic, bytes}, or null. */
    nextValue(now) {
      if (!this.linked) return null;
      if (this.helloDue) {
        this.helloDue = false;
        this.hellos++;
        this.helloAt = now;
        const next = this.current ? this.current.transfer : this.nextTransfer;
        const hello = { type: "hello", version: 2, token: this.token, address: "00:00:00:00:00:00", window: this.window, next };
        return { characteristic: "session", bytes: P.encodeSessionFrame(hello) };
      }
      if (this.protocol === 0) return null;
      const counterOn = this.protocol === 2 ? "session" : "write";
      if (this.control.length) return { characteristic: "session", bytes: P.encodeSessionFrame(this.control.shift()) };
      if (this.counters.length) return { characteristic: counterOn, bytes: P.encodeCounter(this.counters.shift()) };
      if (this.protocol === 1) {
        const m = this.v1Messages[0];
        if (!m) return null;
        const bytes = m.frames[m.next++];
        if (m.next === m.frames.length) {
          this.v1Messages.shift();
          this.events.push({ type: "unconfirmed", id: m.message.id });
        }
        return { characteristic: "write", bytes };
      }
      return this.nextDataFrame(now);
    }

    nextDataFrame(now) {
      if (!this.current && this.queue.length) {
        const message = this.queue.shift();
        const stream = P.messageStream(message.bytes, message.kind, message.name || "");
        this.current = {
          message, stream, transfer: this.nextTransfer, headerSize: stream.length - message.bytes.length,
          sent: 0, acked: 0, progressAt: now, rto: RTO_FIRST, retransmitAt: now + RTO_FIRST, awaiting: false,
        };
        this.nextTransfer = (this.nextTransfer + 1) & 0xffff;
      }
      const c = this.current;
      if (!c || c.awaiting || c.sent >= c.stream.length) return null;
      const room = P.dataRoom(this.peer.mtu, "write");
      const limit = Math.min(this.peer.window, this.window, FLIGHT_FRAMES * room);
      if (c.sent - c.acked >= limit) return null;
      const end = Math.min(c.stream.length, c.sent + room, c.acked + limit);
      const frame = { type: "data", session: this.peer.session, transfer: c.transfer, offset: c.sent, bytes: c.stream.subarray(c.sent, end) };
      if (c.sent === c.acked) c.retransmitAt = now + c.rto;
      c.sent = end;
      return { characteristic: "session", bytes: P.encodeSessionFrame(frame) };
    }
  }

  const api = { CentralSession, SILENT };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.RelaySession = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
