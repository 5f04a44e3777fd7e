// upstream: quickjs-ng 0191aea "Handle zero limb when counting leading
//   zeroes" (issue #1105, PR #1110), first released in v0.11.0.
// bug: converting -2^63 to a string counts the leading zeros of a zero limb
//   (clz(0) is undefined in C); native builds printed a wrong number.
// expect: ["-9223372036854775808","-18446744073709551616","-9223372036854775808"]
return [String(-9223372036854775808n), String(-(2n ** 64n)), (-(2n ** 63n)).toString(10)];
