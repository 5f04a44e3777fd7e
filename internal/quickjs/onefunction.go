package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// ErrNotOneFunction is CheckOneFunction's error for a script that, evaluated,
// would do more than make one function.
var ErrNotOneFunction = errors.New("quickjs: the script is more than one function expression")

// oneFunctionCode is the whole top-level bytecode the pinned build compiles a
// script made of one function expression to (also "0, function …", whose
// "0," it folds away): fclosure8 0, a closure of constant 0; set_loc0, the
// script's completion value; return (opcode numbers of quickjs-opcode.h).
var oneFunctionCode = []byte{0xc5, 0x00, 0xd3, 0x28}

// Fields of a function's u16 flags word and its mode byte in the object
// format (JS_WriteFunctionTag).
const (
	bcFuncKindShift = 4 // two bits: JS_FUNC_NORMAL, _GENERATOR, _ASYNC, _ASYNC_GENERATOR
	bcFuncKindAsync = 2
	bcModeStrict    = 1
)

// CheckOneFunction checks that bytecode, Compile's output for a script,
// does nothing when it is evaluated but make a closure of its one constant
// and complete with it, and that the constant is an async function in
// strict mode with params parameters. It is how a run knows that its
// program stayed inside the function it is the body of: any code of the
// script outside that function — a statement after it, an expression beside
// it, a declaration — compiles to more top-level bytecode or more constants.
// It fails with ErrNotOneFunction when the script is more than that, and
// with an error wrapping ErrLayoutMismatch when bytecode is not in the
// pinned build's format.
func CheckOneFunction(bytecode []byte, params int) error {
	s := &bcStripper{in: bytecode, readOnly: true}
	top, err := s.oneFunction(params)
	if err != nil {
		if errors.Is(err, ErrNotOneFunction) {
			return err
		}
		return fmt.Errorf("%w: %w at byte %d", ErrLayoutMismatch, err, s.pos)
	}
	if !bytes.Equal(top, oneFunctionCode) {
		return fmt.Errorf("%w: top-level code % x", ErrNotOneFunction, top)
	}
	return nil
}

// bcFunctionHeader is what CheckOneFunction reads of a function.
type bcFunctionHeader struct {
	flags uint16
	mode  byte
	// the LEB128 fields, in their order: indexed by bcName…bcLocals
	counts [bcCounts]uint32
}

// The LEB128 fields of a function's header, in the order JS_WriteFunctionTag
// writes them after the flags and mode.
const (
	bcName        = iota // the name's atom
	bcArgs               // parameters
	bcVars               // variables
	bcDefinedArgs        // parameters before the first with a default
	bcStackSize          // stack size
	bcVarRefs            // variable references of its captured locals
	bcClosureVars        // variables of enclosing functions it uses
	bcConstants          // constants
	bcCodeLen            // bytecode length
	bcLocals             // local records: args plus vars, or none
	bcCounts
)

// header reads a function's fields up to its locals (after its tag).
func (s *bcStripper) header() (bcFunctionHeader, error) {
	var h bcFunctionHeader
	if err := s.skip(2); err != nil {
		return h, err
	}
	h.flags = uint16(s.in[s.pos-2]) | uint16(s.in[s.pos-1])<<8
	mode, err := s.u8()
	if err != nil {
		return h, err
	}
	h.mode = mode
	for i := range h.counts {
		if h.counts[i], err = s.leb(); err != nil {
			return h, err
		}
	}
	return h, nil
}

// taggedHeader reads a tag that must be a function's, then the function's
// header; another tag fails with notFunction, saying what the value was.
func (s *bcStripper) taggedHeader(notFunction error, what string) (bcFunctionHeader, error) {
	tag, err := s.u8()
	if err != nil {
		return bcFunctionHeader{}, err
	}
	if tag != bcTagFunctionBytecode {
		return bcFunctionHeader{}, fmt.Errorf("%w: %s of tag %d", notFunction, what, tag)
	}
	return s.header()
}

// vars reads a function's locals and closure variables (after its header).
func (s *bcStripper) vars(h bcFunctionHeader) error {
	for range h.counts[bcLocals] { // name atom, scope level, next scope; flags
		if err := s.lebs(3); err != nil {
			return err
		}
		flags, err := s.u8()
		if err != nil {
			return err
		}
		if flags&bcVarCaptured != 0 { // its variable reference
			if _, err := s.leb(); err != nil {
				return err
			}
		}
	}
	for range h.counts[bcClosureVars] { // name atom, index, flags
		if err := s.lebs(3); err != nil {
			return err
		}
	}
	return nil
}

// oneFunction reads the script's top-level function, checks its constants
// (see CheckOneFunction) and returns its bytecode.
func (s *bcStripper) oneFunction(params int) ([]byte, error) {
	if err := s.atoms(); err != nil {
		return nil, err
	}
	top, err := s.taggedHeader(errBytecode, "a script")
	if err != nil {
		return nil, err
	}
	if err := s.vars(top); err != nil {
		return nil, err
	}
	constants, codeLen := top.counts[bcConstants], top.counts[bcCodeLen]
	if constants != 1 {
		return nil, fmt.Errorf("%w: %d constants", ErrNotOneFunction, constants)
	}
	// The constant: its header, then the whole object skipped.
	at := s.pos
	fn, err := s.taggedHeader(ErrNotOneFunction, "a constant")
	if err != nil {
		return nil, err
	}
	switch {
	case int(fn.flags>>bcFuncKindShift)&3 != bcFuncKindAsync:
		return nil, fmt.Errorf("%w: the function is not async", ErrNotOneFunction)
	case fn.mode&bcModeStrict == 0:
		return nil, fmt.Errorf("%w: the function is not strict", ErrNotOneFunction)
	case fn.counts[bcArgs] != uint32(params):
		return nil, fmt.Errorf("%w: the function has %d parameters, not %d", ErrNotOneFunction, fn.counts[bcArgs], params)
	}
	s.pos = at
	if err := s.object(1); err != nil {
		return nil, err
	}
	if err := s.skip(int(codeLen)); err != nil {
		return nil, err
	}
	return s.in[s.pos-int(codeLen) : s.pos], nil
}
