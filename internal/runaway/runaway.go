// Package runaway lists programs that keep the guest busy forever, each in a
// different way, for the tests and benchmarks that check interruption.
package runaway

// Programs returns a fresh map from a short name to a runaway program:
// plain JS loops, exponential recursion, a catastrophic regex, a microtask
// storm, a long C builtin (BigInt), big sorts with and without a comparator,
// and a big JSON.stringify.
func Programs() map[string]string {
	return map[string]string{
		"loop":        `for(;;){}`,
		"try-finally": `for(;;) { try { while(true){} } finally { continue } }`,
		"exponential": `function t(n){ return n ? t(n-1)+t(n-1) : 0 } return t(60)`,
		"regex":       `for(;;) /^(a+)+$/.test('a'.repeat(40) + '!')`,
		"microtasks":  `const f = () => Promise.resolve().then(f); f(); await new Promise(() => {})`,
		"bigint":      `for(;;) String(7n ** 300000n)`,
		"sort":        `const a = []; for (let i = 0; i < 3e6; i++) a.push((i * 7919) % 3e6); for(;;) a.slice().sort()`,
		"sort-cmp":    `const a = []; for (let i = 0; i < 3e6; i++) a.push((i * 7919) % 3e6); for(;;) a.slice().sort((x, y) => x - y)`,
		"stringify":   `const s = 'x'.repeat(1e6); const o = []; for (let i = 0; i < 30; i++) o.push(s); for(;;) JSON.stringify(o)`,
	}
}
