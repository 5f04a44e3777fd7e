// upstream: quickjs-ng 252209d "Fix integer overflow in the Proxy ownKeys()
//   property enumeration" (on 32-bit hosts, which wasm32 is), first released
//   in v0.16.0.
// bug: the ownKeys trap returns an array-like with a huge length; the
//   property table size length * sizeof(JSPropertyEnum) wraps around 2^32,
//   so a tiny table is allocated and then filled (heap overflow write).
//   Correct: a TypeError (index 0 is undefined, not a property key).
// expect: ["TypeError","TypeError","TypeError","TypeError"]
// coderun's GuardProxyOwnKeysSize pass makes a length of 2^29 or more ask
//   for a table malloc refuses: the engine's catchable out-of-memory error.
// neutralized: ["InternalError","InternalError","InternalError","InternalError"]
const out = [];
for (const length of [0x20000000, 0x40000000, 0xfffffffe, 0xffffffff]) {
  const p = new Proxy({}, { ownKeys() { return { length } } });
  try { Object.getOwnPropertyNames(p); out.push("no error") } catch (e) { out.push(e.constructor.name) }
}
return out;
