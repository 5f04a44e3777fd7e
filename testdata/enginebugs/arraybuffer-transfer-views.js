// upstream: quickjs-ng c952c93 "Fix use-after-free in ArrayBuffer.prototype.transfer"
//   (issue #1208, PR #1209), first released in v0.11.0.
// bug: transfer() detaches the source buffer but leaves every typed array
//   view on it pointing at the old backing store, which now belongs to (or
//   was freed by) the new buffer: the views keep their length and read and
//   write memory they no longer own.
// expect: [true,0,0,true,42]
const s = new Float64Array([42]);
const b = s.buffer;
const t = b.transfer();
s[0] = 1; // must be ignored: s is a view on a detached buffer
return [b.detached, s.length, s.byteLength, s[0] === undefined, new Float64Array(t)[0]];
