//go:build unix && !linux

package eval

import "syscall"

// parentDeath has no equivalent here: the sandbox and the broker's
// shutdown end interpreters instead.
func parentDeath(*syscall.SysProcAttr) {}
