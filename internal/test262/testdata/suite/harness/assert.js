// A minimal stand-in for test262's assert.js, for the runner's own tests.
function assert(ok, message) {
  if (ok !== true) throw new Test262Error(message || "assertion failed");
}
assert.sameValue = function (actual, expected, message) {
  if (!Object.is(actual, expected)) {
    throw new Test262Error((message || "") + " expected " + String(expected) + ", got " + String(actual));
  }
};
