// The pristine QuickJS-NG 0.10.1 module (wasm/upstream) run by Node's V8, as
// wasm/bench_test.go's "original" variant runs it on wazero: a fresh
// instance per sample, New_QJS(0,0,0,0), the setup evaluated untimed, the
// workload timed (wall time). It tells how much of coderun's compute time is
// the code wazero generates for QuickJS: the module is the same byte for
// byte. See bench/README.md, "The same module in V8".
//
//   node bench/peers/v8/bench.js wasm/upstream/quickjs-ng.wasm testdata/summary.js 9
const fs = require('fs');
const bytes = fs.readFileSync(process.argv[2]);
const summary = fs.readFileSync(process.argv[3], 'utf8');
const rounds = +process.argv[4] || 9;
const mod = new WebAssembly.Module(bytes);
const workloads = [
  ['fib27', 'function fib(n){return n<2?n:fib(n-1)+fib(n-2)}', 'fib(27)'],
  ['json1MB', `globalThis.doc = JSON.stringify(Array.from({length: 6700}, (_, i) => ({id: i, name: "item" + i,
			tags: ["alpha", "beta", "gamma"], ok: i % 2 == 0, nested: {x: i * 1.5, y: "abcdefghij".repeat(3), z: [1, 2, 3]}})))`,
    'JSON.stringify(JSON.parse(doc)).length'],
  ['summary', '1', '(function () {\n' + summary + '\n})()'],
];
function instance() {
  let mem;
  const wasi = {};
  for (const imp of WebAssembly.Module.imports(mod)) {
    if (imp.module !== 'wasi_snapshot_preview1') continue;
    wasi[imp.name] = () => 0;
  }
  wasi.clock_time_get = (id, prec, out) => { new DataView(mem.buffer).setBigUint64(out, 0n, true); return 0; };
  wasi.fd_write = (fd, iovs, n, out) => { new DataView(mem.buffer).setUint32(out, 0, true); return 0; };
  wasi.proc_exit = (c) => { throw new Error('exit ' + c); };
  const inst = new WebAssembly.Instance(mod, { env: { jsFunctionProxy: () => 3n << 32n }, wasi_snapshot_preview1: wasi });
  mem = inst.exports.memory;
  const x = inst.exports;
  const qrt = x.New_QJS(0, 0, 0, 0);
  const ctx = x.QJS_GetContext(qrt);
  const cstr = (s) => {
    const b = Buffer.from(s + '\0');
    const p = x.malloc(b.length);
    new Uint8Array(mem.buffer, p, b.length).set(b);
    return p;
  };
  const name = cstr('<input>');
  return (code) => {
    const opt = x.QJS_CreateEvalOption(cstr(code), 0, 0, name, 0);
    const v = x.QJS_Eval(ctx, opt);
    if ((v >> 32n) === 6n) throw new Error('exception evaluating ' + code.slice(0, 40));
  };
}
for (const [name, setup, code] of workloads) {
  const ms = [];
  for (let r = -2; r < rounds; r++) { // two warm-up samples: V8 tiers the module's code up
    const ev = instance();
    ev(setup);
    const t0 = process.hrtime.bigint();
    ev(code);
    const t1 = process.hrtime.bigint();
    if (r >= 0) ms.push(Number(t1 - t0) / 1e6);
  }
  ms.sort((a, b) => a - b);
  console.log(`${name} v8-ms ${ms[Math.floor(ms.length / 2)].toFixed(2)} (min ${ms[0].toFixed(2)}, max ${ms[ms.length - 1].toFixed(2)})`);
}
