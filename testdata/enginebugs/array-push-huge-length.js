// upstream: quickjs-ng a653771 "Fix fast array expansion overflow"
//   (issue #1468), first released in v0.15.0.
// bug: push() on a fast array whose length was set to 2^31-1 grows the
//   element table by a size computed with a signed overflow, then writes
//   element 2^31-1 far past it (heap overflow write).
// embedded build: not affected (the buggy fast path came with 7876eda,
//   January 2026); kept as a guard for an engine upgrade.
// expect: [2147483648,4]
// expect: "RangeError"
// expect: "InternalError"
// expect: "TypeError"
const arr = [1, 2, 3];
arr.length = 0x7fffffff;
try {
  const n = arr.push(4);
  return [n, arr[0x7fffffff]];
} catch (e) {
  return e.constructor.name;
}
