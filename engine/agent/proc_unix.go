//go:build unix

package agent

import "syscall"

// detachAttr makes the supervisor the leader of a new session: no
// controlling terminal, and a hang-up or Ctrl-C aimed at the caller's
// group never reaches it.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

func kill(pid int) { syscall.Kill(pid, syscall.SIGKILL) }
