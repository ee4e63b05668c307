// The JavaScript side of aw eval: one long-lived node whose global scope
// (var, let, const, functions) survives between cells, run in a vm
// context. It speaks JSON lines with the broker over its own stdin and
// stdout, synchronously: tool() blocks the cell until its answer comes.
"use strict";
const fs = require("fs");
const vm = require("vm");
const util = require("util");

let pending = "";
function readLine() {
  const buf = Buffer.alloc(65536);
  for (;;) {
    const nl = pending.indexOf("\n");
    if (nl >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      return line;
    }
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") continue;
      throw e;
    }
    if (n === 0) process.exit(0);
    pending += buf.toString("utf8", 0, n);
  }
}

function send(frame) {
  const line = JSON.stringify(frame) + "\n";
  let off = 0;
  const b = Buffer.from(line);
  while (off < b.length) {
    try {
      off += fs.writeSync(1, b, off);
    } catch (e) {
      if (e.code !== "EAGAIN") throw e;
    }
  }
}

class ToolError extends Error {
  constructor(code, message, envelope) {
    super(code + ": " + message);
    this.name = "ToolError";
    this.code = code;
    this.envelope = envelope;
  }
}

let nextTool = 0;
const results = new Map();
function tool(name, args) {
  const id = ++nextTool;
  send({ type: "tool", id, name, args: args || {} });
  while (!results.has(id)) {
    const frame = JSON.parse(readLine());
    if (frame.type === "tool_result") results.set(frame.id, frame);
  }
  const env = results.get(id).envelope || {};
  results.delete(id);
  if (!env.ok) {
    const err = env.error || {};
    throw new ToolError(err.code || "INTERNAL", err.message || "the call failed", env);
  }
  return env.data;
}

const show = (v) => (typeof v === "string" ? v : util.inspect(v, { depth: 4, breakLength: 100 }));
const stream = (name) => (...args) => send({ type: "stream", name, text: args.map(show).join(" ") + "\n" });
const sandboxConsole = { log: stream("stdout"), info: stream("stdout"), debug: stream("stdout"), warn: stream("stderr"), error: stream("stderr") };
const context = vm.createContext({
  console: sandboxConsole,
  tool,
  ToolError,
  display: (...vs) => vs.forEach((v) => send({ type: "display", mime: "text/plain", data: util.inspect(v, { depth: 4 }) })),
  require,
  process,
  Buffer,
  setTimeout,
  setInterval,
  clearTimeout,
  clearInterval,
});

function cleanStack(e) {
  if (!e || typeof e !== "object" || !e.stack) return String(e);
  return e.stack
    .split("\n")
    .filter((l) => !/^\s+at /.test(l) || l.includes("<cell>"))
    .join("\n");
}

send({ type: "ready", version: process.version.replace(/^v/, "") });
for (;;) {
  const frame = JSON.parse(readLine());
  if (frame.type !== "run") continue;
  const done = { type: "done", id: frame.id };
  try {
    const value = new vm.Script(frame.code, { filename: "<cell>" }).runInContext(context, { breakOnSigint: true });
    if (value !== undefined) done.result = { mime: "text/plain", data: util.inspect(value, { depth: 4 }) };
    done.ok = true;
  } catch (e) {
    done.ok = false;
    done.error = { ename: (e && e.name) || "Error", evalue: (e && e.message) || String(e), traceback: cleanStack(e) };
  }
  send(done);
}
