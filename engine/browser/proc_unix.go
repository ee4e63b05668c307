//go:build unix

package browser

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// detach makes Chromium the leader of a new session and process group: it
// outlives the aw call that started it, no signal aimed at the caller's
// terminal reaches it, and close can end its whole tree with one signal.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// alive reports whether pid is a running process (not a zombie) that
// started at start (clock ticks since boot; 0 skips that check).
func alive(pid int, start uint64) bool {
	if pid <= 1 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := procStat(pid)
	if !ok {
		return true // no /proc: the signal probe is all there is
	}
	if st.state == 'Z' || st.state == 'X' {
		return false
	}
	return start == 0 || st.start == start
}

// processStart is pid's start time, 0 where /proc cannot tell.
func processStart(pid int) uint64 {
	st, _ := procStat(pid)
	return st.start
}

type stat struct {
	state byte
	pgrp  int
	start uint64
}

func procStat(pid int) (stat, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return stat{}, false
	}
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return stat{state: f[0][0], pgrp: pgrp, start: start}, true
}

// Leftovers lists the living processes of Chromium's group pgid and every
// living process whose command line names the profile directory (a helper
// that left the group still carries --user-data-dir).
func Leftovers(pgid int, profile string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		if pgid > 1 && syscall.Kill(-pgid, 0) == nil {
			return []int{pgid}
		}
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		st, ok := procStat(pid)
		if !ok || st.state == 'Z' || st.state == 'X' {
			continue
		}
		if pgid > 1 && st.pgrp == pgid {
			out = append(out, pid)
			continue
		}
		if profile != "" {
			if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && mentions(string(cmd), profile) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// mentions reports whether a NUL-separated command line passes dir as
// --user-data-dir (or names a path inside it).
func mentions(cmdline, dir string) bool {
	for _, arg := range strings.Split(cmdline, "\x00") {
		if v, ok := strings.CutPrefix(arg, "--user-data-dir="); ok && filepath.Clean(v) == dir {
			return true
		}
	}
	return false
}

// terminate ends Chromium's tree: SIGTERM to the group, then SIGKILL to
// whatever is left of it (and of any process still naming the profile)
// after grace. It reports the processes that would not die.
func terminate(pgid int, profile string, grace time.Duration) []int {
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGTERM)
	}
	for _, pid := range Leftovers(0, profile) {
		syscall.Kill(pid, syscall.SIGTERM)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if len(Leftovers(pgid, profile)) == 0 {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	for _, pid := range Leftovers(pgid, profile) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline = time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		left := Leftovers(pgid, profile)
		if len(left) == 0 {
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return Leftovers(pgid, profile)
}

// lockFile takes an exclusive flock on path, waiting for another aw call
// driving the same session unless nowait. The lock dies with the process.
func lockFile(path string, nowait ...bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_EX
	if len(nowait) > 0 && nowait[0] {
		how |= syscall.LOCK_NB
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

const supported = true
