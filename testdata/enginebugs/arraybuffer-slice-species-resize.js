// upstream: quickjs-ng 2f6cad8 "Fix length check in ArrayBuffer.prototype.slice"
//   (issue #1210, PR #1211), first released in v0.11.0.
// bug: a Symbol.species getter shrinks the resizable buffer after slice()
//   computed the copy length; slice() then copies 16 bytes out of a 1-byte
//   store (heap over-read). Correct: a TypeError.
// expect: "TypeError"
const buffer = new ArrayBuffer(16, { maxByteLength: 16 });
const desc = Object.getOwnPropertyDescriptor(ArrayBuffer, Symbol.species);
Object.defineProperty(ArrayBuffer, Symbol.species, {
  ...desc, get() { buffer.resize(1); return ArrayBuffer },
});
try {
  const r = buffer.slice();
  return "no error, copied " + r.byteLength + " bytes";
} catch (e) {
  return e.constructor.name;
}
