// Package testenv decides, in one place, what a test does when the machine
// lacks something it needs (a program, /proc, a pseudo-terminal, sparse
// files): under CI=true the test fails and names what to install, so a CI
// run can never pass by skipping; anywhere else it is skipped with the same
// message. No test calls t.Skip for a missing prerequisite directly.
//
// It also gives tests a user environment of their own (IsolateProcess), so the
// developer's ~/.gitconfig, XDG config or approver token cannot change a
// result.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// InCI reports whether the tests run in CI, where nothing may be missing.
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing stops the test because what is not available: a failure under
// CI=true, a skip elsewhere. install says how to get it.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true and %s is missing: %s", what, install)
	}
	t.Skipf("skipped: %s is missing (%s)", what, install)
}

// Need returns the path of program, or stops the test (see Missing).
func Need(t testing.TB, program, install string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err != nil {
		Missing(t, program, install)
	}
	return p
}

// NeedProc stops the test unless /proc shows this process (Linux).
func NeedProc(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		Missing(t, "/proc", "run the tests on Linux with /proc mounted")
	}
}

// Git is the git the tests use as an oracle.
func Git(t testing.TB) string {
	t.Helper()
	return Need(t, "git", "apt-get install git")
}

// Env is the isolated environment for a home directory: HOME,
// XDG_CONFIG_HOME and git's global and system configuration point into it
// (or at /dev/null), and aw's own variables are empty.
func Env(home string) map[string]string {
	return map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_SYSTEM":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"AW_ROOT":             "",
		"AW_APPROVER_TOKEN":   "",
	}
}

// IsolateProcess gives a whole test binary, from TestMain, an empty home
// of its own: it sets Env's variables with os.Setenv and returns a function that removes the
// temporary home.
func IsolateProcess() (home string, cleanup func(), err error) {
	home, err = os.MkdirTemp("", "aw-test-home-")
	if err != nil {
		return "", nil, err
	}
	// The go command keeps its build and module caches under HOME by
	// default: a test that runs go (cmd/aw builds aw) must keep using them.
	env := Env(home)
	if os.Getenv("GOCACHE") == "" {
		if c, err := os.UserCacheDir(); err == nil {
			env["GOCACHE"] = filepath.Join(c, "go-build")
		}
	}
	if os.Getenv("GOPATH") == "" {
		if h, err := os.UserHomeDir(); err == nil {
			env["GOPATH"] = filepath.Join(h, "go")
		}
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			os.RemoveAll(home)
			return "", nil, err
		}
	}
	return home, func() { os.RemoveAll(home) }, nil
}

// NoPty stops the test because a pseudo-terminal could not be opened (err).
func NoPty(t testing.TB, err error) {
	t.Helper()
	Missing(t, "a pseudo-terminal ("+err.Error()+")", "run the tests where /dev/ptmx and devpts are available")
}
