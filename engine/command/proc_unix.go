//go:build unix

package command

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/agentic-workspace/aw/engine/proc"
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
		if st, ok := proc.Read(pid); ok && st.Group == pgid && st.Living() {
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
