// Generates web_cases.json, the corpus of the web globals' cases
// (runtime/web_test.go): each case is the body of an async function,
// self-contained, that returns a string; "want" is what Node returns.
// Run: node runtime/testdata/web_gen.mjs > runtime/testdata/web_cases.json
const AsyncFunction = (async () => {}).constructor;

let seed = 0x5eed;
function rand() { // mulberry32: the corpus is the same at every generation
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rand() * n);
const pick = (a) => a[int(a.length)];

// Helpers every case has: hex of bytes, and the name of what a call throws.
const H = `const hex = (b) => Array.from(new Uint8Array(b.buffer ?? b, b.byteOffset ?? 0, b.byteLength), (x) => x.toString(16).padStart(2, "0")).join("");
const codes = (s) => Array.from(s, (c) => c.codePointAt(0).toString(16)).join(" ");
const thrown = (f) => { try { return "ok:" + String(f()); } catch (e) { return "throws " + (e && e.name); } };
`;

function units() { // a string of code units biased to the hard ones
  let s = "";
  const n = int(12);
  for (let i = 0; i < n; i++) {
    s += String.fromCharCode(pick([0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xfeff, 0xffff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xe9, 0x4e2d, int(0x10000)]));
  }
  return s;
}
function bytes() { // bytes biased to UTF-8's boundaries
  const n = int(10);
  const b = [];
  for (let i = 0; i < n; i++) {
    b.push(pick([0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0xbb, int(256)]));
  }
  if (rand() < 0.2) b.unshift(0xef, 0xbb, 0xbf);
  return b;
}

const cases = [];
const add = (name, body) => cases.push({ name, src: H + body });

for (let k = 0; k < 8; k++) {
  const ss = Array.from({ length: 25 }, units);
  add("TextEncoder.encode " + k, `const e = new TextEncoder();
return ${JSON.stringify(ss)}.map((s) => hex(e.encode(s))).join("|") + e.encoding;`);
  add("TextEncoder.encodeInto " + k, `const e = new TextEncoder();
return ${JSON.stringify(ss)}.map((s, i) => { const d = new Uint8Array(i % 9); const r = e.encodeInto(s, d); return r.read + "," + r.written + "," + hex(d); }).join("|");`);
}
for (let k = 0; k < 12; k++) {
  const bs = Array.from({ length: 25 }, bytes);
  add("TextDecoder.decode " + k, `return ${JSON.stringify(bs)}.map((b) => {
  const u = new Uint8Array(b);
  return [codes(new TextDecoder().decode(u)), codes(new TextDecoder("utf-8", { ignoreBOM: true }).decode(u.buffer)),
    thrown(() => codes(new TextDecoder("utf8", { fatal: true }).decode(new DataView(u.buffer))))].join(";");
}).join("|");`);
  const splits = bs.map((b) => Array.from({ length: 3 }, () => int(b.length + 1)).sort((x, y) => x - y));
  add("TextDecoder stream " + k, `const splits = ${JSON.stringify(splits)};
return ${JSON.stringify(bs)}.map((b, i) => {
  const u = new Uint8Array(b), [x, y, z] = splits[i];
  const d = new TextDecoder("utf-8", { ignoreBOM: i % 2 === 0 });
  const s = d.decode(u.subarray(0, x), { stream: true }) + d.decode(u.subarray(x, y), { stream: true }) + d.decode(u.subarray(y, z), { stream: true }) + d.decode(u.subarray(z));
  const f = new TextDecoder("utf-8", { fatal: true });
  const t = thrown(() => codes(f.decode(u.subarray(0, x), { stream: true }) + f.decode(u.subarray(x))));
  return codes(s) + ";" + t + ";" + codes(d.decode(u));
}).join("|");`);
}
add("TextDecoder labels", `return ["utf-8", "UTF-8", " utf8\\n", "unicode-1-1-utf-8", "x-unicode20utf8", "unicode11utf8", "utf-32", "latin1x", "", "utf-8 x", "\\tUtF-8\\f"].map((l) => {
  try { const d = new TextDecoder(l); return d.encoding + d.fatal + d.ignoreBOM; } catch (e) { return e.name; }
}).join("|") + "|" + Object.prototype.toString.call(new TextDecoder()) + Object.prototype.toString.call(new TextEncoder());`);

const lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 111, 112, 113, 119, 120, 127, 128, 129, 200, 1000];
for (let k = 0; k < 4; k++) {
  const ms = lengths.map((n) => Array.from({ length: n }, () => int(256)));
  add("crypto.subtle.digest " + k, `const out = [];
for (const m of ${JSON.stringify(ms)}) for (const a of ["SHA-1", "sha-256", { name: "SHA-384" }, "SHA-512"]) {
  const d = await crypto.subtle.digest(a, new Uint8Array(m));
  out.push(Object.prototype.toString.call(d) + hex(new Uint8Array(d)));
}
return out.join("|");`);
}
add("crypto.subtle.digest errors", `const out = [];
for (const [a, d] of [["MD5", new Uint8Array(1)], ["SHA-256", "text"], ["SHA-256", [1, 2]], ["SHA-256", new ArrayBuffer(3)], ["SHA-256", new DataView(new ArrayBuffer(2))], [{}, new Uint8Array(1)]]) {
  try { const r = await crypto.subtle.digest(a, d); out.push(r.byteLength); } catch (e) { out.push(e.name); }
}
let sync = "none"; try { crypto.subtle.digest("MD5", new Uint8Array(0)).catch(() => {}); } catch (e) { sync = "threw"; }
return out.join("|") + sync;`);
add("crypto.getRandomValues", `const out = [];
for (const a of [new Uint8Array(16), new Int8Array(3), new Uint16Array(5), new Int32Array(2), new Uint32Array(65536 / 4), new BigUint64Array(2), new Uint8ClampedArray(4), new Uint8Array(0),
  new Float32Array(2), new Float64Array(1), new DataView(new ArrayBuffer(4)), new Uint8Array(65537), [1, 2], new ArrayBuffer(4)]) {
  try { const r = crypto.getRandomValues(a); out.push((r === a) + ":" + a.length); } catch (e) { out.push(e.name); }
}
const big = crypto.getRandomValues(new Uint8Array(4096));
out.push(new Set(big).size > 200);
const re = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ids = Array.from({ length: 50 }, () => crypto.randomUUID());
out.push(ids.every((x) => re.test(x)), new Set(ids).size, typeof crypto.subtle, Object.prototype.toString.call(crypto));
return out.join("|");`);

// structuredClone: a value is described with its types, own keys and
// shared references, so that the clone's shape is compared.
const D = `function describe(v, seen = new Map()) {
  if (typeof v !== "object" || v === null) return typeof v + ":" + (typeof v === "bigint" ? v + "n" : Object.is(v, -0) ? "-0" : String(v));
  if (seen.has(v)) return "@" + seen.get(v);
  seen.set(v, seen.size);
  const tag = Object.prototype.toString.call(v);
  let s = tag + (Object.getPrototypeOf(v) === null ? "null" : Object.getPrototypeOf(v).constructor.name);
  if (v instanceof Date) s += v.getTime();
  else if (v instanceof RegExp) s += v.source + "/" + v.flags + v.lastIndex;
  else if (v instanceof ArrayBuffer) s += hex(new Uint8Array(v));
  else if (ArrayBuffer.isView(v)) s += v.byteOffset + "," + v.byteLength + "," + describe(v.buffer, seen);
  else if (v instanceof Map) s += "{" + [...v].map(([k, x]) => describe(k, seen) + "=>" + describe(x, seen)).join(",") + "}";
  else if (v instanceof Set) s += "{" + [...v].map((x) => describe(x, seen)).join(",") + "}";
  else if (v instanceof Error) s += v.name + ":" + v.message + ("cause" in v ? " cause " + describe(v.cause, seen) : "");
  else if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) s += String(v.valueOf());
  return s + "[" + Object.keys(v).map((k) => k + "=" + describe(v[k], seen)).join(",") + "]";
}
`;
const leaves = ["0", "-0", "NaN", "1.5", "'s'", "''", "true", "null", "undefined", "10n", "new Date(86400000)", "new Date(NaN)", "/a+b/gi", "/(?:)/y",
  "new Uint8Array([1, 2, 3])", "new Int16Array([-1, 300])", "new Float64Array([0.5])", "new DataView(new ArrayBuffer(4), 1, 2)", "new ArrayBuffer(3)",
  "new Number(3)", "new String('x')", "new Boolean(false)", "Object(5n)", "new RangeError('r')", "new TypeError('t', { cause: 1 })", "new Error('e')",
  "[1, , 3]", "{ a: 1 }", "new Map([[1, 'a'], ['k', {}]])", "new Set([1, 'x', null])", "Object.assign(Object.create({ inherited: 1 }), { own: 2 })",
  "new (class P { constructor() { this.f = 1; } })()", "Object.defineProperty({}, 'hidden', { value: 1 })", "{ [Symbol('s')]: 1, k: 2 }"];
