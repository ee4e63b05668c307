//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// serverAttr puts a server in a process group of its own (close ends the
// whole tree) and, on Linux, has it killed when the broker dies.
func serverAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

func killGroup(pid int) {
	if pid > 1 {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
}
