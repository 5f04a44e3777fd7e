// upstream: quickjs-ng 2f8616c "fixed buffer overflow in js_bigint_from_string()"
//   (cherry-pick of bellard/quickjs e1c18be), first released in v0.11.0.
// bug: parsing a decimal string of 80 million digits computes the number
//   of bits as n_digits * 27 in an int, which overflows; a tiny BigInt is
//   allocated and the digits are written past it (heap overflow write).
//   Correct: RangeError "BigInt is too large to allocate".
// expect: "RangeError: BigInt is too large to allocate"
const s = "1".repeat(80000000);
try { return "no error, " + BigInt(s).toString(16).length + " hex digits" } catch (e) { return String(e) }
