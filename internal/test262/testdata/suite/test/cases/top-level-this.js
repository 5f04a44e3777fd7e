/*---
description: a global script has this; a function body does not
---*/
assert.sameValue(this, globalThis);
