// A minimal stand-in for test262's sta.js.
function Test262Error(message) { this.message = message || ""; }
Test262Error.prototype.toString = function () { return "Test262Error: " + this.message; };
var $DONOTEVALUATE = function () { throw "Test262: This statement should not be evaluated."; };
