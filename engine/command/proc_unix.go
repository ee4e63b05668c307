//go:build unix

package command

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

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
	if members, ok := processes(func(st proc.Stat) bool { return st.Group == pgid && st.Living() }); ok {
		return len(members) > 0
	}
	return true
}

// processes lists the processes whose /proc stat matches; ok is false
// where /proc is not available.
func processes(match func(proc.Stat) bool) (pids []int, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := proc.Read(pid); ok && match(st) {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// reapOrphans waits, at most d, for the sandbox inits a job left
// re-parented to this process (see becomeSubreaper) and reaps them, so a
// job is recorded as ended only when nothing of it runs. A sandbox's inner
// init, the first process of its own PID namespace, outlives the sandbox's
// outer process for as long as the kernel takes to kill and reap the rest
// of that namespace (its exit completes only then), and it would stay a
// zombie in a container whose init reaps nothing. What is still alive
// after d is killed.
func reapOrphans(d time.Duration) {
	self := os.Getpid()
	ours, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return
	}
	deadline := time.Now().Add(d)
	// An init seen once is waited for even after its namespace link can
	// no longer be read (a zombie's cannot).
	seen := map[int]bool{}
	for {
		kids, _ := processes(func(st proc.Stat) bool { return st.Parent == self })
		inits := slices.DeleteFunc(kids, func(pid int) bool {
			if seen[pid] {
				return false
			}
			ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
			seen[pid] = err == nil && ns != ours
			return !seen[pid]
		})
		if len(inits) == 0 {
			return
		}
		late := time.Now().After(deadline)
		for _, pid := range inits {
			if late {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
		time.Sleep(5 * time.Millisecond)
	}
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
