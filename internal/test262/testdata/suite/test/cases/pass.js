/*---
description: passes everywhere
---*/
assert.sameValue(1 + 1, 2);
