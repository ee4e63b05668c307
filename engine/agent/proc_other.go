//go:build !unix

package agent

import (
	"os"
	"syscall"
)

func detachAttr() *syscall.SysProcAttr { return nil }

func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
