// upstream: quickjs-ng 0721419 "fixed buffer overflow in
//   TypedArray.prototype.lastIndexOf()" (cherry-pick of bellard/quickjs
//   c927eca), first released in v0.11.0.
// bug: the fromIndex argument's valueOf shrinks the buffer after the length
//   was read; the scan could start past the end of the store.
// expect: [-1,-1,-1]
const out = [];
for (const from of [7, -1, NaN]) {
  const rab = new ArrayBuffer(8 * 1024, { maxByteLength: 8 * 1024 });
  const ta = new Float64Array(rab);
  ta.fill(1.5);
  out.push(ta.lastIndexOf(1.5, { valueOf() { rab.resize(0); return from } }));
}
return out;
