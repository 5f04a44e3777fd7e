// upstream: quickjs-ng 78494db "Fix heap use-after-free in
//   FinalizationRegistry" (issue #1318), first released in v0.13.0.
// bug: a FinalizationRegistry that is part of a reference cycle with its
//   target (or its callback) is collected with the cycle, and the cleanup
//   job is queued with the freed registry's callback and held value.
// expect: "ok"
{
  let target = {};
  let fr = new FinalizationRegistry(function () {});
  fr.register(target, fr);
  fr.ref = target; target.ref = fr;
  target = null; fr = null;
}
{
  let target = {};
  let cb = function () {};
  let fr = new FinalizationRegistry(cb);
  fr.register(target, 42);
  fr.ref = target; target.ref = fr; target.cb = cb;
  target = null; fr = null; cb = null;
}
{
  class Registry {
    #fr = new FinalizationRegistry(v => {});
    set(key) { const ref = new WeakRef(key); this.#fr.register(key, {}, ref) }
  }
  function Observer() { this.targets = new Registry }
  Observer.prototype.observe = function (target) {
    this.targets.set(target);
    target.subset = new Set();
    target.subset.add(this);
  };
  let sample = {};
  new Observer().observe(sample);
  sample = null;
}
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
await new Promise(r => setTimeout(r, 0));
const junk2 = []; for (let i = 0; i < 20000; i++) junk2.push({ i });
await new Promise(r => setTimeout(r, 0));
return "ok";
