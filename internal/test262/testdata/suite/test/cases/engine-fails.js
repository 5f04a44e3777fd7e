/*---
description: a proposal the engine lacks
---*/
assert.sameValue(typeof JSON.rawJSON, "function");
