//go:build unix && !linux

package vcs

import "syscall"

func ctimeOf(st *syscall.Stat_t) (int64, int64, bool) { return 0, 0, false }
