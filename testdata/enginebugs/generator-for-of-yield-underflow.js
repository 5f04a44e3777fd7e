// upstream: quickjs-ng dcfa6c1 "Fix underflow with generator in iterable",
//   first released in v0.13.0 (tests/bug488-upstream.js).
// bug: `for (x of yield ...)`: return() while suspended in the iterable
//   expression closes an iterator that does not exist yet, popping values
//   below the frame's stack (stack underflow).
// expect: {"value":"test","done":true}
function* x() {
  for (var e of yield []);
}
var g = x();
g.next();
return g.return("test");
