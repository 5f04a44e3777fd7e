/*---
description: needs $262
includes: [hostHook.js]
---*/
detach(new ArrayBuffer(1));
