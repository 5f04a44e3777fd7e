// upstream: quickjs-ng 1b0b660 "Fix UAF in fast array delete" (issue #1430),
//   first released in v0.14.0.
// bug: deleting the last element of a fast array freed it but left it
//   counted; a later push made the freed slot readable again.
// embedded build: not affected (the buggy fast path came with 7876eda,
//   January 2026); kept as a guard for an engine upgrade.
// expect: [3,false,true,true,2]
const arr = [{ x: 0 }, { x: 1 }];
delete arr[1];
arr.push({ y: 2 });
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
return [arr.length, 1 in arr, arr[1] === undefined, 2 in arr, arr[2].y];
