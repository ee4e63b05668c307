//go:build !awcrash

package snapshot

// crashPoint marks the steps of a snapshot write where a kill must leave
// a usable store. It does nothing in aw itself; the awcrash build tag
// (crash_test_hook.go) makes it kill the process, so tests can stop a
// scan there deterministically.
func crashPoint(string) {}
