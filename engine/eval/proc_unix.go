//go:build unix

package eval

import (
	"os/exec"
	"syscall"
)

// ownGroup puts an interpreter in a process group of its own (kill ends the
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
