// upstream: quickjs-ng da49a37 "Addresses an incomplete fix from 1b0b660",
//   first released in v0.15.0.
// bug: shrinking a fast array through .length frees the dropped elements,
//   growing .length back and pushing made the freed elements readable.
// embedded build: not affected (the buggy fast path came with 7876eda,
//   January 2026); kept as a guard for an engine upgrade.
// expect: [6,1,2,false,false,false,6]
const arr = [{ a: 1 }, { b: 2 }, { c: 3 }, { d: 4 }, { e: 5 }];
arr.length = 2;
arr.length = 5;
arr.push({ f: 6 });
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i, s: "s" + i });
return [arr.length, arr[0].a, arr[1].b, 2 in arr, 3 in arr, 4 in arr, arr[5].f];
