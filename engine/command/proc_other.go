//go:build !unix

package command

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/agentic-workspace/aw/engine/proc"
)

// On systems without POSIX process groups (Windows) a job's tree is
// stopped with taskkill /T on the command's own pid.

func groupAttr() *syscall.SysProcAttr  { return nil }
func detachAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return os.ErrInvalid
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

func groupAlive(pid int) bool { return proc.Alive(pid, 0) }

func signalName(sig syscall.Signal) string { return "signal " + strconv.Itoa(int(sig)) }

func reapOrphans(d time.Duration) {}
