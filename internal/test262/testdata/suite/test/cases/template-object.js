/*---
description: >
  A template object is frozen. coderun evaluates programs from bytecode, and
  the engine reads a template object back from bytecode with its length
  writable (docs/test262.md): a machinery failure.
---*/
function tag(strings) { return strings; }
assert(Object.isFrozen(tag`x${1}`), "frozen");
