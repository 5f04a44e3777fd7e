package upstream

import (
	"testing"
)

func TestModulePinned(t *testing.T) {
	if err := Check(Module()); err != nil {
		t.Fatal(err)
	}
	if string(Module()[:4]) != "\x00asm" {
		t.Fatalf("not a wasm module: % x", Module()[:4])
	}
	if err := Check(append([]byte{0}, Module()...)); err == nil {
		t.Fatal("Check accepted other bytes")
	}
}
