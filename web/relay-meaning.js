// The one-line meaning of a relay value for the browser page's trace view: the words `--trace`
// prints (docs/cli.md), from the codec in relay-protocol.js. No I/O; the tests
// (web/test/protocol-test.js) check it against docs/protocol.md's golden vectors.
//
// A classic script loaded after relay-protocol.js: in a browser it defines `RelayMeaning`; under
// Node.js it is `require`d.
(function (root) {
  "use strict";

  const P = typeof module !== "undefined" && module.exports ? require("./relay-protocol.js") : root.RelayProtocol;
  const { COMPACT, COUNTER_LENGTH, REASON_TEXT, STATUS_TEXT, ProtocolError } = P;
  const { hex32, isCompact, kindName, parseCompact, parseCounter, parseFrame, parseSessionFrame, parseStreamHeader } = P;

  /** What `bytes` written or notified on `characteristic` (`session`, or `write`/`notify`) mean. */
  function describe(bytes, characteristic) {
    if (characteristic === "session") {
      if (bytes.length === COUNTER_LENGTH) return `counter ${parseCounter(bytes)}`;
      try {
        if (isCompact(bytes)) {
          const c = parseCompact(bytes);
          return `compact data offset ${c.residue} modulo ${COMPACT.modulus}, ${c.bytes.length} stream bytes`;
        }
        return describeSession(parseSessionFrame(bytes));
      } catch (e) {
        if (e instanceof ProtocolError) return `not a relay value: ${e.message}`;
        throw e;
      }
    }
    if (bytes.length === COUNTER_LENGTH) return `counter ${parseCounter(bytes)}`;
    try {
      const f = parseFrame(bytes);
      const flags = [f.first ? "FIRST" : null, f.last ? "LAST" : null].filter(Boolean).join("|") || "-";
      let line = `frame v1 ${flags} id ${f.id} seq ${f.sequence}`;
      if (f.first) line += `, ${kindName(f.kind)}, length ${f.length}, CRC-32C ${hex32(f.crc)}`;
      return `${line}, ${f.payload.length} payload bytes`;
    } catch (e) {
      if (e instanceof ProtocolError) return `not a relay value: ${e.message}`;
      throw e;
    }
  }

  function describeSession(f) {
    switch (f.type) {
      case "hello":
        return `hello v${f.version} token ${hex32(f.token)} address ${f.address} window ${f.window} next ${f.next}`;
      case "welcome":
        return (
          `welcome v${f.version} session ${f.session} central ${hex32(f.central)} peripheral ${hex32(f.peripheral)}` +
          ` window ${f.window} next ${f.next}` +
          (f.mtu != null ? ` mtu ${f.mtu}` : "")
        );
      case "data": {
        let line = `data session ${f.session} transfer ${f.transfer} offset ${f.offset}, ${f.bytes.length} stream bytes`;
        const header = f.offset === 0 ? parseStreamHeader(f.bytes) : null;
        if (header && kindName(header.kind) && header.flags === 0) {
          line += `; header ${kindName(header.kind)}, length ${header.length}, CRC-32C ${hex32(header.crc)}`;
          line += header.name.length === 0 ? ", no name" : `, name ${header.name.length} bytes`;
        }
        return line;
      }
      case "acknowledgement": {
        let line = `acknowledgement ${STATUS_TEXT[f.status]} session ${f.session} transfer ${f.transfer} received ${f.received}`;
        if (f.spans.length) line += " spans " + f.spans.map(([s, e]) => `${s}..<${e}`).join(" ");
        return line;
      }
      case "abort":
        return `abort session ${f.session} transfer ${f.transfer}: ${REASON_TEXT[f.reason]}`;
    }
  }

  const api = { describe };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.RelayMeaning = api;
})(typeof globalThis !== "undefined" ? globalThis : this);
