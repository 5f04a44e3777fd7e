package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// interrupt cancels a run on the first SIGINT or SIGTERM, with a cause
// naming the signal (the Result's abort message), and remembers the exit
// status the signal asks for: 128 plus its number, as a shell reports a
// process the signal ended (130 for SIGINT, 143 for SIGTERM). After the
// first signal the default handling is back, so a second one ends the
// process at once.
type interrupt struct {
	ch     chan os.Signal
	cancel context.CancelCauseFunc
	quit   chan struct{} // closed by stop
	done   chan struct{} // closed when watch returns
	status int           // set by watch before done is closed
}

// onInterrupt returns a context that the first SIGINT or SIGTERM cancels,
// and the interrupt that watches for them; call its stop when done.
func onInterrupt(parent context.Context) (context.Context, *interrupt) {
	ctx, cancel := context.WithCancelCause(parent)
	in := &interrupt{ch: make(chan os.Signal, 1), cancel: cancel, quit: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go in.watch()
	return ctx, in
}

// watch waits for a signal, or for stop.
func (in *interrupt) watch() {
	defer close(in.done)
	select {
	case sig := <-in.ch:
		signal.Stop(in.ch)
		cause := fmt.Errorf("interrupted: coderun received %s", signalName(sig))
		if n, ok := sig.(syscall.Signal); ok {
			in.status = 128 + int(n)
		}
		in.cancel(cause)
	case <-in.quit:
	}
}

// stop stops watching for signals and returns the exit status the signal
// that came asks for, or 0 when none came.
func (in *interrupt) stop() int {
	signal.Stop(in.ch)
	close(in.quit)
	<-in.done
	in.cancel(context.Canceled)
	return in.status
}

// signalName names sig as a user knows it.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT (Ctrl-C)"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
