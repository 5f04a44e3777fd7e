// A minimal stand-in for test262's doneprintHandle.js.
function $DONE(error) {
  print(error ? "Test262:AsyncTestFailure:" + String(error) : "Test262:AsyncTestComplete");
}
