// upstream: quickjs-ng 48ececf "Fix out of bounds read in regex engine"
//   (issue #1354, PR #1357), first released in v0.13.0.
// bug: parsing an unterminated class with the v flag compares reserved
//   double punctuators with memcmp past the end of the pattern (heap
//   over-read). Correct: a SyntaxError.
// expect: ["SyntaxError","SyntaxError","SyntaxError"]
const out = [];
for (const src of ["[", "[&", "[a&&"]) {
  try { new RegExp(src, "v"); out.push("no error") } catch (e) { out.push(e.constructor.name) }
}
return out;
