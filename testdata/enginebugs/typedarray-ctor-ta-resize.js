// upstream: quickjs-ng 53aebe6 "Fix heap buffer overflow in js_typed_array_constructor_ta"
//   (issue #1305), first released in v0.12.0.
// bug: new Uint8Array(typedArray) reads the source length, then looks up
//   newTarget.prototype, whose getter shrinks the source's buffer to 0; the
//   constructor then copies 10 bytes from a 1-byte store (heap over-read).
// expect: "RangeError"
// coderun removes ArrayBuffer.prototype.resize: the getter's rab.resize(0)
//   throws a TypeError, which the program catches.
// neutralized: "TypeError"
const rab = new ArrayBuffer(10, { maxByteLength: 10 });
const src = new Uint8Array(rab, 0);
const Evil = new Proxy(function () {}, {
  get(target, prop, receiver) {
    if (prop === "prototype") { rab.resize(0); return Uint8Array.prototype }
    return Reflect.get(target, prop, receiver);
  },
});
try {
  const u8 = Reflect.construct(Uint8Array, [src], Evil);
  return "no error, length " + u8.length;
} catch (e) {
  return e.constructor.name;
}
