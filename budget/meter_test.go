package budget

import (
	"testing"
	"time"
)

// simulate runs a guest that charges the given amounts in a loop, with the
// fuel global semantics of the rewritten module (yield when it goes
// negative), and busy time advancing by perUnit per unit charged. It returns
// the fuel spent when the fuel budget tripped, the number of yields and the
// smallest slice handed out before the last.
func simulate(t *testing.T, limit uint64, charges []int64, perUnit time.Duration) (used uint64, yields int, smallest int64) {
	t.Helper()
	now := time.Unix(0, 0)
	m := NewMeter(Limits{Fuel: limit, ComputeTime: 1 << 62, WallTime: 1 << 62}, now)
	m.Enter(now)
	var fuel int64
	smallest = slice
	for i := 0; ; i++ {
		c := charges[i%len(charges)]
		fuel -= c
		now = now.Add(time.Duration(c) * perUnit)
		if fuel >= 0 {
			continue
		}
		yields++
		next, trip := m.Refill(fuel, now)
		if trip == TripFuel {
			// What a run reports: FuelUsed of the global as the guest left it.
			if got := m.FuelUsed(fuel); got != m.used {
				t.Fatalf("FuelUsed after the trip is %d, the refill counted %d (overdraft %d)", got, m.used, -fuel)
			}
			return m.FuelUsed(fuel), yields, smallest
		}
		if trip != None {
			t.Fatalf("unexpected trip %v", trip)
		}
		if limit-m.used > slice { // not the last slice, which is what is left
			smallest = min(smallest, next)
		}
		fuel = next
	}
}

// Slices shrink for code that spends a long time per unit of fuel, but the
// fuel spent and the point where the budget trips do not change.
func TestSlicesDoNotChangeFuel(t *testing.T) {
	tests := []struct {
		name    string
		charges []int64
	}{
		{"loop", []int64{1}},
		{"bulk chunks", []int64{256, 3, 1}},
		{"mixed", []int64{1, 1, 10000 / 4096, 256, 7}},
	}
	const limit = 1_000_003
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, fastYields, fastSmallest := simulate(t, limit, tt.charges, time.Nanosecond)
			slow, slowYields, slowSmallest := simulate(t, limit, tt.charges, 10*time.Microsecond)
			if fast != slow {
				t.Fatalf("fuel spent at the trip: %d with fast code, %d with slow code", fast, slow)
			}
			if fast <= limit {
				t.Fatalf("tripped at %d, within the limit %d", fast, limit)
			}
			if fastSmallest != slice {
				t.Fatalf("fast code got a slice of %d, want %d", fastSmallest, slice)
			}
			if slowSmallest >= slice || slowSmallest < minSlice || slowYields <= fastYields {
				t.Fatalf("slow code: smallest slice %d, %d yields (fast: %d)", slowSmallest, slowYields, fastYields)
			}
		})
	}
}

// Spend adds to the fuel spent, whether fuel was spent before the last refill or from the
// current slice, and trips only past the budget, as the guest's own spending does.
func TestSpend(t *testing.T) {
	now := time.Unix(0, 0)
	for _, tt := range []struct {
		name        string
		spentBefore int64 // spent, then a refill
		spentSlice  int64 // spent from the slice handed out
		spend       uint64
		trip        Trip
	}{
		{"nothing spent", 0, 0, 100, None},
		{"from the slice", 0, 100, 60, None},
		{"after a refill", 5000, 10, 3000, None},
		{"up to the budget", 5000, 10, 10000 - 5010, None},
		{"past the budget", 5000, 10, 10000 - 5009, TripFuel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMeter(Limits{Fuel: 10000, ComputeTime: 1 << 62, WallTime: 1 << 62}, now)
			left := int64(0)
			if tt.spentBefore > 0 {
				next, trip := m.Refill(-tt.spentBefore, now)
				if trip != None {
					t.Fatalf("trip %v", trip)
				}
				left = next
			}
			left -= tt.spentSlice
			before := m.FuelUsed(left)
			if trip := m.Spend(tt.spend, left); trip != tt.trip {
				t.Fatalf("Spend(%d) after %d tripped %v, want %v", tt.spend, before, trip, tt.trip)
			}
			if got := m.FuelUsed(left); got != before+tt.spend {
				t.Fatalf("spent %d after spending %d more than %d", got, tt.spend, before)
			}
			left -= 7
			if got := m.FuelUsed(left); got != before+tt.spend+7 {
				t.Fatalf("spent %d after 7 more, want %d", got, before+tt.spend+7)
			}
		})
	}
}

// PollYield tells the yields of an interrupt poll's charge from those of
// every other charge, from any balance a slice can leave.
func TestPollYield(t *testing.T) {
	const maxBulkCharge = 256 // a 1 MiB chunk of memory.copy or memory.fill
	for _, before := range []int64{0, 1, minSlice, slice / 2, slice} {
		if !PollYield(before - InterruptCost) {
			t.Errorf("a poll's charge from a balance of %d is not seen as a poll", before)
		}
		for _, c := range []int64{1, 2, maxBulkCharge} {
			if left := before - c; left < 0 && PollYield(left) {
				t.Errorf("a charge of %d from a balance of %d is seen as a poll", c, before)
			}
		}
	}
}
