package quickjs

import (
	"context"
	"encoding/binary"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// WASI errno values used here.
const (
	errnoSuccess = 0
	errnoBadf    = 8
	errnoInval   = 28
	errnoNosys   = 52
	errnoSpipe   = 70
)

const i32, i64 = api.ValueTypeI32, api.ValueTypeI64

// instantiateWASI defines the module wasi_snapshot_preview1 with every
// function the QuickJS build imports. It grants nothing: no arguments, no
// environment, no preopened directories (so no path can be opened), stdin at
// end of file. Writes to stdout and stderr go to the Host, clocks read the
// real time, and sleeping is delegated to the Host so that it can be
// cancelled. proc_exit ends the instance through the Host.
func instantiateWASI(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder("wasi_snapshot_preview1")
	fn := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(f, params, results).Export(name)
	}
	zeroSizes := api.GoModuleFunc(func(_ context.Context, m api.Module, s []uint64) {
		m.Memory().WriteUint32Le(uint32(s[0]), 0)
		m.Memory().WriteUint32Le(uint32(s[1]), 0)
		s[0] = errnoSuccess
	})
	success := api.GoModuleFunc(func(_ context.Context, _ api.Module, s []uint64) { s[0] = errnoSuccess })
	badf := api.GoModuleFunc(func(_ context.Context, _ api.Module, s []uint64) { s[0] = errnoBadf })

	fn("args_sizes_get", zeroSizes, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("args_get", success, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("environ_sizes_get", zeroSizes, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("environ_get", success, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("clock_time_get", clockTimeGet, []api.ValueType{i32, i64, i32}, []api.ValueType{i32})
	fn("fd_write", fdWrite, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fn("fd_read", fdRead, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fn("fd_close", badf, []api.ValueType{i32}, []api.ValueType{i32})
	fn("fd_fdstat_get", fdFdstatGet, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("fd_fdstat_set_flags", badf, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("fd_prestat_get", badf, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("fd_prestat_dir_name", badf, []api.ValueType{i32, i32, i32}, []api.ValueType{i32})
	fn("fd_readdir", badf, []api.ValueType{i32, i32, i32, i64, i32}, []api.ValueType{i32})
	fn("fd_seek", fdSeek, []api.ValueType{i32, i64, i32, i32}, []api.ValueType{i32})
	fn("path_create_directory", badf, []api.ValueType{i32, i32, i32}, []api.ValueType{i32})
	fn("path_filestat_get", badf, []api.ValueType{i32, i32, i32, i32, i32}, []api.ValueType{i32})
	fn("path_filestat_set_times", badf, []api.ValueType{i32, i32, i32, i32, i64, i64, i32}, []api.ValueType{i32})
	fn("path_open", badf, []api.ValueType{i32, i32, i32, i32, i32, i64, i64, i32, i32}, []api.ValueType{i32})
	fn("path_remove_directory", badf, []api.ValueType{i32, i32, i32}, []api.ValueType{i32})
	fn("path_rename", badf, []api.ValueType{i32, i32, i32, i32, i32, i32}, []api.ValueType{i32})
	fn("path_unlink_file", badf, []api.ValueType{i32, i32, i32}, []api.ValueType{i32})
	fn("poll_oneoff", pollOneoff, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i32})
	fn("proc_exit", procExit, []api.ValueType{i32}, nil)
	_, err := b.Instantiate(ctx)
	return err
}

var clockTimeGet = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	if c, ok := hostFrom(ctx).(clock); ok {
		if ns, ok := c.ClockNanos(uint32(s[0])); ok {
			m.Memory().WriteUint64Le(uint32(s[2]), uint64(ns))
			s[0] = errnoSuccess
			return
		}
	}
	var ns int64
	switch uint32(s[0]) {
	case 0: // realtime
		ns = time.Now().UnixNano()
	case 1: // monotonic
		ns = int64(time.Since(monotonicBase))
	default:
		s[0] = errnoInval
		return
	}
	m.Memory().WriteUint64Le(uint32(s[2]), uint64(ns))
	s[0] = errnoSuccess
})

// monotonicBase anchors the guest's monotonic clock. It is set once at start-up
// and never written again.
var monotonicBase = time.Now()

var fdWrite = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	fd, iovs, n, resultPtr := uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])
	if fd != 1 && fd != 2 {
		s[0] = errnoBadf
		return
	}
	mem := m.Memory()
	var buf []byte
	var total uint32
	for i := uint32(0); i < n; i++ {
		ptr, ok1 := mem.ReadUint32Le(iovs + i*8)
		l, ok2 := mem.ReadUint32Le(iovs + i*8 + 4)
		if !ok1 || !ok2 {
			s[0] = errnoInval
			return
		}
		p, ok := mem.Read(ptr, l)
		if !ok {
			s[0] = errnoInval
			return
		}
		buf = append(buf, p...)
		total += l
	}
	if h := hostFrom(ctx); h != nil && len(buf) > 0 {
		h.Write(fd, buf)
	}
	mem.WriteUint32Le(resultPtr, total)
	s[0] = errnoSuccess
})

var fdRead = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	if uint32(s[0]) != 0 {
		s[0] = errnoBadf
		return
	}
	m.Memory().WriteUint32Le(uint32(s[3]), 0) // end of file
	s[0] = errnoSuccess
})

