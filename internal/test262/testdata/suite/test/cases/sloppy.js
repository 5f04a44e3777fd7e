/*---
description: sloppy mode only
flags: [noStrict]
---*/
with ({}) {}
