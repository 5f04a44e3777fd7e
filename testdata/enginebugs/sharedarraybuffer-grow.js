// upstream: quickjs-ng 0c7e836 "fix growable sab hooks", first released in
//   v0.15.1.
// bug: without SharedArrayBuffer allocator hooks (the case in a WASI build)
//   a growable SharedArrayBuffer allocates only its initial length, but
//   grow() just raises byteLength as if maxByteLength had been reserved:
//   views then read and write past the allocation (heap overflow).
//   Correct (fixed engine): the constructor throws a TypeError.
// expect: "TypeError"
// expect: "SharedArrayBuffer is not exposed"
if (typeof SharedArrayBuffer === "undefined") return "SharedArrayBuffer is not exposed";
let s;
try {
  s = new SharedArrayBuffer(8, { maxByteLength: 1 << 16 });
} catch (e) {
  return e.constructor.name;
}
s.grow(1 << 16);
const u8 = new Uint8Array(s);
for (let i = 0; i < u8.length; i++) u8[i] = 0x41;
const junk = [];
for (let i = 0; i < 2000; i++) junk.push({ i, s: "x" + i });
return "grew to " + u8.length + " bytes over an 8-byte allocation";
