//go:build unix && !linux

package lsp

import "syscall"

// parentDeath has no equivalent here: the broker's watchdog and the
// sandbox end servers instead.
func parentDeath(*syscall.SysProcAttr) {}
