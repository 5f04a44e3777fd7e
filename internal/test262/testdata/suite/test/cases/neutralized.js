/*---
description: coderun deletes transfer on purpose
features: [arraybuffer-transfer]
---*/
assert.sameValue(new ArrayBuffer(8).transfer().byteLength, 8);
