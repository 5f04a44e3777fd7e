package budget

import "testing"

// A guest stack of 2 MiB, as the runtime's: [bottom, top), QuickJS's limit
// never below floor.
const (
	testTop    = 3 << 20
	testBottom = testTop - 2<<20
	testFloor  = testBottom + 64<<10
	testLinear = 1 << 20
)

// NewGuest charges the linear memory, the native base and the first steps
// of the stack, or nothing when they do not fit.
func TestNewGuest(t *testing.T) {
	tests := []struct {
		name    string
		limit   int64
		ok      bool
		covered uint32
	}{
		{"roomy", 64 << 20, true, stackAhead},
		{"no room for the base", testLinear + NativeBase - 1, false, 0},
		// The first stack may take the heap's share down to stackGrace.
		{"tight", testLinear + NativeBase + stackGrace*nativeCost, true, stackGrace},
		{"too tight", testLinear + NativeBase + stackGrace/2*nativeCost - 1, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mem := NewMemory(Limits{MemoryBytes: tc.limit})
			g, ok := NewGuest(mem, testLinear, testTop, testFloor, testBottom)
			if ok != tc.ok {
				t.Fatalf("ok %v", ok)
			}
			if !ok {
				if mem.Used() != 0 {
					t.Fatalf("a refused guest left %d bytes charged", mem.Used())
				}
				return
			}
			if g.covered != tc.covered || g.Deep() != 0 {
				t.Fatalf("covered %d, deep %d", g.covered, g.Deep())
			}
			if want := int64(testLinear+NativeBase) + int64(tc.covered)*nativeCost; mem.Used() != want {
				t.Fatalf("charged %d, want %d", mem.Used(), want)
			}
			if g.Limit() < testFloor || g.Limit() >= testTop || g.Mark() <= g.Limit() && !g.refused {
				t.Fatalf("limit %d, mark %d", g.Limit(), g.Mark())
			}
			g.Release()
			if mem.Used() != 0 {
				t.Fatalf("Release left %d bytes", mem.Used())
			}
		})
	}
}

// Going deeper covers more, never the account's last 1/heapShare; a depth
// beyond what can be covered ends the run; a refused stack waits at its
// covered bottom until Rearm.
func TestGuestLow(t *testing.T) {
	const limit = 64 << 20
	mem := NewMemory(Limits{MemoryBytes: limit})
	g, ok := NewGuest(mem, testLinear, testTop, testFloor, testBottom)
	if !ok {
		t.Fatal("NewGuest")
	}
	if moved, ok := g.Low(testTop); moved || !ok {
		t.Fatalf("a stack pointer at the top moved %v, ok %v", moved, ok)
	}
	sp, refused := uint32(testTop-stackAhead+1), false
	for ; ; sp -= stackStep {
		moved, ok := g.Low(sp)
		if !ok {
			break
		}
		if !moved || g.covered < testTop-sp {
			t.Fatalf("sp %d: moved %v, covered %d", sp, moved, g.covered)
		}
		if mem.Used() > limit-limit/heapShare {
			t.Fatalf("sp %d: the stack took the heap's share: %d charged", sp, mem.Used())
		}
		if g.refused {
			refused = true
			if g.Mark() != testTop-g.covered || g.Limit() > g.Mark()+stackGrace {
				t.Fatalf("refused: mark %d, limit %d, covered bottom %d", g.Mark(), g.Limit(), testTop-g.covered)
			}
			if !g.Rearm() || g.Rearm() {
				t.Fatal("Rearm moves the mark once")
			}
		}
	}
	if !refused {
		t.Fatal("the account never refused an extension")
	}
	if depth := uint32(testTop) - sp; depth <= g.covered {
		t.Fatalf("ended at depth %d, covered %d", depth, g.covered)
	}
	if g.Deep() <= 0 || g.Full() {
		t.Fatalf("deep %d, full %v", g.Deep(), g.Full())
	}
	g.Release()
	if mem.Used() != 0 {
		t.Fatalf("Release left %d bytes", mem.Used())
	}
}

// With room for the whole stack, the mark ends at its bottom.
func TestGuestFull(t *testing.T) {
	mem := NewMemory(Limits{MemoryBytes: 4 << 30})
	g, _ := NewGuest(mem, testLinear, testTop, testFloor, testBottom)
	if moved, ok := g.Low(testBottom + 1); !moved || !ok || !g.Full() {
		t.Fatalf("moved %v, ok %v, full %v", moved, ok, g.Full())
	}
	if g.Mark() != testBottom || g.Limit() != testFloor {
		t.Fatalf("mark %d, limit %d", g.Mark(), g.Limit())
	}
	if _, ok := g.Low(testBottom - 1); ok {
		t.Fatal("below the whole stack")
	}
}
