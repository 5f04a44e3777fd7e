// upstream: quickjs-ng 7955cfd "Fix use-after-free of a suspended coroutine
//   reachable only via a closure", first released in v0.16.0
//   (tests/suspended-generator-closure-gc.js).
// bug: a suspended generator in a cycle with its own frame local, anchored
//   only by a closure over that local, is freed by the cycle collector;
//   resuming it touches freed memory.
// expect: ["object",true,"resumed"]
let leaked = null;
(function () {
  let g;
  function* gen() {
    const o = {};
    o.g = g;
    leaked = () => o;
    yield;
    o.state = "resumed";
  }
  g = gen();
  g.next();
  g = null;
})();
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
const o = leaked();
const kind = typeof o.g;
const r = o.g.next();
return [kind, r.done, o.state];
