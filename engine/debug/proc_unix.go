//go:build unix

package debug

import (
	"os/exec"
	"syscall"
)

// ownGroup puts an adapter in a process group of its own (end kills the
// whole tree) and, on Linux, has it killed when the broker dies.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

func killGroup(pid int) {
	if pid > 1 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
