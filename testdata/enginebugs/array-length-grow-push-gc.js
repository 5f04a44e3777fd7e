// upstream: quickjs-ng d98ff10 "Fix use-after-free from Array .length grow +
//   push" (issue #1562), first released in v0.16.0.
// bug: growing a fast array's .length and then pushing left the fast array
//   with a count covering uninitialized slots; the GC then marks and frees
//   garbage values.
// embedded build: not affected (the buggy fast path came with 7876eda,
//   January 2026); kept as a guard for an engine upgrade.
// expect: [0,30,246,2,false]
const keep = [];
for (let i = 0; i < 30; i++) {
  const a = [0];
  a.length = 245;
  a.push(2);
  keep.push(a);
}
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
let bad = 0;
for (const a of keep) if (a.length !== 246 || a[0] !== 0 || a[245] !== 2 || a.hasOwnProperty(1)) bad++;
const a = keep[0];
return [bad, keep.length, a.length, a[245], 1 in a];
