// upstream: quickjs-ng 252209d "Fix integer overflow in the Proxy ownKeys()
//   property enumeration" (on 32-bit hosts, which wasm32 is), first released
//   in v0.16.0.
// bug: as proxy-ownkeys-huge-length.js, but the array-like yields real keys
//   first, so the undersized table is written to before the error.
//   Correct: the RangeError the getter throws at index 3.
// expect: "RangeError: stop at 3"
// coderun's GuardProxyOwnKeysSize pass makes a length of 2^29 or more ask
//   for a table malloc refuses: the engine's catchable out-of-memory error,
//   before any key is read.
// neutralized: "InternalError: out of memory"
const keys = ["a", "b", Symbol("c")];
const p = new Proxy({}, {
  ownKeys() {
    return new Proxy({ length: 0xffffffff }, {
      get(t, k) {
        if (k === "length") return 0x20000000;
        const i = Number(k);
        if (i < keys.length) return keys[i];
        throw new RangeError("stop at " + i);
      },
    });
  },
});
try { Object.getOwnPropertyNames(p); return "no error" } catch (e) { return String(e) }
