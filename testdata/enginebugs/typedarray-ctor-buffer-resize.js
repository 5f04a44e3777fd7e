// upstream: quickjs-ng c5d8083 "Fix heap buffer overflow via side-effects in js_typed_array_constructor"
//   (issue #1296), first released in v0.12.0.
// bug: new Uint8Array(rab) computes a length-tracking view of 10 bytes, then
//   newTarget.prototype's getter shrinks the buffer to 0; the view is created
//   with the stale length and reads and writes past the 1-byte store.
// expect: [0,0,true]
const ab = new ArrayBuffer(10, { maxByteLength: 10 });
const evil = (function f() { return 1337 }).bind();
Object.defineProperty(evil, "prototype", { get() { ab.resize(0); return Uint8Array.prototype } });
const u8 = Reflect.construct(Uint8Array, [ab], evil);
for (let i = 0; i < u8.length; i++) u8[i] = 0xff; // must write nothing
return [u8.length, ab.byteLength, u8[0] === undefined];
