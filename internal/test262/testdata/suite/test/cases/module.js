/*---
description: a module
flags: [module]
---*/
export var x = 1;
