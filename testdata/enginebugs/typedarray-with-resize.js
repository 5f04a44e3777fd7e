// upstream: quickjs-ng e6e4e76 "Fix TypedArray.prototype.with TOCTOU heap
//   over-read" (bellard/quickjs issue #492), first released in v0.13.0.
// bug: with()'s value coercion shrinks the resizable buffer after the
//   length was read; the copy then reads past the shrunk store. (In 0.10.1 the
//   copy is clamped to the new length: no over-read, but the result is too
//   short, a spec deviation this test does not check.)
// expect: ["RangeError","1,0"]
const out = [];
{
  const rab = new ArrayBuffer(4096, { maxByteLength: 4096 });
  const ta = new Uint8Array(rab);
  try { ta.with(4000, { valueOf() { rab.resize(1); return 1 } }); out.push("no error") }
  catch (e) { out.push(e.constructor.name) }
}
{
  const rab = new ArrayBuffer(4096, { maxByteLength: 4096 });
  const ta = new Uint8Array(rab);
  const r = ta.with(0, { valueOf() { rab.resize(2); return 1 } });
  out.push(Array.from(r.subarray(0, 2)).join());
}
return out;
