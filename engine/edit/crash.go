//go:build !awcrash

package edit

// crashPoint and crashPointN mark the steps of commit and rollback where a
// kill must leave a recoverable state. They do nothing in aw itself; the
// awcrash build tag (crash_test_hook.go) makes them kill the process, so
// tests can stop a commit at each step deterministically.
func crashPoint(string) {}

func crashPointN(string, int) {}
