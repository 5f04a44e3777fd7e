// upstream: quickjs-ng 8f62384 "Fix FinalizationRegistry reference counting
//   bug" (issue #1352, PR #1358), first released in v0.13.0.
// bug: a registry reachable only through a WeakMap keyed by its own target
//   (a symbol) is freed while its entry still points back at it; the
//   collection then reads the freed registry.
// expect: "ok"
let key = Symbol("fortytwo");
let wm = new WeakMap();
let fr = new FinalizationRegistry(() => {});
fr.register(key, 42);
wm.set(key, fr);
fr = null;
key = null;
wm = null;
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
await new Promise(r => setTimeout(r, 0));
return "ok";
