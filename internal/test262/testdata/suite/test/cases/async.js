/*---
description: an async test
flags: [async]
---*/
Promise.resolve().then(function () { $DONE(); });
