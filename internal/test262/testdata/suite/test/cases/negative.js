/*---
description: a parse error
negative:
  phase: parse
  type: SyntaxError
---*/
$DONOTEVALUATE();
var x = ;
