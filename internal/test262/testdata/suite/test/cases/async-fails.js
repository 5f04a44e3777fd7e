/*---
description: an async test that reports a failure
flags: [async]
---*/
Promise.resolve().then(function () { $DONE(new Test262Error("late")); });
