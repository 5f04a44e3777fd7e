// upstream: quickjs-ng ea3e9d7 "Fix OOB access in atomic ops"
//   (issues #1301, #1302), first released in v0.12.0.
// bug: Atomics.store/add/... compute the element address, then call the
//   value's valueOf, which shrinks the buffer to 0; the operation then
//   writes into freed memory. Correct: a RangeError for each call.
// expect: ["RangeError","RangeError","RangeError"]
// expect: "Atomics is not exposed"
if (typeof Atomics === "undefined") return "Atomics is not exposed";
const out = [];
for (const op of ["store", "add", "exchange"]) {
  const rab = new ArrayBuffer(4096, { maxByteLength: 4096 });
  const ta = new Int32Array(rab);
  try {
    Atomics[op](ta, 1000, { valueOf() { rab.resize(0); return 0x41414141 } });
    out.push("no error");
  } catch (e) {
    out.push(e.constructor.name);
  }
}
return out;
