package serialize

import (
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// AddLog reads no more of an entry than its budget needs: given a 100 MB
// entry of which only the first page can be read (the rest is mapped
// PROT_NONE), it returns the budget's prefix without faulting. A scan of the
// whole entry would fault on the second page.
func TestLedgerAddLogReadsOnlyTheBudgetPage(t *testing.T) {
	const limit = 64
	entry := guardedEntry(t, 100<<20, strings.Repeat("a", 200))
	l := NewLedger(limit)
	var got string
	var fit Fit
	require.Nil(t, readFault(func() { got, fit = l.AddLog(entry) }), "AddLog read past the entry's first page")
	require.Equal(t, fitPrefix, fit)
	require.Equal(t, strings.Repeat("a", int(l.LogLimit())-4), got)

	require.NotNil(t, readFault(func() { _ = strings.Count(string(entry), "a") }), "the guard pages fault")
}

// guardedEntry returns a slice of size bytes that starts with prefix, of
// which only the first page is readable; it is unmapped when t ends.
func guardedEntry(t *testing.T, size int, prefix string) []byte {
	t.Helper()
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, syscall.Munmap(mem)) })
	require.NoError(t, syscall.Mprotect(mem[:os.Getpagesize()], syscall.PROT_READ|syscall.PROT_WRITE))
	copy(mem, prefix)
	return mem
}

// readFault calls f and returns the fault it panicked with, or nil.
func readFault(f func()) (fault any) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() { fault = recover() }()
	f()
	return nil
}
