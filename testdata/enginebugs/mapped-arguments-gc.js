// upstream: quickjs-ng 3973106 "Fix UAF when handling non-detached var-refs
//   in mapped arguments" (issue #1400), first released in v0.13.0.
// bug: the GC mark function of a mapped (sloppy-mode) `arguments` object
//   treated the live frame's non-detached var_refs as GC objects; a
//   collection while such a function runs corrupts the heap. Reachable
//   through the Function constructor, which makes sloppy functions.
// embedded build: not affected (mapped arguments with var_refs came with
//   c27cdfc, January 2026); kept as a guard for an engine upgrade.
// expect: [0,1,2]
const f3 = Function("a", "b", `
  arguments;
  const junk = [];
  for (let i = 0; i < 20000; i++) junk.push({ i });
  return [a, b, arguments.length];
`);
const r = f3(0, 1);
return [r[0], r[1], r[2]];
