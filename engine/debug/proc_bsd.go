//go:build unix && !linux

package debug

import "syscall"

// parentDeath has no equivalent here: the sandbox and the broker's
// shutdown end adapters instead.
func parentDeath(*syscall.SysProcAttr) {}
