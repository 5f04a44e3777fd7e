package runtime

import (
	"math"
	"sync"
	"time"
	_ "time/tzdata" // zones answer the same on every host, with or without a tz database

	"github.com/coderun/coderun/internal/quickjs"
)

// Time zones for Intl.DateTimeFormat (web/intl_date.js): the guest has no
// tz database, so it asks the host (hostcalls.OpTimeZone) for a zone's UTC
// offset at an instant. The guest checks a zone's name against the names
// it knows first; the host checks it again, since a program could make up
// operands.

const (
	// maxZoneName is the longest zone name the host looks up (the longest
	// IANA name is 32 bytes).
	maxZoneName = 64
	// maxZonesCached is how many zones an Engine keeps loaded.
	maxZonesCached = 64
	// maxTimeMs is the largest magnitude of a Date's time value
	// (https://tc39.es/ecma262/#sec-time-values-and-time-range).
	maxTimeMs = 8.64e15
)

// zoneCache keeps the zones an Engine's runs have loaded, up to
// maxZonesCached of them.
type zoneCache struct {
	mu    sync.Mutex
	zones map[string]*time.Location
}

// location returns the zone named name, or nil when there is none.
func (c *zoneCache) location(name string) *time.Location {
	c.mu.Lock()
	defer c.mu.Unlock()
	if loc, ok := c.zones[name]; ok {
		return loc
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = nil
	}
	if c.zones == nil {
		c.zones = make(map[string]*time.Location)
	}
	if len(c.zones) < maxZonesCached {
		c.zones[name] = loc
	}
	return loc
}

// validZoneName reports whether name has an IANA zone name's shape:
// letters, digits, "/", "_", "-" and "+", not starting with "/" or holding
// "..".
func validZoneName(name []byte) bool {
	if len(name) == 0 || len(name) > maxZoneName || name[0] == '/' {
		return false
	}
	for i, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '/', c == '_', c == '-', c == '+':
		case c == '.' && i+1 < len(name) && name[i+1] != '.':
		default:
			return false
		}
	}
	return true
}

// zoneOffset returns the UTC offset, in seconds, that zone name has at the
// time value ms (milliseconds since the epoch), or undefined when name is
// not a zone or ms not a time value.
func (r *run) zoneOffset(name, ms quickjs.Value) quickjs.Value {
	t, ok := ms.Number()
	if !ok || math.IsNaN(t) || math.Abs(t) > maxTimeMs || !name.IsString() {
		return quickjs.Undefined
	}
	var zone string
	r.viewString(name, func(b []byte) {
		if validZoneName(b) {
			zone = string(b)
		}
	})
	if zone == "" {
		return quickjs.Undefined
	}
	if r.rp != nil {
		return r.zoneReplayed(zone, t)
	}
	loc := r.e.zones.location(zone)
	if loc == nil {
		return quickjs.Undefined
	}
	sec := math.Floor(t / 1000)
	_, offset := time.Unix(int64(sec), 0).In(loc).Zone()
	if r.rec != nil {
		r.rec.add(TraceEvent{Type: EventZone, Zone: zone, Ms: t, Offset: int32(offset)}, jsonStringLen(zone)+48)
	}
	return quickjs.Int(int32(offset))
}
