// upstream: quickjs-ng 53eefbc "Fix OOB access in TA sort" (issue #1297),
//   first released in v0.12.0.
// bug: the comparator shrinks the resizable buffer from 256 to 10 bytes;
//   sort() then copies elements back by their pre-shrink indices, reading
//   past the 10-byte copy (heap over-read: garbage enters the array).
// expect: [10,10,"255,254,253,252,251,250,249,248,247,246"]
const ab = new ArrayBuffer(256, { maxByteLength: 2560 });
const u8 = new Uint8Array(ab);
for (let i = 0; i < 256; i++) u8[i] = 255 - i;
u8.sort((a, b) => { ab.resize(10); return a - b });
// allocate after the sort so a corrupted heap shows up here
const junk = [];
for (let i = 0; i < 2000; i++) junk.push({ i, s: "x" + i });
return [u8.length, ab.byteLength, Array.from(u8).join()];
