package vcs

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentic-workspace/aw/internal/testenv"
)

// TestMain runs the tests with an empty home: aw reads the user's git
// configuration (core.excludesFile), and the developer's must not change a
// result.
func TestMain(m *testing.M) {
	_, cleanup, err := testenv.IsolateProcess()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}
