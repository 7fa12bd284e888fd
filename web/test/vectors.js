// Reads the `relay-vector` blocks of docs/protocol.md, as Tests/RelayProtocolTests/ProtocolDocument
// does for the Swift codec: `key: value` lines, and `key:` followed by indented hex lines.
"use strict";
const fs = require("fs");
const path = require("path");

const documentPath = path.join(__dirname, "..", "..", "docs", "protocol.md");

function vectors() {
  const text = fs.readFileSync(documentPath, "utf8");
  const blocks = [];
  const pattern = /```relay-vector\n([\s\S]*?)```/g;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    const fields = {};
    const hex = {};
    let open = null;
    for (const line of match[1].split("\n")) {
      if (line.startsWith("  ") && open) {
        for (const byte of line.trim().split(/\s+/)) hex[open].push(parseInt(byte, 16));
        continue;
      }
      const colon = line.indexOf(":");
      if (colon < 0) continue;
      const key = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      fields[key] = value;
      open = null;
      if (value === "") {
        open = key;
        hex[key] = [];
      }
    }
    const name = fields.vector;
    const hexFields = {};
    for (const key of Object.keys(hex)) if (hex[key].length) hexFields[key] = Uint8Array.from(hex[key]);
    blocks.push({ name, fields, hex: hexFields, integer: (key) => (fields[key] == null ? null : Number(fields[key])) });
  }
  return blocks;
}

/** The message bytes a vector describes: its `text`, or `content: byte i = i % 251` of `length`. */
function messageOf(vector) {
  if (vector.fields.content === "byte i = i % 251") {
    return Uint8Array.from({ length: vector.integer("length") }, (_, i) => i % 251);
  }
  if (vector.fields.text != null) return new TextEncoder().encode(vector.fields.text);
  return null;
}

module.exports = { vectors, messageOf, documentPath };
