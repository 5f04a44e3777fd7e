// upstream: quickjs-ng c952c93 "Fix use-after-free in ArrayBuffer.prototype.transfer"
//   (issue #1208, PR #1209), first released in v0.11.0.
// bug: the same stale-view bug through transferToFixedLength() of a
//   resizable buffer, with a length-tracking view, a DataView and a larger
//   store, so that the old store is really freed (not just moved).
// expect: [true,0,0,true,0,7]
const rab = new ArrayBuffer(4096, { maxByteLength: 8192 });
const u8 = new Uint8Array(rab);
const dv = new DataView(rab);
u8[4095] = 7;
const t = rab.transferToFixedLength(8192);
for (let i = 0; i < 4096; i++) u8[i] = 0xff; // must write nothing
let dvLen;
try { dvLen = dv.byteLength } catch (e) { dvLen = 0 }
return [rab.detached, u8.length, u8.byteLength, u8[0] === undefined, dvLen, new Uint8Array(t)[4095]];
