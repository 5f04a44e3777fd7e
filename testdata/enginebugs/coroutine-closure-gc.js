// upstream: quickjs-ng 7955cfd "Fix use-after-free of a suspended coroutine
//   reachable only via a closure", first released in v0.16.0.
// bug: a suspended async function whose only anchor is a closure over one
//   of its own locals is freed by the cycle collector (the closure's open
//   var_ref into the frame is invisible to it); resuming it then runs on
//   freed memory. The "store a resolver, await it" pattern; the allocation
//   loop is what triggers the collector (there is no gc()).
// expect: "resumed with go"
let trigger;
async function waiter() { let res; const p = new Promise(r => { res = r }); trigger = () => res("go"); return "resumed with " + await p }
const result = waiter(); const junk = []; for (let i = 0; i < 20000; i++) junk.push({ i });
trigger(); return await result;