function value(depth) {
  if (depth === 0 || rand() < 0.3) return pick(leaves);
  const n = 1 + int(3);
  const kids = Array.from({ length: n }, () => value(depth - 1));
  switch (int(4)) {
    case 0: return "[" + kids.join(", ") + "]";
    case 1: return "{ " + kids.map((k, i) => "k" + i + ": " + k).join(", ") + " }";
    case 2: return "new Map([" + kids.map((k, i) => "[" + (i % 2 ? k : "'m" + i + "'") + ", " + k + "]").join(", ") + "])";
    default: return "new Set([" + kids.join(", ") + "])";
  }
}
for (let k = 0; k < 10; k++) {
  const vs = Array.from({ length: 12 }, () => value(3));
  add("structuredClone " + k, D + `const vs = [${vs.join(",\n")}];
return vs.map((v) => { const c = structuredClone(v); return (typeof v === "object" && v !== null ? c !== v : true) + describe(c); }).join("|");`);
}
add("structuredClone cycles and sharing", D + `const a = { name: "a" }; a.self = a; const shared = [1];
const m = new Map(); m.set(m, m); const s = new Set(); s.add(s);
const buf = new ArrayBuffer(8); const v1 = new Uint8Array(buf, 2, 3), v2 = new DataView(buf);
const e = new Error("x", { cause: shared });
const vs = [a, { p: shared, q: shared }, m, s, [v1, v2, buf], e, [a, a]];
return vs.map((v) => describe(structuredClone(v))).join("|");`);
add("structuredClone errors", `const out = [];
for (const f of [() => structuredClone(() => 1), () => structuredClone(Symbol("s")), () => structuredClone({ f() {} }), () => structuredClone([Symbol.iterator]),
  () => structuredClone(new WeakMap()), () => structuredClone(new WeakSet()), () => structuredClone(Promise.resolve()), () => structuredClone(new Map([[1, Math.max]]))]) {
  try { f(); out.push("ok"); } catch (e) { out.push(e.name + (e instanceof DOMException) + e.code); }
}
try { structuredClone(); } catch (e) { out.push(e.name); }
const b = new ArrayBuffer(4); new Uint8Array(b)[0] = 7;
const c = structuredClone({ b, v: new Uint8Array(b) }, { transfer: [b] });
out.push(b.byteLength, c.b.byteLength, c.v[0], c.v.buffer === c.b);
for (const t of [[1], [null]]) { try { structuredClone(1, { transfer: t }); out.push("ok"); } catch (e) { out.push(e.name); } }
const b2 = new ArrayBuffer(2); try { structuredClone(1, { transfer: [b2, b2] }); } catch (e) { out.push(e.name); }
const b3 = new ArrayBuffer(2); try { structuredClone({ b3, f() {} }, { transfer: [b3] }); } catch (e) { out.push(e.name, b3.byteLength); }
return out.join("|");`);

