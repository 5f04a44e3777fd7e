/*---
description: a feature the engine lacks (Temporal, not in QuickJS-NG 05b2db9)
---*/
assert.sameValue(typeof Temporal, "object");
