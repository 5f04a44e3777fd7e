// upstream: quickjs-ng daab4ad "Fix UAF in Iterator.concat" (issue #1368,
//   PR #1370), first released in v0.13.0; the reentrancy guard completed in
//   25b5e70 (v0.14.0). Iterator.concat (added after 0.10.1, bc7c58d) is in
//   the embedded build, which is a master snapshot of October 2025.
// bug: an iterable's Symbol.iterator calls return() on the concat iterator
//   that is opening it; return() frees the remaining iterables but leaves
//   them in place, and next() then uses the freed values.
// expect: [true,null]
// expect: [true,"TypeError"]
let it;
let reentry = null;
const evil = {
  [Symbol.iterator]() {
    try { it.return() } catch (e) { reentry = e.constructor.name }
    return [][Symbol.iterator]();
  },
};
it = Iterator.concat(evil, [1, 2], [{ x: 3 }]);
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
let r;
try { r = it.next() } catch (e) { return [true, e.constructor.name] }
const rest = [];
for (let i = 0; i < 5 && !r.done; i++) { rest.push(r.value); r = it.next() }
return [r.done, reentry];
