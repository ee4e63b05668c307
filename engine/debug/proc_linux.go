package debug

import "syscall"

func parentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
