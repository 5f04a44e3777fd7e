// upstream: quickjs-ng 5d48f1d "Fix async generator lifecycle bug"
//   (issue #1355, PR #1360), first released in v0.13.0.
// bug: a `then` getter on Object.prototype re-enters the async generator
//   (return()/next()) while it is awaiting; the resume function then runs
//   on a generator that is no longer executing (an assertion in debug
//   builds, a use-after-free in release builds).
// expect: "ok"
function deferred() { let resolve; const promise = new Promise(f => { resolve = f }); return { promise, resolve } }
let it, a, b, c;
let getterHit = 0, inGetter = false;
Object.defineProperty(Object.prototype, "then", {
  configurable: true,
  get() {
    if (inGetter || !it) return undefined;
    inGetter = true;
    try {
      if (getterHit === 0) it.return(0);
      else if (getterHit === 1) { it.next(1); it.return(1) }
      getterHit++;
    } catch (_) {}
    inGetter = false;
    return undefined;
  },
});
async function* g() {
  try { await a.promise; yield 1; await b.promise; yield 2; await c.promise }
  finally { await c.promise }
}
await (async () => {
  a = deferred(); b = deferred(); c = deferred();
  it = g();
  it.next();
  a.resolve({});
  await Promise.resolve();
  await Promise.resolve();
  b.resolve({});
  c.resolve({});
  await Promise.resolve();
})();
delete Object.prototype.then;
for (let i = 0; i < 10; i++) await null;
return "ok";
