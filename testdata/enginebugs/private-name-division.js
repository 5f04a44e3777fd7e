// upstream: quickjs-ng 7532965 "Fix parsing error involving private fields and division"
//   (PR #1398), first released in v0.13.0.
// bug: not a memory bug. The parser's lookahead at `(`, `[` and `{`
//   (js_parse_skip_parens_token) reads a `/` after a private name as the
//   start of a regexp. When that regexp runs into a line break, the
//   lookahead leaves a SyntaxError ("unexpected line terminator in regexp")
//   pending, which the top-level evaluation reports although the code is
//   valid; coderun wraps every program in `(async function … {…})`, so any
//   such division failed the whole program. When the regexp swallows a `)`,
//   the lookahead also misjudges an arrow function and the parse itself
//   fails. The sources go through an indirect eval so that a SyntaxError is
//   a value this program returns: inside eval the pending error is not
//   reported, but the arrow-function case fails there too.
// expect: [2,2,2,2,2,"2"]
const bodies = [
  "return (this.#f / 2)",
  "return [this.#f / 2][0]",
  "return { h: this.#f / 2 }.h",
  "this.#f /= 2; return this.#f",
  "const g = (d = this.#f / 2) => d; return g()",
  "return `${this.#f / 2}`",
];
return bodies.map((body) => {
  try {
    return (0, eval)(`class C { #f = 4; m() { ${body} } }\nnew C().m()`);
  } catch (e) {
    return String(e);
  }
});
