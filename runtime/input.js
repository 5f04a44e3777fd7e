// The installer of a run's input (coderun.Request.Input). The host evaluates
// this script, which yields the function below, only in a run that has an
// input, and calls it with the value it parsed from the input's JSON before
// the program starts: plain objects and arrays that no code has seen yet,
// with intrinsics that no program has touched yet.
//
// It freezes the value and everything in it, with a stack of its own (JSON
// may nest deeper than a recursion could go), and makes it the global
// `input`: a read-only, non-configurable data property, in place of the
// prelude's undefined one.
(function (value) {
  "use strict";
  const ObjectFreeze = Object.freeze, ObjectKeys = Object.keys, ArrayIsArray = Array.isArray;
  if (typeof value === "object" && value !== null) {
    const stack = [value];
    let n = 1;
    while (n > 0) {
      const o = stack[--n];
      stack[n] = undefined;
      ObjectFreeze(o);
      if (ArrayIsArray(o)) {
        for (let i = 0; i < o.length; i++) {
          const x = o[i];
          if (typeof x === "object" && x !== null) stack[n++] = x;
        }
        continue;
      }
      const keys = ObjectKeys(o);
      for (let i = 0; i < keys.length; i++) {
        const x = o[keys[i]];
        if (typeof x === "object" && x !== null) stack[n++] = x;
      }
    }
  }
  Object.defineProperty(globalThis, "input", { __proto__: null, value, writable: false, enumerable: false, configurable: false });
})
