package budget

import "time"

// Trip names the budget that ran out.
type Trip int

// The budgets a Meter can trip.
const (
	// None: no budget ran out.
	None Trip = iota
	// TripFuel: the run spent its Fuel.
	TripFuel
	// TripCompute: the guest was busy for its ComputeTime.
	TripCompute
	// TripWall: the run reached its WallTime.
	TripWall
	// TripStop: the run reached the fuel set by [Meter.StopAt].
	TripStop
)

// slice is the most fuel handed to the guest between two checks. It bounds
// how long the guest runs without a preemption point: at the slowest fuel
// rate measured (C-heavy code such as sort, about 1,200 units per ms) 4,096
// units is a few milliseconds; JavaScript code yields at each interrupt poll.
// Slower code gets smaller slices (see sliceTarget).
const slice = 4096

// sliceTarget is the guest busy time a slice aims at. When a slice took
// longer (code whose fuel rate is low, such as bulk copies into cold memory
// at one unit per 4 KiB), the next one is scaled down, to no less than
// minSlice; when it took less, the next one doubles, up to Slice. Slices only
// decide how often the host checks the run, never how much fuel is charged:
// the fuel spent, and the point where the fuel budget trips, are the same
// whatever the slices were.
const sliceTarget = 500 * time.Microsecond

// minSlice is the smallest slice (a quarter of wasm.bulkMemoryChunk's
// charge: every chunk of a long bulk copy is then a preemption point).
const minSlice = 64

// Meter accounts one run's fuel and busy time. It is used from the run's
// goroutine only.
type Meter struct {
	limits   Limits
	start    time.Time
	used     uint64        // fuel spent up to the last refill
	given    int64         // fuel handed out at the last refill
	slice    int64         // the next slice, at most Slice (0: Slice)
	busyAt   time.Duration // busy time at the last refill
	busy     time.Duration
	busyFrom time.Time
	inGuest  bool
	stopAt   uint64 // see StopAt; 0: none
}

// StopAt makes the guest yield at the first point at which it has spent at
// least n units (n > 0), where Refill reports TripStop: a replayed run
// stops there, where its recording was stopped from outside (see
// runtime's replay). Fuel is charged at the same points whatever the
// slices are, so that point is the recording's.
func (m *Meter) StopAt(n uint64) { m.stopAt = n }

// NewMeter starts metering a run now.
func NewMeter(l Limits, now time.Time) *Meter { return &Meter{limits: l, start: now} }

// Enter marks the start of guest execution.
func (m *Meter) Enter(now time.Time) {
	if !m.inGuest {
		m.inGuest, m.busyFrom = true, now
	}
}

// Exit marks the end of guest execution.
func (m *Meter) Exit(now time.Time) {
	if m.inGuest {
		m.inGuest = false
		m.busy += now.Sub(m.busyFrom)
	}
}

// InGuest reports whether the guest is executing (between Enter and Exit).
func (m *Meter) InGuest() bool { return m.inGuest }

// Busy returns the guest's busy time so far.
func (m *Meter) Busy(now time.Time) time.Duration {
	if m.inGuest {
		return m.busy + now.Sub(m.busyFrom)
	}
	return m.busy
}

// FuelUsed returns the fuel spent, given the guest's current fuel global.
func (m *Meter) FuelUsed(left int64) uint64 {
	spent := m.given - left
	if spent < 0 {
		spent = 0
	}
	return m.used + uint64(spent)
}

// Spend adds n units spent outside the guest's fuel global: a run that
// reuses the bytecode an earlier run compiled is charged the fuel that
// compiling it spent, so that every run of a program spends the same fuel and
// reports what it was charged. It returns TripFuel when the run has now spent
// more than the budget, as a guest that spent it would have tripped at its
// next yield; left is the guest's fuel global now.
func (m *Meter) Spend(n uint64, left int64) Trip {
	m.used += n
	if m.FuelUsed(left) > m.limits.Fuel {
		return TripFuel
	}
	return None
}

// Refill is called when the guest's fuel global went negative (left < 0) or
// at the first check. It returns the next value of the global, or the budget
// that tripped.
func (m *Meter) Refill(left int64, now time.Time) (int64, Trip) {
	m.used = m.FuelUsed(left)
	// Until the next slice is handed out, the guest's global still holds
	// left: FuelUsed(left) is then used, the overdraft counted once (a run
	// that trips here reads its fuel from the global as the guest left it).
	m.given = left
	if m.used >= m.limits.Fuel {
		return 0, TripFuel
	}
	if m.stopAt != 0 && m.used >= m.stopAt {
		return 0, TripStop
	}
	if t := m.checkTime(now); t != None {
		return 0, t
	}
	next := m.limits.Fuel - m.used
	if slice := m.nextSlice(now); next > uint64(slice) {
		next = uint64(slice)
	}
	if m.stopAt != 0 && next > m.stopAt-1-m.used {
		// The guest yields once its global is below 0: at a total of stopAt.
		next = m.stopAt - 1 - m.used
	}
	m.given = int64(next)
	return m.given, None
}

// nextSlice sizes the next slice from the busy time the last one took.
func (m *Meter) nextSlice(now time.Time) int64 {
	busy := m.Busy(now)
	took := busy - m.busyAt
	m.busyAt = busy
	s := m.slice
	switch {
	case s == 0:
		s = slice
	case took > sliceTarget:
		s = max(minSlice, int64(float64(s)*float64(sliceTarget)/float64(took)))
	default:
		s = min(slice, 2*s)
	}
	m.slice = s
	return s
}

// checkTime reports whether compute or wall time ran out.
func (m *Meter) checkTime(now time.Time) Trip {
	if now.Sub(m.start) >= m.limits.WallTime {
		return TripWall
	}
	if m.Busy(now) >= m.limits.ComputeTime {
		return TripCompute
	}
	return None
}

// wall returns the wall time since the run started.
func (m *Meter) Wall(now time.Time) time.Duration { return now.Sub(m.start) }

// WallDeadline is when the wall-clock ceiling is reached.
func (m *Meter) WallDeadline() time.Time { return m.start.Add(m.limits.WallTime) }

// Message returns the timeout message for t.
func (m *Meter) Message(t Trip) string {
	switch t {
	case TripFuel:
		return FuelMessage(m.limits.Fuel)
	case TripCompute:
		return computeMessage(m.limits.ComputeTime)
	case TripWall:
		return WallMessage(m.limits.WallTime)
	}
	return ""
}

// PollYield reports whether a fuel yield that found the balance at left was
// made by the charge of an interrupt poll (InterruptCost units) rather than
// by a C loop (1 unit) or a bulk memory operation (at most 256 units per
// 1 MiB chunk). The balance before a charge is at most one slice, less than
// half of InterruptCost, so a poll's charge alone leaves it below
// -InterruptCost/2.
func PollYield(left int64) bool { return left < -InterruptCost/2 }
