// The web tests' runner: `test(name, body)` records each check; `report(file, extra)` prints the
// failures and the tally, and exits 1 when one failed (make web-test).
"use strict";
const path = require("path");

const results = [];

function test(name, body) {
  try {
    body();
    results.push([name, null]);
  } catch (error) {
    results.push([name, error]);
  }
}

function report(file, extra = "") {
  const failed = results.filter(([, error]) => error);
  for (const [name, error] of failed) console.log(`FAIL ${name}: ${error.stack}`);
  const passed = results.length - failed.length;
  console.log(`web/test/${path.basename(file)}: ${passed} of ${results.length} passed${extra}`);
  process.exit(failed.length ? 1 : 0);
}

module.exports = { test, report };
