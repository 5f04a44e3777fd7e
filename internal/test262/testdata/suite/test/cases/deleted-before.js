/*---
description: >
  The built-ins the prelude of the earlier build deleted for its engine's
  memory bugs are there and work in both modes (docs/test262.md).
features: [arraybuffer-transfer, resizable-arraybuffer, iterator-sequencing, FinalizationRegistry]
---*/
assert.sameValue(new ArrayBuffer(8).transfer().byteLength, 8);
assert.sameValue(new ArrayBuffer(8).transferToFixedLength(4).byteLength, 4);
var ab = new ArrayBuffer(2, { maxByteLength: 8 });
ab.resize(6);
assert.sameValue(ab.byteLength, 6);
var sab = new SharedArrayBuffer(2, { maxByteLength: 8 });
sab.grow(6);
assert.sameValue(sab.byteLength, 6);
assert.sameValue(Iterator.concat([1], [2, 3]).toArray().join(), "1,2,3");
assert.sameValue(typeof new FinalizationRegistry(function () {}).register, "function");