var fdSeek = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	if uint32(s[0]) <= 2 {
		s[0] = errnoSpipe
		return
	}
	s[0] = errnoBadf
})

var fdFdstatGet = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	fd, ptr := uint32(s[0]), uint32(s[1])
	if fd > 2 {
		s[0] = errnoBadf
		return
	}
	var st [24]byte
	st[0] = 2                     // character device
	rights := uint64(1<<1 | 1<<6) // fd_read, fd_write
	binary.LittleEndian.PutUint64(st[8:], rights)
	m.Memory().Write(ptr, st[:])
	s[0] = errnoSuccess
})

// pollOneoff implements clock subscriptions by sleeping through the Host
// (which can cancel); fd subscriptions complete at once with EBADF.
var pollOneoff = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	in, out, nsubs, neventsPtr := uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])
	mem := m.Memory()
	if nsubs == 0 || nsubs > 1024 {
		s[0] = errnoInval
		return
	}
	var sleep time.Duration = -1
	nevents := uint32(0)
	for i := uint32(0); i < nsubs; i++ {
		sub, ok := mem.Read(in+i*48, 48)
		if !ok {
			s[0] = errnoInval
			return
		}
		userdata := binary.LittleEndian.Uint64(sub[0:])
		tag := sub[8]
		var ev [32]byte
		binary.LittleEndian.PutUint64(ev[0:], userdata)
		ev[10] = tag
		switch tag {
		case 0: // clock
			timeout := binary.LittleEndian.Uint64(sub[24:])
			flags := binary.LittleEndian.Uint16(sub[40:])
			d := time.Duration(timeout)
			if flags&1 != 0 { // absolute
				clock := binary.LittleEndian.Uint32(sub[16:])
				now := time.Now().UnixNano()
				if clock == 1 {
					now = int64(time.Since(monotonicBase))
				}
				d = time.Duration(int64(timeout) - now)
			}
			if d < 0 {
				d = 0
			}
			if sleep < 0 || d < sleep {
				sleep = d
			}
		default:
			binary.LittleEndian.PutUint16(ev[8:], errnoBadf)
			sleep = 0
		}
		mem.Write(out+nevents*32, ev[:])
		nevents++
	}
	if sleep > 0 {
		if h := hostFrom(ctx); h != nil {
			h.Sleep(sleep)
		}
	}
	mem.WriteUint32Le(neventsPtr, nevents)
	s[0] = errnoSuccess
})

var procExit = api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
	if h := hostFrom(ctx); h != nil {
		h.Exit(uint32(s[0]))
	}
	panic(&ExitError{Code: uint32(s[0])})
})
