/*---
description: >
  Names of characters Unicode 16 and 17 added to ID_Start and ID_Continue,
  raw and escaped, as names and private names. esbuild v0.28's tables are
  Unicode 15.1 and refuse them; coderun then runs the plain JavaScript as
  written (runtime/internal/transpile/newident.go, docs/test262.md).
---*/
var Ᲊ = 1, aࢗ = 2, \u{10D4A}\u{10D40} = 3;
class C {
  #\u1c89 = 4;
  get() { return this.#Ᲊ; }
}
assert.sameValue(\u1C89 + a\u0897 + 𐵊𐵀 + new C().get(), 10);
