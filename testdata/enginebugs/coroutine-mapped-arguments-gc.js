// upstream: quickjs-ng 7955cfd "Fix use-after-free of a suspended coroutine
//   reachable only via a closure", first released in v0.16.0
//   (tests/suspended-coroutine-mapped-arguments-gc.js).
// bug: a sloppy-mode async function (made with the AsyncFunction
//   constructor) whose mapped `arguments` escapes; the suspended frame is
//   freed by the cycle collector while `arguments` still maps into it.
// expect: 123
globalThis.leaked = null;
const AsyncFunction = (async function () {}).constructor;
const step = AsyncFunction("a", `
  globalThis.leaked = () => arguments;
  const d = Promise.withResolvers();
  await d.promise;
`);
step(123);
const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
return leaked()[0];
