// upstream: quickjs-ng 0c7e836 "fix growable sab hooks", first released in
//   v0.15.1.
// bug: without SharedArrayBuffer allocator hooks (the case in a WASI build)
//   a growable SharedArrayBuffer allocates only its initial length, but
//   grow() just raises byteLength as if maxByteLength had been reserved:
//   views then read and write past the allocation (heap overflow).
//   Correct (fixed engine): without hooks the constructor throws a
//   TypeError; coderun's glue installs hooks, so the buffer reserves
//   maxByteLength up front and grows within it: what is written stays, and
//   objects allocated afterwards are intact.
// expect: "grew to 65536 bytes, intact"
// expect: "TypeError"
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
const bytesIntact = u8.every((b) => b === 0x41);
const junkIntact = junk.every((o, i) => o.i === i && o.s === "x" + i);
return "grew to " + u8.length + " bytes" + (bytesIntact && junkIntact ? ", intact" : ", corrupted");
