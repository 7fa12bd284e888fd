// The page's driver: Web Bluetooth in, the session (relay-session.js) decides, the page shows. It
// performs what the session asks (one GATT operation at a time, as Web Bluetooth needs) and feeds it
// what happened with the time. `window.relayPage` is the same surface for people and for the test
// bed's DevTools driver (scenarios/vm/scenario-browser.py).
(function () {
  "use strict";
  const P = window.RelayProtocol;
  const M = window.RelayMeaning;
  const S = window.RelaySession;
  const $ = (id) => document.getElementById(id);
  const now = () => performance.now() / 1000;
  const TICK_MS = 25;
  const RECONNECT_MS = 2000;
  // A connection attempt that has not completed in this time is given up and tried again. Seen in
  // the test bed with Chromium 156: when the link drops while a write is in flight, that write's
  // promise may never settle, and then no later connect() reaches bluetoothd (docs/cli.md).
  const CONNECT_MS = 15000;

  function within(ms, promise, why) {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(why);
        error.name = "NetworkError";
        reject(error);
      }, ms);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  const page = {
    state: "idle", // idle, choosing, connecting, ready, away, closed
    protocol: null,
    mtu: null,
    counterIn: null,
    counterOut: 0,
    received: [], // {kind, name, text|null, size, sha: null, confirmed}
    sent: {}, // id -> {state, done, total}
    errors: [],
    trace: [],
    log: [],
    times: [], // when each log line was said (s, the page's clock)
  };
  window.relayPage = page;

  let device = null;
  let chars = {};
  let session = null;
  let writing = false;
  let retry = null; // a value whose write failed while the link stood: written first next time
  let linking = false;
  let reconnectTimer = null;
  let nextID = 1;
  let wanted = false; // the user wants the link (reconnect when it drops)

  /** An error line kept for the test bed's driver (the last 200). */
  function note(text) {
    page.errors.push(text);
    if (page.errors.length > 200) page.errors.splice(0, 100);
  }

  function say(text) {
    $("status").textContent = text;
    page.log.push(text);
    page.times.push(Math.round(now() * 1000) / 1000);
    if (page.log.length > 500) {
      page.log.splice(0, 250);
      page.times.splice(0, 250);
    }
  }

  // ---- What this browser can do ----

  function unsupported() {
    if (!window.isSecureContext) {
      return "This page needs a secure context: open it from a file, from https://, or from http://localhost (a page over plain http from another address has no Bluetooth).";
    }
    if (!navigator.bluetooth) {
      return "This browser has no Web Bluetooth. Use Chrome or Edge on Android, Windows, macOS or ChromeOS; on Linux start Chromium with --enable-features=WebBluetooth. Firefox, Safari and every browser on iOS have none.";
    }
    return null;
  }

  // ---- Connecting ----

  async function connect() {
    if (page.state === "choosing" || (device && wanted)) return; // one device at a time
    page.state = "choosing";
    say("Choose the relay-peripheral (its name is usually sample)...");
    let chosen;
    try {
      chosen = await navigator.bluetooth.requestDevice({ filters: [{ services: [P.UUID.service] }] });
    } catch (e) {
      page.state = "idle";
      say(e.name === "NotFoundError" ? "No device chosen." : `Could not choose a device: ${e.message}`);
      return;
    }
    // The same device chosen again keeps its session (what is under way resumes); another starts one.
    if (!session || !device || chosen.id !== device.id) session = new S.CentralSession({});
    device = chosen;
    device.addEventListener("gattserverdisconnected", linkLost); // the same function: added once
    $("device").textContent = device.name || device.id;
    wanted = true;
    $("connect").disabled = true;
    await link();
  }

  /** Connects again after RECONNECT_MS, once, unless a connection is under way or not wanted. */
  function scheduleLink() {
    clearTimeout(reconnectTimer);
    reconnectTimer = setTimeout(() => wanted && device && !linking && !device.gatt.connected && link(), RECONNECT_MS);
  }

  async function link() {
    if (linking) return;
    linking = true;
    page.state = "connecting";
    say(`Connecting to ${device.name || "the device"}...`);
    try {
      await within(CONNECT_MS, setUp(), "the device did not answer the connection");
      session.linkUp(!!chars.session, now());
      page.state = "linked";
      say(`Connected to ${device.name || "the device"}; saying hello...`);
      enable(true);
    } catch (e) {
      const lines = {
        NotFoundError: "This device is not a relay-peripheral (it has no relay service, or not all of it).",
        NetworkError: "The device did not answer (out of range, or it stopped).",
        SecurityError: "The browser refused the relay service.",
      };
      note(e.message);
      const final = e.name === "NotFoundError" || /--secure/.test(e.message);
      if (final) wanted = false; // linkLost, if the disconnection below fires it, keeps this line
      say(lines[e.name] ? `${lines[e.name]} (${e.message})` : `Could not connect: ${e.message}`);
      page.state = final ? "idle" : "away";
      if (device.gatt.connected) device.gatt.disconnect();
      if (final) $("connect").disabled = false;
      else scheduleLink();
    } finally {
      linking = false;
    }
  }

  /** The GATT part of a connection: the service, its characteristics, the subscription. */
  async function setUp() {
    const server = await device.gatt.connect();
    const service = await server.getPrimaryService(P.UUID.service);
    chars = {};
    chars.write = await service.getCharacteristic(P.UUID.write);
    chars.notify = await service.getCharacteristic(P.UUID.notify);
    chars.session = await optional(service, P.UUID.session);
    const pairing = await optional(service, P.UUID.pairing);
    if (pairing) {
      try {
        await pairing.readValue();
      } catch (e) {
        throw new Error(`this relay-peripheral runs with --secure and the link is not paired: pair the device in the system's Bluetooth settings (or accept the pairing request), then connect again (${e.message})`);
      }
    }
    await listen(chars.session || chars.notify);
  }

  /** Hears CHARACTERISTIC's notifications (the handler is one function: added once per object). */
  async function listen(characteristic) {
    characteristic.addEventListener("characteristicvaluechanged", valueChanged);
    await characteristic.startNotifications();
  }

  function valueChanged(event) {
    if (!session) return;
    const view = event.target.value;
    const bytes = new Uint8Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
    const on = event.target.uuid === P.UUID.session ? "session" : "notify";
    traced("in", on, bytes);
    session.received(on, bytes, now());
    handleEvents();
  }

  async function optional(service, uuid) {
    try {
      return await service.getCharacteristic(uuid);
    } catch (e) {
      return null;
    }
  }

  function linkLost() {
    if (session) session.linkDown(now());
    writing = false;
    retry = null;
    enable(false);
    // Lost while the GATT setup runs: link() reports the failure and decides what follows.
    if (linking) return;
    if (!wanted) {
      if (page.state !== "idle") {
        page.state = "closed";
        say("Disconnected.");
      }
      $("connect").disabled = false;
      return;
    }
    page.state = "away";
    $("disconnect").disabled = false; // to give up waiting
    say("The link dropped; connecting again (messages under way resume)...");
    scheduleLink();
  }

  function disconnect() {
    wanted = false;
    clearTimeout(reconnectTimer);
    if (device && device.gatt.connected) device.gatt.disconnect();
    else linkLost();
  }

  function enable(on) {
    for (const id of ["disconnect", "counter-send", "message-text", "message-send", "file-input"]) $(id).disabled = !on;
    if (on) $("disconnect").disabled = false;
  }

  // ---- Writing: one value at a time ----

  async function pump() {
    if (writing || !session || !device || !device.gatt.connected) return;
    writing = true;
    let v = null;
    try {
      for (v = retry || session.nextValue(now()); v; v = session.nextValue(now())) {
        retry = null;
        const characteristic = chars[v.characteristic];
        traced("out", v.characteristic, v.bytes);
        await characteristic.writeValueWithoutResponse(v.bytes);
        v = null;
        handleEvents();
      }
    } catch (e) {
      note(e.message);
      // The value goes again while the link stands (a write refused for a moment); a link that
      // fell takes it with it, and the session's resume repairs what it carried.
      if (device.gatt.connected && v) retry = v;
      if (device.gatt.connected) say(`A write failed: ${e.message}`);
    } finally {
      writing = false;
    }
  }

  setInterval(() => {
    if (!session) return;
    session.tick(now());
    handleEvents();
    pump();
  }, TICK_MS);

  // ---- What the session says ----

  function handleEvents() {
    for (const e of session.takeEvents()) {
      switch (e.type) {
        case "ready":
          if (e.listen === "notify" && chars.session) listen(chars.notify).catch((error) => note(error.message));
          page.state = "ready";
          page.protocol = e.protocol;
          page.mtu = e.mtu;
          $("protocol").textContent = e.protocol === 2 ? "2 (delivery confirmed)" : "1 (messages unconfirmed)";
          $("mtu").textContent = `${P.sendLength(e.mtu, "write")} bytes` + (e.mtu ? ` (link MTU ${e.mtu})` : " (MTU not known: 20)");
          say(`Ready: protocol ${e.protocol}.`);
          break;
        case "counter":
          page.counterIn = e.value;
          $("counter-in").textContent = String(e.value);
          break;
        case "message":
          received(e);
          break;
        case "progress":
          if (e.direction === "out" && page.sent[e.id]) {
            page.sent[e.id].done = e.done;
            showSent(e.id);
          }
          break;
        case "delivered":
        case "unconfirmed":
          if (page.sent[e.id]) {
            page.sent[e.id].state = e.type;
            page.sent[e.id].done = page.sent[e.id].total;
            showSent(e.id);
          }
          break;
        case "failed":
          if (page.sent[e.id]) {
            page.sent[e.id].state = "failed";
            page.sent[e.id].why = e.why;
            showSent(e.id);
          }
          say(`A message failed: ${e.why}.`);
          break;
        case "resumed":
          say("Back: resuming.");
          break;
        case "resumed-at":
          if (page.sent[e.id]) page.sent[e.id].resumedAt = e.offset;
          break;
        case "error":
          note(e.text);
          say(`The peripheral sent something that is not relay's: ${e.text}`);
          break;
        case "refused":
          note(`refused transfer ${e.transfer}: ${e.status}`);
          say(`A message from the peripheral was refused: ${e.status}.`);
          break;
        case "dropped":
          say(`A message from the peripheral was dropped: ${e.why}.`);
          break;
        case "silent":
          // The browser still calls the link up, but its notifications stopped: link again (the
          // subscription is made anew, the session resumes).
          note(`nothing heard for ${e.seconds} s with data unanswered`);
          say(`Nothing heard from the peripheral for ${e.seconds} s; connecting again...`);
          if (device && device.gatt.connected) device.gatt.disconnect();
          break;
      }
    }
  }

  // ---- Messages shown ----

  function sendMessage(kind, bytes, name, label) {
    const id = nextID++;
    page.sent[id] = { state: "sending", done: 0, total: bytes.length, name, label };
    const item = document.createElement("li");
    item.id = `sent-${id}`;
    $("messages").prepend(item);
    showSent(id);
    session.sendMessage({ id, kind, bytes, name });
    pump();
    return id;
  }

  function showSent(id) {
    const m = page.sent[id];
    const item = $(`sent-${id}`);
    if (!item) return;
    item.textContent = "";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = "you: ";
    const what = document.createElement("span");
    what.append(folded(m.label));
    const state = document.createElement("span");
    state.className = `state ${m.state}`;
    const text = {
      sending: `sending ${m.done} of ${m.total} bytes`,
      delivered: "delivered",
      unconfirmed: "sent (unconfirmed: protocol 1)",
      failed: `failed: ${m.why}`,
    };
    state.textContent = text[m.state];
    item.append(who, what, state);
    if (m.state === "sending") {
      const bar = document.createElement("progress");
      bar.max = m.total || 1;
      bar.value = m.done;
      item.append(bar);
    }
  }

  // A text longer than FOLD characters shows its beginning, the rest behind a disclosure (a 10 KiB
  // message would fill a phone's screen). Text from the air goes in as text nodes only.
  const FOLD = 400;
  function folded(text) {
    if (text.length <= FOLD) return document.createTextNode(text);
    const box = document.createElement("details");
    const summary = document.createElement("summary");
    const beginning = document.createElement("span");
    beginning.className = "beginning";
    beginning.textContent = `${text.slice(0, FOLD)}... `;
    summary.append(beginning, `(${text.length} characters: show all)`);
    const all = document.createElement("div");
    all.className = "unfolded";
    all.textContent = text;
    box.append(summary, all);
    return box;
  }

  async function sha256(bytes) {
    if (!crypto.subtle) return null;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function received(e) {
    const entry = {
      kind: P.kindName(e.kind),
      name: e.name,
      size: e.bytes.length,
      text: e.kind === P.KIND.text && !e.name ? new TextDecoder().decode(e.bytes) : null,
      confirmed: e.confirmed,
      sha: null,
    };
    page.received.push(entry);
    if (page.received.length > 200) page.received.splice(0, 100);
    sha256(e.bytes).then((sha) => (entry.sha = sha));
    const item = document.createElement("li");
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = "peripheral: ";
    item.append(who);
    if (entry.text != null) {
      item.append(folded(entry.text));
    } else {
      // A name from the air is shown as text and offered as the download's name only after the
      // browser's own sanitising (the download attribute); never put into the page as markup.
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([e.bytes]));
      link.download = safeName(e.name) || "relay-message.bin";
      link.textContent = `${link.download} (${e.bytes.length} bytes) - save`;
      item.append(link);
    }
    $("messages").prepend(item);
    // The list keeps the last 100 messages; older downloads are let go.
    while ($("messages").children.length > 100) {
      const last = $("messages").lastElementChild;
      const link = last.querySelector("a");
      if (link) URL.revokeObjectURL(link.href);
      last.remove();
    }
  }

  function safeName(name) {
    // Control characters, path separators, characters Windows refuses, and the bidirectional
    // controls that can make `gpj.exe` read as `exe.jpg`.
    return (name || "")
      .replace(/[\u0000-\u001f\u007f/\\:*?"<>|\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "_")
      .replace(/^\.+/, "")
      .slice(0, 120);
  }

  // ---- Trace ----

  function traced(direction, characteristic, bytes) {
    const line = `${direction === "out" ? "->" : "<-"} ${characteristic} ${bytes.length} bytes: ${M.describe(bytes, characteristic === "session" ? "session" : "write")}`;
    page.trace.push(line);
    if (page.trace.length > 2000) page.trace.splice(0, 1000);
    if (!$("trace-on").checked) return;
    const item = document.createElement("li");
    item.textContent = `${line}  [${P.hex(bytes.subarray(0, 32))}${bytes.length > 32 ? " ..." : ""}]`;
    $("trace").append(item);
    while ($("trace").children.length > 300) $("trace").firstElementChild.remove();
  }

  // ---- The controls ----

  page.connect = connect;
  page.disconnect = disconnect;
  page.sendCounter = () => {
    page.counterOut = (page.counterOut + 1) >>> 0;
    $("counter-out").textContent = String((page.counterOut + 1) >>> 0);
    session.sendCounter(page.counterOut);
    pump();
    return page.counterOut;
  };
  page.sendText = (text) => sendMessage(P.KIND.text, new TextEncoder().encode(text), "", text);
  page.sendBytes = (name, bytes) => sendMessage(P.KIND.binary, bytes, name, `${name} (${bytes.length} bytes)`);

  const problem = unsupported();
  if (problem) {
    $("unsupported").hidden = false;
    $("unsupported").textContent = problem;
    $("connect").disabled = true;
    page.state = "unsupported";
    say("Web Bluetooth is not available here.");
  }
  $("connect").addEventListener("click", connect);
  $("disconnect").addEventListener("click", disconnect);
  $("counter-send").addEventListener("click", page.sendCounter);
  $("counter-out").textContent = "1";
  $("message-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message-text").value;
    if (!text) return;
    page.sendText(text);
    $("message-text").value = "";
  });
  $("file-input").addEventListener("change", async () => {
    const file = $("file-input").files[0];
    if (!file) return;
    page.sendBytes(file.name, new Uint8Array(await file.arrayBuffer()));
    $("file-input").value = "";
  });
  $("trace-on").addEventListener("change", () => ($("trace").hidden = !$("trace-on").checked));
})();
