// upstream: quickjs-ng 1cd5e67 "fixed buffer overflow in js_bigint_to_string1()"
//   (cherry-pick of bellard/quickjs 9ce5442), first released in v0.11.0.
// bug: toString with a power-of-two radix whose digits straddle limbs (8,
//   32) reads the limb after the last one (heap over-read); its garbage can
//   become the leading digit. Compares with a digit-by-digit reference.
// expect: 0
function ref(x, radix) {
  const neg = x < 0n; if (neg) x = -x;
  let s = ""; const r = BigInt(radix);
  do { s = "0123456789abcdefghijklmnopqrstuvwxyz"[Number(x % r)] + s; x /= r } while (x > 0n);
  return (neg ? "-" : "") + s;
}
let bad = 0;
const keep = [];
for (let bits = 1; bits <= 200; bits++) {
  for (const radix of [8, 32]) {
    for (const v of [(1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1), -((1n << BigInt(bits)) - 1n)]) {
      keep.push(new Array(bits & 7).fill(-1)); // vary what lies after the BigInt
      if (v.toString(radix) !== ref(v, radix)) bad++;
    }
  }
}
return bad;
