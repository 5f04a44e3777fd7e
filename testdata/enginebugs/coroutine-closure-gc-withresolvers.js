// upstream: quickjs-ng 7955cfd "Fix use-after-free of a suspended coroutine
//   reachable only via a closure", first released in v0.16.0
//   (tests/suspended-coroutine-closure-gc.js).
// bug: as coroutine-closure-gc.js, with the upstream test's shape: the
//   escaped closure returns the frame local `d` (Promise.withResolvers).
// expect: ["function","done"]
let leaked = null;
let finished = "pending";
(function () {
  async function step() {
    const d = Promise.withResolvers();
    leaked = () => d;
    await d.promise;
    finished = "done";
  }
  step();
})();
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
const d = leaked();
const kind = typeof d.resolve;
d.resolve();
await null; await null; await null;
return [kind, finished];
