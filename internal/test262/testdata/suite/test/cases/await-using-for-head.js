/*---
description: >
  An "await using" declaration in the head of a for (;;) loop. esbuild v0.28
  refuses it there, and coderun then runs the plain JavaScript as written
  (runtime/internal/transpile/respell.go, docs/test262.md).
flags: [async]
---*/
var log = [];
async function f() {
  for (await using r = { [Symbol.asyncDispose]() { log.push("dispose"); } }; log.length < 1; ) {
    log.push("body");
  }
}
f().then(function () {
  assert.sameValue(log.join(), "body,dispose");
}).then($DONE, $DONE);
