// Evaluated first in every instance of the engine alone (engine.go), as a
// factory called with the host's function proxy and whether to define a
// global print (as test262 hosts do for the script mode). It returns a
// function of (op, x): op 0 describes a thrown value x as its
// constructor's name and its message, separated by "\x01"; op 1 watches
// the program's promise x and prints how it settled after settledMark.
// It captures the intrinsics it uses before any test code runs.
(function (wrapper, globalPrint) {
  "use strict";
  const MARK = "\x02test262:settled ";
  const S = String, stringify = JSON.stringify, apply = Reflect.apply;
  const then = Promise.prototype.then;

  // The host function (the glue's coderun_new_function), as
  // runtime/prelude.js uses it: its calls go straight to the host, which
  // skips the first four arguments.
  const host = wrapper;
  function out(s) { host(0, 0, 0, undefined, S(s)); }
  if (globalPrint) {
    Object.defineProperty(globalThis, "print", {
      value: function print(s) { out(s); }, writable: true, configurable: true,
    });
  }

  function describe(e) {
    let name = "?", msg = "";
    try {
      if (e !== null && (typeof e === "object" || typeof e === "function")) {
        const c = e.constructor;
        name = typeof c === "function" ? S(c.name) : "?";
        msg = S(e.message);
      } else {
        name = "(" + typeof e + ")";
        msg = S(e);
      }
    } catch (_) {
      // keep what was found
    }
    return name + "\x01" + msg;
  }
  function watch(p) {
    apply(then, p, [
      (v) => {
        let s;
        try { s = S(stringify(v)); } catch (_) { s = "?"; }
        out(MARK + "ok " + s);
      },
      (e) => { out(MARK + "threw " + describe(e)); },
    ]);
  }
  return function (op, x) { return op === 0 ? describe(x) : watch(x); };
})
