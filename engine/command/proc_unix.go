//go:build unix

package command

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// groupAttr puts the command in a process group of its own, so a timeout
// or a cancel can signal the whole tree it spawns and nothing else.
func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// detachAttr makes the supervisor the leader of a new session: no
// controlling terminal, and a hang-up or Ctrl-C aimed at the caller's
// group never reaches it.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// signalGroup sends sig to every process of the group pgid.
func signalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return errors.New("no process group")
	}
	return syscall.Kill(-pgid, sig)
}

// groupAlive reports whether any process (other than a zombie waiting to
// be reaped) is left in the group.
func groupAlive(pgid int) bool {
	if pgid <= 1 || syscall.Kill(-pgid, 0) != nil {
		return false
	}
	// Where /proc exists, zombies that nobody reaps (a container without
	// an init) do not count as a living tree.
	if members, ok := groupMembers(pgid); ok {
		return len(members) > 0
	}
	return true
}

// processAlive reports whether pid is a living process started at start
// (when start is known and /proc can tell; 0 skips the check).
func processAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	st, ok := procStat(pid)
	if !ok {
		return true // no /proc (macOS): the signal probe is all there is
	}
	if st.state == 'Z' || st.state == 'X' {
		return false
	}
	return start == 0 || st.start == start
}

// processStart is pid's start time in clock ticks since boot (Linux), or
// 0 where it cannot be read.
func processStart(pid int) uint64 {
	if st, ok := procStat(pid); ok {
		return st.start
	}
	return 0
}

type stat struct {
	state byte
	pgrp  int
	start uint64
}

// procStat reads /proc/<pid>/stat. The command name may hold spaces and
// parentheses, so fields are counted from the last ')'.
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

// groupMembers lists the living (non-zombie) processes of group pgid from
// /proc; ok is false where /proc is not available.
func groupMembers(pgid int) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := procStat(pid); ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// signalName names a signal the way a shell user knows it.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGKILL:
		return "SIGKILL"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGSEGV:
		return "SIGSEGV"
	case syscall.SIGABRT:
		return "SIGABRT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return "signal " + strconv.Itoa(int(sig))
}
