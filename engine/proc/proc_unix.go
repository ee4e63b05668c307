//go:build unix

package proc

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Alive reports whether pid is a living process (not a zombie) started at
// start (clock ticks since boot, when /proc can tell; 0 skips the check).
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := Read(pid)
	if !ok {
		return true // no /proc (macOS): the signal probe is all there is
	}
	return st.Living() && (start == 0 || st.Start == start)
}

// Start is pid's start time in clock ticks since boot (Linux), or 0 where
// it cannot be read.
func Start(pid int) uint64 {
	st, _ := Read(pid)
	return st.Start
}

// Read reads /proc/<pid>/stat; ok is false where there is no such file.
// The command name may hold spaces and parentheses, so fields are counted
// from the last ')'.
func Read(pid int) (st Stat, ok bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return Stat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return Stat{State: f[0][0], Parent: ppid, Group: pgrp, Start: start}, true
}