// Events and abort signals: each case logs what listeners see.
add("EventTarget", `const log = [];
const t = new EventTarget();
const f = (e) => log.push("f:" + e.type + e.eventPhase + (e.target === t) + (e.currentTarget === t));
t.addEventListener("x", f); t.addEventListener("x", f);
t.addEventListener("x", { handleEvent(e) { log.push("obj:" + (this !== t)); } });
t.addEventListener("x", () => log.push("once"), { once: true });
t.addEventListener("x", (e) => { e.preventDefault(); log.push("prevent:" + e.defaultPrevented); });
t.addEventListener("x", null);
const e = new Event("x", { cancelable: true });
log.push(t.dispatchEvent(e), e.defaultPrevented, e.eventPhase, e.currentTarget, e.target === t);
log.push(t.dispatchEvent(new Event("x")));
t.removeEventListener("x", f); log.push(t.dispatchEvent(new Event("x")));
const y = new Event("y", { cancelable: true });
t.addEventListener("y", (e) => { e.stopImmediatePropagation(); log.push("y1"); e.preventDefault(); });
t.addEventListener("y", () => log.push("y2"));
log.push(t.dispatchEvent(y), y.defaultPrevented);
const ac = new AbortController();
t.addEventListener("w", () => log.push("w"), { signal: ac.signal });
t.dispatchEvent(new Event("w")); ac.abort(); t.dispatchEvent(new Event("w"));
t.addEventListener("w", () => log.push("w2"), { signal: AbortSignal.abort() }); t.dispatchEvent(new Event("w"));
for (const g of [() => t.dispatchEvent({ type: "x" }), () => new Event(), () => t.addEventListener("x"), () => t.addEventListener("x", () => {}, { signal: {} })]) {
  try { g(); log.push("ok"); } catch (err) { log.push(err.name); }
}
const ev = new Event("q", { bubbles: true, composed: true });
log.push(ev.type, ev.bubbles, ev.cancelable, ev.composed, ev.isTrusted, ev.eventPhase, ev.target, typeof ev.timeStamp, Event.AT_TARGET, String(ev), String(t));
return log.join("|");`);
add("AbortSignal", `const log = [];
const c = new AbortController(), s = c.signal;
log.push(s.aborted, s.reason, String(s), String(c));
s.onabort = (e) => log.push("onabort:" + e.type + (e.target === s));
s.addEventListener("abort", () => log.push("listener:" + s.aborted + s.reason.name + s.reason.message + (s.reason instanceof DOMException)));
log.push(typeof s.onabort);
c.abort(); c.abort("again");
log.push(s.aborted, s.reason.name);
try { s.throwIfAborted(); } catch (e) { log.push("threw " + e.name); }
const c2 = new AbortController(); c2.abort(42); log.push(c2.signal.reason);
try { c2.signal.throwIfAborted(); } catch (e) { log.push("threw " + e); }
new AbortController().signal.throwIfAborted(); log.push("not aborted");
const a = AbortSignal.abort(), b = AbortSignal.abort("why");
log.push(a.aborted, a.reason.name, b.reason);
const p = new AbortController(), q = new AbortController();
const any = AbortSignal.any([p.signal, q.signal]);
any.addEventListener("abort", () => log.push("any:" + any.reason));
log.push(any.aborted); q.abort("q"); p.abort("p"); log.push(any.aborted, any.reason);
log.push(AbortSignal.any([]).aborted, AbortSignal.any([AbortSignal.abort("pre"), s]).reason);
const nested = new AbortController(), any2 = AbortSignal.any([AbortSignal.any([nested.signal])]);
nested.abort("deep"); log.push(any2.reason);
for (const g of [() => new AbortSignal(), () => AbortSignal.any([{}]), () => AbortSignal.timeout()]) {
  try { g(); log.push("ok"); } catch (e) { log.push(e.name); }
}
const keep = setTimeout(() => {}, 60000); // Node's timeout signals do not keep it running
const t = AbortSignal.timeout(1);
await new Promise((r) => t.addEventListener("abort", r));
log.push(t.aborted, t.reason.name, t.reason.message, t.reason instanceof DOMException);
const ts = AbortSignal.any([AbortSignal.timeout(1)]);
await new Promise((r) => { ts.onabort = r; });
log.push(ts.reason.name);
clearTimeout(keep);
return log.join("|");`);
add("setInterval", `const log = [];
let n = 0;
await new Promise((r) => { const id = setInterval((a, b) => { log.push(a + b + n); if (++n === 4) { clearInterval(id); r(); } }, 1, "a", "b"); });
const id2 = setInterval(() => log.push("never"), 1); clearInterval(id2);
let m = 0; const id3 = setInterval(() => { m++; clearTimeout(id3); }, 1);
await new Promise((r) => setTimeout(r, 20));
log.push(m, typeof clearInterval, clearInterval(123456), clearInterval());
try { setInterval("code", 1); } catch (e) { log.push(e.name); }
return log.join("|");`);
// (Their property descriptors are coderun's own, as Web IDL's: see web_test.go.)
add("globals", `return ["TextEncoder", "TextDecoder", "structuredClone", "crypto", "Event", "EventTarget", "AbortController", "AbortSignal", "setInterval", "clearInterval"].map((k) => {
  const v = globalThis[k];
  return k + ":" + typeof v + ":" + (typeof v === "function" ? v.name : "");
}).join("|");`);
add("globals replaced", `TextEncoder = 5; globalThis.AbortSignal = "mine";
const d = Object.getOwnPropertyDescriptor(globalThis, "TextDecoder");
delete globalThis.Event;
return [TextEncoder, AbortSignal, typeof new TextDecoder().decode, typeof Event, typeof EventTarget, typeof AbortController].join("|");`);

for (const c of cases) {
  c.want = await new AsyncFunction(c.src)();
  if (typeof c.want !== "string") throw new Error(c.name + ": not a string");
}
process.stdout.write(JSON.stringify(cases, null, 1) + "\n");
