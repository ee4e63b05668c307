//go:build !unix

package command

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// On systems without POSIX process groups (Windows) a job's tree is
// stopped with taskkill /T on the command's own pid (seed 002).

func groupAttr() *syscall.SysProcAttr  { return nil }
func detachAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return os.ErrInvalid
	}
	return exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(pid)).Run()
}

func groupAlive(pid int) bool { return processAlive(pid, 0) }

func processAlive(pid int, start uint64) bool {
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

func processStart(pid int) uint64 { return 0 }

func signalName(sig syscall.Signal) string { return "signal " + strconv.Itoa(int(sig)) }
