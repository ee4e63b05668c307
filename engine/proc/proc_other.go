//go:build !unix

package proc

import "os"

// Alive reports whether pid names a process; start times are not known here.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}

func Start(pid int) uint64 { return 0 }

func Read(pid int) (Stat, bool) { return Stat{}, false }
