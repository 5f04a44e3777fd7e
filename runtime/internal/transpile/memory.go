package transpile

import "strings"

// This file estimates the host memory a compilation allocates, so that a caller can charge it to
// the run that asked for it before the memory is taken (Options.Reserve). Nothing in Go measures
// what one goroutine allocates, so the estimates are upper bounds of what compilations allocate
// in all (garbage included, so that they also bound the heap the collector has yet to reclaim),
// measured over the shapes that cost the most per byte and per unit of compile work
// (TestCompileMemoryBound):
//
//   - the scan (tokens, brackets, names, diagnostics) costs at most scanBytesPerToken for each
//     token it reads: the tokenizer reserves it ahead, pollEvery tokens at a time (see poller);
//   - esbuild's passes cost at most esbuildBytesPerUnit per unit of compile work, plus
//     esbuildBytesPerByte per byte of the program, esbuildBytesPerLiteralByte more per byte
//     inside a string, template or regular expression literal, and esbuildBytesPerWideByte more
//     per byte that is not ASCII (esbuild holds a literal's text as UTF-16, and prints what is not
//     ASCII escaped) and per byte of a name written with a \u escape (which esbuild decodes
//     through UTF-16).

// The estimates' weights, in bytes.
const (
	scanBytesPerToken          = 160
	esbuildBytesPerUnit        = 400
	esbuildBytesPerByte        = 16
	esbuildBytesPerLiteralByte = 16
	esbuildBytesPerWideByte    = 64
	// compileBaseBytes is what a compilation of even an empty program allocates.
	compileBaseBytes = 256 << 10
)

// scanBytesPerLook is what the tokenizer reserves at each look at its context (see poller), for
// the tokens it reads until the next.
const scanBytesPerLook = scanBytesPerToken * pollEvery

// esbuildMemory is the estimate of what esbuild's passes allocate over the program whose tokens
// are s (all of them: esbuild runs only when the scan accepted the program), of compile work work.
func esbuildMemory(s *tokenList, work int64) int64 {
	var literal, escaped int64
	for _, t := range s.toks {
		switch t.kind {
		case tkString, tkTemplate, tkRegex:
			literal += int64(t.end - t.start)
		case tkIdent, tkPrivate:
			if strings.IndexByte(s.src[t.start:t.end], '\\') >= 0 {
				escaped += int64(t.end - t.start)
			}
		}
	}
	wide := 0
	for i := range len(s.src) {
		if s.src[i] >= 0x80 {
			wide++
		}
	}
	return esbuildBytesPerUnit*work + esbuildBytesPerByte*int64(len(s.src)) +
		esbuildBytesPerLiteralByte*literal + esbuildBytesPerWideByte*(int64(wide)+escaped)
}

// reserve asks the caller for n bytes of host memory (see Options.Reserve).
func (c *compilation) reserve(n int64) error {
	if c.opts.Reserve == nil {
		return nil
	}
	return c.opts.Reserve(n)
}
